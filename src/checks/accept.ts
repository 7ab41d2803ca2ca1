/**
 * Accept family (§4.1, §4.2): the required non-credential headers of the document's tables, left
 * out or set to a value that is not JSON. How the service answers is not shown, so refusal and
 * tolerance both pass; only a server error breaks the document.
 */
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import { type Headers, withHeader, withoutHeader } from '../spec/requests.ts';
import type { OperationId, SpecModel } from '../spec/spec.ts';
import { isServerError } from '../base/status.ts';
import { type Check, defineCheck, violation, type Violation } from './check.ts';
import { perOperationFamily } from './family.ts';
import { needsFor, OPERATION_NAME, OPERATION_PREFIX, slug, VALID_REQUEST_CHECK } from './operation-names.ts';

export interface PlainHeaderCase {
  readonly operation: OperationId;
  readonly header: string;
  /** undefined: the header is left out. */
  readonly value: string | undefined;
  readonly check: Check<Exchange>;
}

/** 406 Not Acceptable is a fair answer to an Accept the service cannot satisfy, though §7 does not list it. */
export const NOT_ACCEPTABLE = 406;

/** What an `accept.<check>` observation records, in a report's words. */
export const ACCEPT_NOTE = 'the status answered: 406 (refused) or 2xx (tolerated) are both allowed';

function judgePlainHeader(exchange: Exchange): Violation[] {
  return isServerError(exchange.response.status)
    ? [violation('must', 'served or refused, not a server error', describeResponse(exchange.response))]
    : [];
}

const VARIANTS = [
  ['MISSING', undefined, (header: string) => `without ${header}`],
  ['NOT-JSON', 'text/plain', (header: string) => `with ${header}: text/plain`],
] as const;

export function plainHeaderCases(spec: SpecModel, operation: OperationId): PlainHeaderCase[] {
  return spec.operations[operation].plainHeaders.flatMap(({ header, clause }) =>
    VARIANTS.map(([suffix, value, describe]): PlainHeaderCase => ({
      operation,
      header,
      value,
      check: defineCheck<Exchange>(
        {
          id: `${OPERATION_PREFIX[operation]}-${slug(header)}-${suffix}`,
          title: `Handles a ${OPERATION_NAME[operation]} ${describe(header)} without a server error`,
          clause,
          level: 'must',
          reason: `${header} is required (${clause}) but the document does not say how its absence is answered: refusal (400/406) and tolerance are both recorded, a 5xx fails.`,
          remedy: `Answer a request ${describe(header)} with a refusal (400 or 406) or serve it as JSON; never let content negotiation end in a server error.`,
          needs: needsFor(operation, false),
          variantOf: VALID_REQUEST_CHECK[operation],
        },
        judgePlainHeader,
      ),
    })),
  );
}

/** Valid headers with the case's header left out or set to a value that is not JSON. */
export function applyPlainHeaderCase(headers: Headers, testCase: PlainHeaderCase): Headers {
  return testCase.value === undefined
    ? withoutHeader(headers, testCase.header)
    : withHeader(headers, testCase.header, testCase.value);
}

export const acceptFamily = perOperationFamily('Accept handling', import.meta.url, plainHeaderCases);
