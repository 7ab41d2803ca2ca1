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
  'handler-500': { warned: ['HANDLER-VALID-2XX'] },
  'handler-slow': { warned: ['HANDLER-VALID-2XX'] },
  'handler-500-on-duplicate': { warned: ['HANDLER-DUPLICATE-2XX'] },
  'handler-409-out-of-order': { warned: ['HANDLER-OUT-OF-ORDER-2XX'] },
  'handler-strict-fields': { warned: ['HANDLER-EXTRA-FIELDS-2XX'] },
  'handler-500-on-malformed': { warned: ['HANDLER-MALFORMED-4XX'] },
  'handler-crash-on-malformed': { warned: ['HANDLER-MALFORMED-4XX'] },
};

/**
 * Checks no fault of the example can trip on this machine, each with the self-test that shows it
 * failing instead and what the simulator lacks for a fault of its own.
 */
export const PROVEN_ELSEWHERE: Readonly<Record<string, string>> = {
  'CLIENT-TOKEN-RENEWED':
    "selftest/client-checks.test.ts (a token used 7201 s after it was issued; an expired token's departure): a namespace's tokens live 7200 s by the simulator's own clock, so a client that never renews is only caught two hours into a run, until a namespace can be given a shorter token life",
};
