/**
 * Our mistake or theirs: before the first test, the configured credentials are tried once with a
 * valid token request (§4.1). Refused with 401 or 403, the run stops as a configuration error naming
 * PIX_CLIENT_ID and the certificate, quoting what came back: a typo in a credential must not become a
 * dozen findings blamed on the provider. Any other answer (a token, a 5xx, a 200 without a token, a
 * time-out) is the environment's to be judged by the tests. A token it was issued is the run's first:
 * the workers use it instead of asking for one each (a round trip at a distance, src/run/session.ts).
 */
import type { Config } from '../config/config.ts';
import { ConfigError } from '../config/errors.ts';
import { describeResponse, tokenAt, type Exchange } from '../evidence/exchange.ts';
import { tokenHeaders } from '../spec/requests.ts';
import { HttpClient, send } from '../transport/http.ts';
import type { HeldToken } from '../transport/token-desk.ts';
import { apiTls } from '../transport/tls.ts';
import { printable } from './errors.ts';

/** The statuses §5.4 and §7 name for credentials the service does not take. */
const CREDENTIAL_REFUSALS = new Set([401, 403]);

/** The token a 200 carries at PIX_TOKEN_FIELD, with when it was asked for; undefined without one. */
function issuedToken(exchange: Exchange, tokenField: string, issuedAt: number): HeldToken | undefined {
  const token = tokenAt(exchange, tokenField);
  return exchange.response.status === 200 && token !== undefined && token !== ''
    ? { token, issuedAt }
    : undefined;
}

/** Stops the run when the provider refuses the credentials; else the token it issued, if any. */
export async function checkCredentials(config: Config): Promise<HeldToken | undefined> {
  const client = new HttpClient({
    maxResponseBytes: config.maxResponseBytes,
    tokenField: config.tokenField,
    tls: apiTls(config.tls),
  });
  try {
    const issuedAt = Date.now();
    const exchange = await send(
      client,
      'createToken',
      {
        method: 'POST',
        url: `${config.baseUrl ?? ''}/auth/token`,
        headers: tokenHeaders(config),
        body: undefined,
      },
      config.requestTimeoutMs,
    ).catch(() => undefined);
    if (exchange === undefined) return undefined;
    if (!CREDENTIAL_REFUSALS.has(exchange.response.status))
      return issuedToken(exchange, config.tokenField, issuedAt);
    throw new ConfigError(
      'PIX_CLIENT_ID',
      `a token request with PIX_CLIENT_ID and PIX_CERT_CLIENT (or PIX_CERT_FILE) was refused: ${printable(describeResponse(exchange.response), 300)}`,
      `Check both against your client dashboard (the client_id, and the certificate public key registered for it). If they are right, the provider refuses a request §4.1 allows.`,
    );
  } finally {
    client.close();
  }
}
