/**
 * How a refusal is judged. The document names 403 for a key "not informed or invalid" (§5.4) and
 * also lists 400 and 401 (§7); where it is ambiguous the suite warns and never fails.
 * Anything else (every 2xx, every 5xx, any status outside §7) breaks the document.
 */
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import { isServerError, isSuccess } from '../base/status.ts';
import type { Violation } from './check.ts';

export interface RefusalRule {
  readonly name: string;
  readonly passed: readonly number[];
  readonly warning: readonly number[];
}

export const REFUSAL_RULES = {
  credentialMissing: { name: 'credential header missing', passed: [403], warning: [400, 401] },
  credentialWrong: { name: 'credential well-formed but wrong', passed: [403], warning: [400, 401] },
  credentialMalformed: { name: 'credential malformed', passed: [400, 403], warning: [401] },
  bearer: { name: 'bearer token missing, not Bearer, forged or random', passed: [401, 403], warning: [400] },
  invalidBody: { name: 'body breaks the types of §2.1', passed: [400], warning: [401, 403] },
  invalidKey: { name: 'Pix key field breaks the types of §2.1', passed: [400, 403], warning: [401] },
} as const satisfies Record<string, RefusalRule>;

const list = (statuses: readonly number[]): string => statuses.join(' or ');

/** Where a refusal rule only warns: the statuses the document lists but does not name here. */
export const ambiguityOf = (rule: RefusalRule): string => `should for ${list(rule.warning)}`;

export function judgeRefusal(rule: RefusalRule, exchange: Exchange): Violation[] {
  const { status } = exchange.response;
  if (rule.passed.includes(status)) return [];
  const expected = `refused with ${list(rule.passed)} (${rule.name})`;
  const actual = describeResponse(exchange.response);
  if (rule.warning.includes(status)) {
    return [
      {
        verdict: 'WARNING',
        expected,
        actual: `${actual} — also a refusal the document lists (§7), but not the one it names here`,
      },
    ];
  }
  return [{ verdict: 'FAILED', expected, actual: isSuccess(status) ? `accepted: ${actual}` : actual }];
}

/**
 * Where the document is silent the suite does not invent a rule: acceptance or a server error is
 * worth a warning, any refusal passes.
 */
export function judgeSilentRefusal(reason: string, exchange: Exchange): Violation[] {
  const { status } = exchange.response;
  const expected = `refused (${reason}); the document does not say, so this is only a warning`;
  if (isSuccess(status))
    return [{ verdict: 'WARNING', expected, actual: `accepted: ${describeResponse(exchange.response)}` }];
  if (isServerError(status))
    return [{ verdict: 'WARNING', expected, actual: `server error: ${describeResponse(exchange.response)}` }];
  return [];
}
