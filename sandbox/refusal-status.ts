/**
 * What a departure earns under a behaviour (a profile, faults on top): refused with a status, answered
 * 500, or served. The validator (departures.ts) finds every departure; this is the only place a
 * profile or a fault changes how one is answered.
 */
import type { Behaviour, CredentialRule } from './behaviour.ts';
import type { Departure } from './departures.ts';

export type Operation = 'token' | 'withdraw';

/** The rule the behaviour applies to a credential header's departure. */
function credentialRule(
  code: Departure['code'],
  behaviour: Behaviour,
  operation: Operation,
): CredentialRule | undefined {
  if (code.startsWith('client-id-'))
    return operation === 'token' ? behaviour.tokenClientId : behaviour.paymentClientId;
  if (code.startsWith('cert-client-')) return behaviour.certClient;
  if (code.startsWith('client-secret-')) return behaviour.clientSecret;
  return undefined;
}

function credentialStatus(
  departure: Departure,
  rule: CredentialRule,
  behaviour: Behaviour,
): number | undefined {
  if (departure.code.endsWith('-missing')) {
    if (rule.missing === 'accept') return undefined;
    return rule.missing === 'server-error' ? 500 : behaviour.credentialRefusal;
  }
  if (rule.wrong === 'accept') return undefined;
  // cert_client is base64 (§2.2): a profile may answer a value that is not as malformed, not as wrong.
  if (departure.code === 'cert-client-not-base64' && behaviour.malformedCert === 'bad-request') return 400;
  return behaviour.credentialRefusal;
}

const refuseOr500 = (
  answer: 'refuse' | 'accept' | 'server-error',
  behaviour: Behaviour,
): number | undefined =>
  answer === 'accept' ? undefined : answer === 'server-error' ? 500 : behaviour.bodyRefusal;

/** The status a departure is answered with under the behaviour; undefined: it is served all the same. */
function statusUnder(departure: Departure, behaviour: Behaviour, operation: Operation): number | undefined {
  const rule = credentialRule(departure.code, behaviour, operation);
  if (rule !== undefined) return credentialStatus(departure, rule, behaviour);
  const field = departure.name as Behaviour['requiredFields'][number];
  switch (departure.code) {
    case 'path-unknown':
      return 404;
    case 'method-not-post':
      return 405;
    case 'accept-missing':
    case 'accept-not-json':
      if (behaviour.acceptHeader === 'ignore') return undefined;
      return behaviour.acceptHeader === 'server-error' ? 500 : 400;
    case 'authorization-missing':
      return behaviour.authorization === 'ignored-when-missing' ? undefined : 401;
    case 'authorization-not-bearer':
      return behaviour.authorization === 'any-scheme' ? undefined : 401;
    case 'token-unknown':
    case 'token-expired':
      return behaviour.authorization === 'any-token' ? undefined : 401;
    case 'body-not-json':
    case 'body-not-object':
      return refuseOr500(behaviour.unparsableBody, behaviour);
    case 'field-type':
      return refuseOr500(behaviour.wrongTypes, behaviour);
    case 'field-missing':
      return behaviour.requiredFields.includes(field) ? behaviour.bodyRefusal : undefined;
    case 'field-case':
      return behaviour.requiredFields.includes(field) || behaviour.misspeltFields === 'refuse'
        ? behaviour.bodyRefusal
        : undefined;
    case 'field-value':
      return behaviour.valueRules ? behaviour.bodyRefusal : undefined;
    case 'postback-not-absolute':
      return behaviour.absoluteCallback ? behaviour.bodyRefusal : undefined;
    case 'code-duplicate':
      return 400;
    default:
      return undefined;
  }
}

/** The first departure the behaviour refuses, and its status; undefined: the request is served. */
export function firstRefusal(
  departures: readonly Departure[],
  behaviour: Behaviour,
  operation: Operation,
): { departure: Departure; status: number } | undefined {
  for (const departure of departures) {
    const status = statusUnder(departure, behaviour, operation);
    if (status !== undefined) return { departure, status };
  }
  return undefined;
}
