/**
 * pix-certify client --handler: a webhook handler certified alone. One withdrawal per kind of
 * delivery (valid, duplicate, out of order, extra fields, malformed) is made in the namespace with
 * the handler's URL as its PostBackUrl, so the simulator delivers each kind there.
 */
import { randomBytes } from 'node:crypto';
import type { OutcomeRow } from '../evidence/journal.ts';
import type { SimulatorNamespace } from './simulator-control.ts';

const REQUEST_TIMEOUT_MS = 10_000;
/** The outcomes whose webhooks exercise each handler check, in the order they are sent. */
const KINDS = ['paid', 'webhook-twice', 'out-of-order', 'webhook-extra-fields', 'webhook-malformed'];

export async function exerciseHandler(
  ns: SimulatorNamespace,
  outcomes: readonly OutcomeRow[],
  url: string,
): Promise<void> {
  const token = await fetch(`${ns.baseUrl}/auth/token`, {
    method: 'POST',
    headers: { accept: 'application/json', client_id: ns.clientId, cert_client: ns.certClient },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  for (const [index, name] of KINDS.entries()) {
    const row = outcomes.find((o) => o.name === name);
    if (row === undefined) throw new Error(`the simulator's outcome table has no ${name}`);
    const body = {
      amount: row.amount,
      code: `handler-${index}-${randomBytes(4).toString('hex')}`,
      name: 'Handler Check',
      key_type: 'EMAIL',
      document: '12345678909',
      key_pix: 'handler@example.com',
      PostBackUrl: url,
      check_code: true,
    };
    await fetch(`${ns.baseUrl}/pix/payment`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        client_id: ns.clientId,
        client_secret: ns.clientSecret,
        authorization: `Bearer ${accessToken}`,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  }
}
