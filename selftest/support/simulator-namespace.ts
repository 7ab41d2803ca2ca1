/** The in-process simulator for the self-tests that read a namespace's journal: its control API, a namespace, its judging. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type RunningSandbox, startSandbox } from '../../sandbox/server.ts';
import { clientChecks } from '../../src/checks/catalogue.ts';
import type { Journal, OutcomeRow } from '../../src/evidence/journal.ts';
import { buildClientCertification } from '../../src/report/client-certification.ts';
import type { Certification } from '../../src/report/model.ts';

export interface Namespace {
  readonly name: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
}

/** A call of the control API with its token, answered 2xx with JSON. */
export async function controlCall<T>(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.controlToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(response.ok, `${method} ${path}: ${response.status}`);
  return (await response.json()) as T;
}

/** A new namespace without faults, and a token issued to its client. */
export async function openNamespace(
  sandbox: RunningSandbox,
  name: string,
): Promise<{ ns: Namespace; token: string }> {
  const ns = await controlCall<Namespace>(sandbox, 'POST', '/_sim/namespaces', { name, faults: 'none' });
  const answer = await fetch(`${ns.baseUrl}/auth/token`, {
    method: 'POST',
    headers: { Accept: 'application/json', client_id: ns.clientId, cert_client: ns.certClient },
  });
  const issued = (await answer.json()) as Record<string, unknown>;
  return { ns, token: String(issued.access_token ?? issued.token) };
}

/** A simulator started before the describe block's tests and closed after them. */
export function simulatorForTests(): () => RunningSandbox {
  let sandbox: RunningSandbox | undefined;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });
  return () => {
    assert.ok(sandbox !== undefined, 'the simulator started');
    return sandbox;
  };
}

/** The namespace's journal judged by the client and handler checks, as pix-certify client judges it. */
export async function clientCertificationOf(
  sandbox: RunningSandbox,
  ns: Namespace,
): Promise<{ journal: Journal; report: Certification }> {
  const journal = await controlCall<Journal>(sandbox, 'GET', `/_sim/namespaces/${ns.name}/journal`);
  const outcomes = await controlCall<OutcomeRow[]>(sandbox, 'GET', '/_sim/outcomes');
  const report = buildClientCertification({
    run: { journal, outcomes },
    checks: clientChecks('client'),
    subject: 'client',
    baseUrl: ns.baseUrl,
    startTime: new Date(),
    durationMs: 1,
    strict: false,
    requireComplete: false,
    options: {},
    suiteErrors: [],
  });
  return { journal, report };
}
