/** The answers of the outcome table's rows that do not accept, the same for namespaces and scenarios. */
import type { OutcomeRow } from './outcomes.ts';
import { type Reply, refuse, serverError } from './reply.ts';

function cents(outcome: OutcomeRow): string {
  return outcome.amount.toFixed(2).slice(-2);
}

/**
 * The answer an outcome gives instead of accepting, and whether the withdrawal is processed (its code
 * taken, its webhooks sent); undefined for an outcome that accepts (200) or never answers.
 */
export function outcomeAnswer(outcome: OutcomeRow): { reply: Reply; processed: boolean } | undefined {
  // A function: the paid rows, nearly every withdrawal, never need the words.
  const ending = (): string => `amounts ending in ,${cents(outcome)}`;
  switch (outcome.name) {
    case 'rate-limited-429':
      return {
        processed: false,
        reply: refuse(
          429,
          outcome.name,
          `Too many requests: the outcome table answers ${ending()} with 429 (sandbox --outcomes); send it again after Retry-After.`,
          { 'retry-after': String(outcome.retryAfterSeconds ?? 1) },
        ),
      };
    case 'unauthorized-401':
      return {
        processed: false,
        reply: refuse(
          401,
          outcome.name,
          `Unauthorized, not processed: the outcome table answers ${ending()} with 401, as to a token no longer valid (sandbox --outcomes); renew the token once and send again, then stop.`,
        ),
      };
    case 'refused-400':
      return {
        processed: false,
        reply: refuse(
          400,
          outcome.name,
          `Refused, not processed: the outcome table refuses ${ending()} (sandbox --outcomes); any amount not listed is paid.`,
        ),
      };
    case 'error-500':
      return {
        processed: false,
        reply: serverError(`Not processed: the outcome table answers ${ending()} with 500.`),
      };
    case 'error-500-paid':
      return {
        processed: true,
        reply: serverError(
          `Paid all the same: the outcome table answers ${ending()} with 500 and pays them.`,
        ),
      };
    default:
      return undefined;
  }
}
