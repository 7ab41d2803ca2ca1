/**
 * Responses family (§7 and "Payloads are JSON"): checks every response of the run must pass,
 * whatever the request. Each receives what it judges: the statuses the spec documents for the
 * operation and the validator of the spec's schema come with the exchange.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { describeResponse, type Exchange } from '../evidence/exchange.ts';
import { isJsonContentType } from '../base/json.ts';
import { defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';
import { errorShowsNoInternals } from './leaked-internals.ts';

export interface JudgedResponse {
  readonly exchange: Exchange;
  /** The statuses the spec lists for the exchange's operation (§7). */
  readonly documented: readonly number[];
  /** Statuses a case explicitly tolerates beyond §7 (406 for a refused Accept header). */
  readonly alsoAllowed: readonly number[];
  /** The spec's schema for the operation and status, or undefined when it gives none. */
  readonly validate: ValidateFunction | undefined;
}

export const statusDocumented = defineCheck<JudgedResponse>(
  {
    id: 'RESPONSE-STATUS-DOCUMENTED',
    title: 'Every response status is one the document lists',
    clause: '§7',
    level: 'must',
    reason:
      '§7 lists 200, 400, 401, 403 and 500; an integrator cannot handle a status the document never mentions.',
    remedy:
      'Answer with 200, 400, 401, 403 or 500 only (e.g. 400 instead of 422 for a validation error), or have the document list the other status.',
  },
  ({ exchange, documented, alsoAllowed }) => {
    const { status } = exchange.response;
    if (documented.includes(status) || alsoAllowed.includes(status)) return [];
    return [
      violation(
        'must',
        `one of ${[...documented, ...alsoAllowed].join(', ')}`,
        describeResponse(exchange.response),
      ),
    ];
  },
);

export const jsonPayload = defineCheck<JudgedResponse>(
  {
    id: 'RESPONSE-JSON',
    title: 'Every response body is JSON, with a JSON content type',
    clause: 'payloads, §7',
    level: 'must',
    reason: 'The document says payloads are JSON; errors included, since §7 gives no other error format.',
    remedy:
      'Send every body, errors and gateway pages included, as JSON with Content-Type: application/json; an empty body is not JSON.',
  },
  ({ exchange }) => {
    const { response } = exchange;
    if (response.bodyText.trim() === '') {
      return [
        violation('must', 'a JSON body with a JSON content type', `an empty body (${response.status})`),
      ];
    }
    const problems = [
      ...(isJsonContentType(response.contentType)
        ? []
        : [`content-type '${response.contentType || '(none)'}'`]),
      ...(response.json === undefined ? ['a body that does not parse as JSON'] : []),
    ];
    return problems.length === 0
      ? []
      : [
          violation(
            'must',
            'a JSON body with a JSON content type',
            `${problems.join(' and ')}: ${describeResponse(response)}`,
          ),
        ];
  },
);

export const schemaConforms = defineCheck<JudgedResponse>(
  {
    id: 'RESPONSE-SCHEMA',
    title: 'Response bodies conform to the schemas the spec derives from the document',
    clause: '§2.3, §4.1, §7',
    level: 'must',
    reason:
      'Where the document constrains a response (the token response carries the token, so it is an object) the body must follow; elsewhere the schema is permissive and the shape is only observed.',
    remedy:
      'Return the token response as a JSON object (not an array or a bare string); the evidence names the part of the body that breaks the schema.',
  },
  ({ exchange, validate }) => {
    const { response } = exchange;
    if (response.json === undefined || validate === undefined || validate(response.json)) return [];
    const errors = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`)
      .join('; ');
    return [
      violation(
        'must',
        `a ${response.status} body valid against the spec's schema`,
        `${errors}: ${describeResponse(response)}`,
      ),
    ];
  },
);

export const RESPONSE_CHECKS = [statusDocumented, jsonPayload, schemaConforms] as const;

/** What became of a request: a complete answer, or the way the environment failed to give one. */
export interface AnswerOutcome {
  /** Undefined for a complete HTTP answer; else what went wrong (a lying Content-Length, a reset, a time-out). */
  readonly failure: string | undefined;
}

export const responseComplete = defineCheck<AnswerOutcome>(
  {
    id: 'RESPONSE-COMPLETE',
    title: 'Answers every request with a complete HTTP response in time',
    clause: '§7',
    level: 'must',
    reason:
      'Every request gets one of the statuses of §7; a connection closed mid-answer, a body shorter than its Content-Length, an endless stream of 1xx or no answer within PIX_REQUEST_TIMEOUT_MS gives the client none.',
    remedy:
      'Answer every request with a complete HTTP response (status, headers, the whole body its Content-Length announces) within a few seconds; if the environment is only slow, raise PIX_REQUEST_TIMEOUT_MS.',
  },
  ({ failure }) => (failure === undefined ? [] : [violation('must', 'a complete HTTP response', failure)]),
);

/** Every check a request's answer is held to: declared by every test that sends one. */
export const ANSWER_CHECKS = [...RESPONSE_CHECKS, responseComplete, errorShowsNoInternals] as const;

export const responsesFamily: Family = {
  name: 'every response',
  file: familyFile(import.meta.url),
  checks: () => [...RESPONSE_CHECKS, responseComplete],
  withdrawals: () => 0,
};
