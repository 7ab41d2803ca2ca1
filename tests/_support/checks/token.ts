/** Token family: the token operation's success path and the token's life (§4.1, §5.1, §5.3). */
import { describeResponse, type Exchange } from '../exchange.ts';
import { readPath, stringFields } from '../json.ts';
import { defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';

export const tokenIssued = defineCheck<Exchange>(
  {
    id: 'TOKEN-ISSUED',
    title: 'Issues a token to a valid request',
    clause: '§4.1, §5.1',
    level: 'must',
    reason: "A request with Accept, client_id and the client's cert_client gets status 200 (§4.1).",
    remedy:
      'Answer POST /auth/token with 200 and the token when Accept, client_id and the registered cert_client are sent; check that the suite was given the credentials of a client enabled in this environment.',
  },
  (exchange) =>
    exchange.response.status === 200
      ? []
      : [violation('must', '200 with the access token', describeResponse(exchange.response))],
);

export interface TokenFieldInput {
  readonly exchange: Exchange;
  /** Where the integrator says the token is (PIX_TOKEN_FIELD). */
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
    remedy:
      'Return the token as a non-empty string in a JSON object; if it is already there under another name, set PIX_TOKEN_FIELD to that field or dotted path.',
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
    remedy:
      'Keep an issued token valid for every request until the client renews it (7200 s), instead of spending it on its first use.',
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

export const tokenFamily: Family = {
  name: 'token',
  file: familyFile(import.meta.url),
  checks: () => [tokenIssued, tokenInField, tokenReusable],
  withdrawals: () => TOKEN_REUSE_WITHDRAWALS,
};
