/**
 * The integrator fault matrix as data: each fault of examples/integrator (INTEGRATOR_FAULT=<name>) and
 * exactly what pix-certify client must find it as. selftest/slow/client-matrix.test.ts runs each one;
 * selftest/catalogue-audit.test.ts holds every client and handler check to a fault that trips it at
 * its level, without a run. Kept here, not in the example, so the example stays plain Node that
 * integrators read without the suite's check ids.
 */

/** The checks a fault makes FAILED (a `must` check) or WARNING (a `should` check), and no others. */
export interface Band {
  readonly failed?: readonly string[];
  readonly warned?: readonly string[];
  /**
   * Where a reading of the document's silences (a simulator profile) shows the fault otherwise: that
   * reading's column of a `--readings all` run; every other column has the band above.
   */
  readonly readings?: Readonly<Record<string, Omit<Band, 'readings'>>>;
}

export const INTEGRATOR_FAULTS: Readonly<Record<string, Band>> = {
  'no-bearer': { failed: ['CLIENT-WITHDRAW-BEARER'] },
  'no-accept-token': { failed: ['CLIENT-TOKEN-ACCEPT'] },
  'token-client-id-hyphen': { failed: ['CLIENT-TOKEN-CLIENT-ID'] },
  'no-accept': { failed: ['CLIENT-WITHDRAW-ACCEPT'] },
  'no-client-secret': { failed: ['CLIENT-WITHDRAW-CREDENTIALS'] },
  'private-key-cert': { failed: ['CLIENT-TOKEN-CERT-CLIENT'] },
  'cert-not-base64': { failed: ['CLIENT-TOKEN-CERT-CLIENT'] },
  'postbackurl-case': { failed: ['CLIENT-BODY-FIELD-NAMES'] },
  'amount-string': { failed: ['CLIENT-BODY-TYPES'] },
  'check-code-string': { failed: ['CLIENT-BODY-TYPES'] },
  'postback-relative': { failed: ['CLIENT-BODY-POSTBACK'] },
  'body-form': { failed: ['CLIENT-BODY-JSON'] },
  'wrong-path': { failed: ['CLIENT-OPERATIONS'] },
  'no-document': { warned: ['CLIENT-BODY-FIELDS'] },
  'key-type-lowercase': { warned: ['CLIENT-BODY-VALUES'] },
  'http-remote-host': { warned: ['CLIENT-HTTPS'] },
  'token-per-withdrawal': { warned: ['CLIENT-TOKEN-REUSED'] },
  'new-code-after-5xx': { warned: ['CLIENT-UNKNOWN-OUTCOME'] },
  'resend-without-check-code': { warned: ['CLIENT-UNKNOWN-OUTCOME'] },
  'ignore-retry-after': { warned: ['CLIENT-AFTER-429'] },
  'renew-loop': { warned: ['CLIENT-AFTER-401'] },
  'ignore-expires-in': { readings: { 'short-token': { failed: ['CLIENT-TOKEN-RENEWED'] } } },
  'timeout-new-code': {
    warned: ['CLIENT-UNKNOWN-OUTCOME'],
    readings: { 'slow-answers': { warned: ['CLIENT-UNKNOWN-OUTCOME', 'CLIENT-SLOW-ANSWER'] } },
  },
  'processing-as-final': { readings: { 'processing-first': { warned: ['CLIENT-PROCESSING-NOT-FINAL'] } } },
  // The default's 0.52 is never answered: its webhook comes first. Where every webhook does, the handler
  // answers none 2xx, which is HANDLER-VALID-2XX's finding.
  'handler-unknown-id': {
    warned: ['HANDLER-BEFORE-ANSWER-2XX'],
    readings: {
      'webhook-first': { warned: ['HANDLER-VALID-2XX'] },
      'slow-answers': { warned: ['HANDLER-VALID-2XX'] },
    },
  },
  'handler-500': { warned: ['HANDLER-VALID-2XX'] },
  'handler-slow': { warned: ['HANDLER-VALID-2XX'] },
  'handler-500-on-duplicate': { warned: ['HANDLER-DUPLICATE-2XX'] },
  'handler-409-out-of-order': { warned: ['HANDLER-OUT-OF-ORDER-2XX'] },
  'handler-strict-fields': { warned: ['HANDLER-EXTRA-FIELDS-2XX'] },
  'handler-500-on-malformed': { warned: ['HANDLER-MALFORMED-4XX'] },
  'handler-crash-on-malformed': { warned: ['HANDLER-MALFORMED-4XX'] },
};
