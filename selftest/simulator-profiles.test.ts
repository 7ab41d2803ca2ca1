/**
 * A namespace plays any provider profile, with any fault on top (issue 49): created with "profile":
 * "lenient" it refuses a wrong client_secret with 401 and issues {token, expiresIn}; with the fault
 * secret-prefix it takes a secret one character short, which the reference refuses; a webhook fault
 * reaches its handler too; `sandbox --profiles --json` lists what a namespace may be given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  control,
  type Namespace,
  sandboxCli,
  send,
  simulatorWithHandler,
  tokenOf,
  withdrawalBody,
  withdrawalHeaders,
} from './support/simulator-client.ts';

const { simulator, handler } = simulatorWithHandler();

async function namespaceWith(
  name: string,
  provider: { profile?: string; faults?: string[] },
): Promise<Namespace & { profile: string; providerFaults: string[] }> {
  const response = await control(simulator(), 'POST', '/_sim/namespaces', { name, ...provider });
  assert.equal(response.status, 201);
  return (await response.json()) as Namespace & { profile: string; providerFaults: string[] };
}

/** A withdrawal whose client_secret is the namespace's with its last character dropped. */
async function shortSecret(namespace: Namespace): Promise<number | null> {
  const token = await tokenOf(namespace);
  const headers = {
    ...withdrawalHeaders(namespace, token),
    client_secret: namespace.clientSecret.slice(0, -1),
  };
  const body = withdrawalBody(0.01, `${handler.url}/hooks/short-${namespace.name}`);
  return (await send(`${namespace.baseUrl}/pix/payment`, headers, body)).status;
}

describe('a namespace plays a provider profile', () => {
  it('lenient: a wrong client_secret is refused with 401, and the token answer is {token, expiresIn}', async () => {
    const namespace = await namespaceWith('lenient-one', { profile: 'lenient' });
    assert.deepEqual([namespace.profile, namespace.providerFaults], ['lenient', []]);
    const answer = await send(
      `${namespace.baseUrl}/auth/token`,
      { Accept: 'application/json', client_id: namespace.clientId, cert_client: namespace.certClient },
      '',
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.json ?? {}).sort(), ['expiresIn', 'token']);
    const headers = {
      ...withdrawalHeaders(namespace, String(answer.json?.token)),
      client_secret: 'not-the-secret',
    };
    const body = withdrawalBody(0.01, `${handler.url}/hooks/lenient`);
    assert.equal((await send(`${namespace.baseUrl}/pix/payment`, headers, body)).status, 401);
  });

  it('a fault on top: secret-prefix takes a client_secret one character short; the default refuses it with 403', async () => {
    const prefix = await namespaceWith('prefix-one', { faults: ['secret-prefix'] });
    assert.deepEqual([prefix.profile, prefix.providerFaults], ['simulator', ['secret-prefix']]);
    assert.equal(await shortSecret(prefix), 200);
    assert.equal(await shortSecret(await namespaceWith('default-one', {})), 403);
  });

  it('a webhook fault reaches the handler: webhook-get calls it with GET and no body', async () => {
    const namespace = await namespaceWith('get-one', { profile: 'reference', faults: ['webhook-get'] });
    const path = '/hooks/get-one';
    const answer = await send(
      `${namespace.baseUrl}/pix/payment`,
      withdrawalHeaders(namespace, await tokenOf(namespace)),
      withdrawalBody(0.01, `${handler.url}${path}`),
    );
    assert.equal(answer.status, 200);
    const delivered = await handler.awaitDeliveries(path, 1, performance.now() + 5_000);
    assert.deepEqual(
      delivered.map(({ method, body }) => ({ method, body })),
      [{ method: 'GET', body: '' }],
    );
  });

  it('refuses a profile or a fault it does not know, naming where the known ones are listed', async () => {
    for (const provider of [{ profile: 'nonesuch' }, { faults: ['reference'] }]) {
      const response = await control(simulator(), 'POST', '/_sim/namespaces', {
        name: 'unknown',
        ...provider,
      });
      assert.equal(response.status, 400);
      assert.match(((await response.json()) as { message: string }).message, /sandbox --profiles/);
    }
  });

  it('sandbox --profiles --json lists the namespaces default, the profiles and the faults', async () => {
    const { stdout, code } = await sandboxCli(['--profiles', '--json']);
    assert.equal(code, 0);
    const listed = JSON.parse(stdout) as { name: string; kind: string }[];
    const kindOf = (name: string): string | undefined => listed.find((p) => p.name === name)?.kind;
    assert.deepEqual(['simulator', 'reference', 'lenient', 'secret-prefix', 'webhook-get'].map(kindOf), [
      'profile',
      'profile',
      'profile',
      'fault',
      'fault',
    ]);
  });
});
