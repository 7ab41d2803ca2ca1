/** Checks every response of the run must pass, whatever the request (§7 and "Payloads are JSON"). */
import { describeResponse, type Exchange } from '../exchange.ts';
import { loadSpec } from '../spec.ts';
import { defineCheck, violation } from './check.ts';

export interface JudgedResponse {
  readonly exchange: Exchange;
  /** Statuses a case explicitly tolerates beyond §7 (406 for a refused Accept header). */
  readonly alsoAllowed: readonly number[];
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function isJsonContentType(contentType: string): boolean {
  return JSON_MEDIA_TYPE.test(contentType);
}

export const statusDocumented = defineCheck<JudgedResponse>(
  {
    id: 'RESPONSE-STATUS-DOCUMENTED',
    title: 'Every response status is one the document lists',
    clause: '§7',
    level: 'must',
    reason:
      '§7 lists 200, 400, 401, 403 and 500; an integrator cannot handle a status the document never mentions.',
  },
  ({ exchange, alsoAllowed }) => {
    const documented = loadSpec().operations[exchange.operation].statuses;
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
  },
  ({ exchange }) => {
    const { response } = exchange;
    if (response.json === undefined) return [];
    const validate = loadSpec().responseValidator(exchange.operation, response.status);
    if (validate === undefined || validate(response.json)) return [];
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

export const responseChecks = [statusDocumented, jsonPayload, schemaConforms] as const;
