/** The token operation (§4.1, §5.1, §5.3). */
import { describeResponse, type Exchange } from '../exchange.ts';
import type { JsonValue } from './types.ts';
import { defineCheck, violation } from './check.ts';

export const tokenIssued = defineCheck<Exchange>(
  {
    id: 'TOKEN-ISSUED',
    title: 'Issues a token to a valid request',
    clause: '§4.1, §5.1',
    level: 'must',
    reason: "A request with Accept, client_id and the client's cert_client gets status 200 (§4.1).",
  },
  (exchange) =>
    exchange.response.status === 200
      ? []
      : [violation('must', '200 with the access token', describeResponse(exchange.response))],
);

/** Reads a dotted path (`data.access_token`) from a JSON value. */
export function readPath(value: JsonValue | undefined, path: string): JsonValue | undefined {
  return path.split('.').reduce<JsonValue | undefined>((node, part) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    return node[part];
  }, value);
}

function stringFields(value: JsonValue | undefined): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value)
    .filter(([, v]) => typeof v === 'string')
    .map(([k]) => k);
}

export interface TokenFieldInput {
  readonly exchange: Exchange;
  readonly field: string;
}

export const tokenInField = defineCheck<TokenFieldInput>(
  {
    id: 'TOKEN-FIELD',
    title: 'The token response carries the access token at PIX_TOKEN_FIELD',
    clause: '§4.1, §2.3 (not shown)',
    level: 'must',
    reason:
      'The success body "carries the access token" (§4.1); its field name is not shown (§2.3), so the integrator names it in PIX_TOKEN_FIELD.',
  },
  ({ exchange, field }) => {
    const token = readPath(exchange.response.json, field);
    if (typeof token === 'string' && token.trim() !== '') return [];
    const candidates = stringFields(exchange.response.json);
    const hint =
      candidates.length > 0
        ? ` (string fields present: ${candidates.join(', ')}; set PIX_TOKEN_FIELD if one of them is the token)`
        : '';
    return [
      violation('must', `a non-empty string at '${field}'`, `${describeResponse(exchange.response)}${hint}`),
    ];
  },
);

export const TOKEN_REUSE_WITHDRAWALS = 3;

export const tokenReusable = defineCheck<readonly Exchange[]>(
  {
    id: 'TOKEN-REUSE',
    title: `One token authorises ${TOKEN_REUSE_WITHDRAWALS} withdrawals in a row`,
    clause: '§5.3, §5.2',
    level: 'must',
    reason:
      'The client renews its token every 7200 s (§5.3), so a token must serve every request in between, not just one.',
    needs: ['provider', 'payout'],
  },
  (exchanges) =>
    exchanges.flatMap((exchange, i) =>
      exchange.response.status === 200
        ? []
        : [
            violation(
              'must',
              `withdrawal ${i + 1} of ${exchanges.length} with the same token accepted (200)`,
              describeResponse(exchange.response),
            ),
          ],
    ),
);
