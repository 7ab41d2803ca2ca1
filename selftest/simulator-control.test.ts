/**
 * The simulator's control API answers as openapi/simulator-control.yaml says: every operation of the
 * contract is called on a real sandbox, and each answer's status is one the contract lists for it and
 * its body validates with Ajv against the schema it names (the way src/spec validates a provider).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { CONTROL_SPEC_PATH } from '../src/base/paths.ts';
import type { Journal } from '../src/evidence/journal.ts';
import { schemaStoreOf, schemaValidator } from '../src/spec/spec.ts';
import { type RunningSandbox, startSandbox } from '../sandbox/server.ts';
import { inventWithdrawal } from './support/data.ts';
import { TEST_PAYEE } from './support/live-env.ts';

type Node = Record<string, unknown>;
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly responses: Node;
}
interface Answer {
  readonly status: number;
  readonly body: unknown;
}

const document = parse(readFileSync(CONTROL_SPEC_PATH, 'utf8')) as {
  paths: Record<string, Record<string, Node>>;
  components: { schemas: object; responses: Record<string, Node> };
};
const store = schemaStoreOf(document.components.schemas);
const operations = new Map<string, Operation>(
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'parameters')
      .map(([method, operation]) => [
        operation.operationId as string,
        { method: method.toUpperCase(), path, responses: operation.responses as Node },
      ]),
  ),
);
/** webhook-late's 30 s become 3 s: still due when the journal is read right after, even on a loaded machine. */
const TIME_SCALE = 0.1;
const SETTLE_BOUND_MS = 10_000;

/** The schema reference the contract gives for an operation's answer with that status; undefined for none (204). */
function answerSchema(operationId: string, status: number): string | undefined {
  const operation = operations.get(operationId);
  assert.ok(operation !== undefined, `the contract has no operation ${operationId}`);
  let response = operation.responses[String(status)] as Node | undefined;
  assert.ok(response !== undefined, `the contract lists no ${status} for ${operationId}`);
  const ref = response.$ref;
  if (typeof ref === 'string') response = document.components.responses[ref.split('/').pop() ?? ''];
  const content = (response?.content as Record<string, { schema: Node }> | undefined)?.['application/json'];
  return content?.schema.$ref as string | undefined;
}

describe('the simulator control API against its contract', () => {
  let sandbox: RunningSandbox;
  let handler: Server;
  let hook = '';
  const called = new Set<string>();

  before(async () => {
    sandbox = await startSandbox({ timeScale: TIME_SCALE });
    handler = createServer((request, response) => {
      request.resume().on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
    hook = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/hooks/control`;
  });

  after(async () => {
    await sandbox.close();
    handler.closeAllConnections();
    await new Promise((resolve) => handler.close(resolve));
  });

  /** Calls the operation as the contract places it, and holds the answer to the contract. */
  async function call(
    operationId: string,
    options: { name?: string; body?: unknown; token?: string } = {},
  ): Promise<Answer> {
    const operation = operations.get(operationId);
    assert.ok(operation !== undefined, `the contract has no operation ${operationId}`);
    const path = operation.path.replace('{name}', encodeURIComponent(options.name ?? ''));
    const response = await fetch(`${sandbox.url}${path}`, {
      method: operation.method,
      headers: { authorization: `Bearer ${options.token ?? sandbox.controlToken}` },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    const answer = { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
    const ref = answerSchema(operationId, answer.status);
    if (ref === undefined) {
      assert.equal(text, '', `${operationId} ${answer.status} has no body in the contract`);
    } else {
      const validate = schemaValidator(store, ref);
      assert.ok(validate !== undefined, ref);
      assert.ok(
        validate(answer.body),
        `${operationId} ${answer.status}: ${store.errorsText(validate.errors)}`,
      );
    }
    called.add(operationId);
    return answer;
  }

  async function withdraw(baseUrl: string, credentials: Node, amount: number): Promise<number> {
    const tokenAnswer = await fetch(`${baseUrl}/auth/token`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        client_id: String(credentials.clientId),
        cert_client: String(credentials.certClient),
      },
      signal: AbortSignal.timeout(10_000),
    });
    const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
    const answer = await fetch(`${baseUrl}/pix/payment`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        client_id: String(credentials.clientId),
        client_secret: String(credentials.clientSecret),
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      },
      // A member §2.1 does not name: a departure recorded, the withdrawal served all the same.
      body: JSON.stringify({
        note: 'x',
        amount,
        code: inventWithdrawal().code,
        name: TEST_PAYEE.PIX_PAYEE_NAME,
        key_type: TEST_PAYEE.PIX_PAYEE_KEY_TYPE,
        document: TEST_PAYEE.PIX_PAYEE_DOCUMENT,
        key_pix: TEST_PAYEE.PIX_PAYEE_KEY,
        PostBackUrl: hook,
        check_code: true,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    await answer.body?.cancel();
    return answer.status;
  }

  it('answers every operation as the contract says, and the journal says which deliveries are due until none is', async () => {
    assert.equal((await call('listNamespaces', { token: 'not-the-control-token' })).status, 401);
    assert.equal((await call('createNamespace', { body: { name: '-not-a-name' } })).status, 400);
    const created = await call('createNamespace', { body: { name: 'contract', faults: 'realistic' } });
    assert.equal(created.status, 201);
    const namespace = created.body as Node;
    const listed = await call('listNamespaces');
    assert.deepEqual(
      (listed.body as { namespaces: Node[] }).namespaces.map((n) => n.name),
      ['contract'],
    );
    const outcomes = (await call('listOutcomes')).body as { name: string; amount: number }[];
    const late = outcomes.find((row) => row.name === 'webhook-late');
    assert.ok(late !== undefined);

    // The first paid withdrawal of a realistic namespace is delivered twice; webhook-late's comes later.
    assert.equal(await withdraw(String(namespace.baseUrl), namespace, 0.01), 200);
    assert.equal(await withdraw(String(namespace.baseUrl), namespace, late.amount), 200);
    const pending = (await call('getJournal', { name: 'contract' })).body as Journal;
    assert.ok(
      pending.due.length >= 1,
      `deliveries due right after the withdrawals: ${JSON.stringify(pending.due)}`,
    );
    assert.ok(pending.requests.some((r) => r.departures.some((d) => d.code === 'field-unknown')));

    const deadline = Date.now() + SETTLE_BOUND_MS;
    let settled = pending;
    while (settled.due.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      settled = (await call('getJournal', { name: 'contract' })).body as Journal;
    }
    assert.deepEqual(settled.due, []);
    assert.deepEqual(
      settled.deliveries.map((d) => [d.kind, d.answer.status]),
      [
        ['valid', 200],
        ['duplicate', 200],
        ['valid', 200],
      ],
    );

    const code = settled.requests.find((r) => r.outcome?.name === 'paid')?.code;
    assert.ok(code !== undefined);
    const triggered = await call('triggerWebhook', {
      name: 'contract',
      body: { withdrawal: code, copies: 2 },
    });
    assert.deepEqual(
      (triggered.body as { attempts: Node[] }).attempts.map((a) => a.status),
      [200, 200],
    );
    assert.equal((await call('triggerWebhook', { name: 'contract', body: { copies: 2 } })).status, 400);
    assert.equal(
      (await call('triggerWebhook', { name: 'contract', body: { withdrawal: 'none' } })).status,
      404,
    );

    assert.equal((await call('resetNamespace', { name: 'contract' })).status, 204);
    assert.equal(((await call('getJournal', { name: 'contract' })).body as Journal).requests.length, 0);
    assert.equal((await call('deleteNamespace', { name: 'contract' })).status, 204);
    assert.equal((await call('getJournal', { name: 'contract' })).status, 404);
    assert.equal((await call('deleteNamespace', { name: 'contract' })).status, 404);

    assert.deepEqual(
      [...called].sort(),
      [...operations.keys()].sort(),
      'every operation of the contract called',
    );
  });
});
