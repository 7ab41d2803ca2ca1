/**
 * The sandbox's scenarios: two conforming profiles and the faults, each fault a deliberate break of
 * one rule on top of the reference profile. The self-test iterates over SCENARIOS to prove that the
 * suite passes the profiles and catches every fault at its level.
 */
import {
  ANY_VALUE,
  type Behaviour,
  CHECKED,
  IGNORED_WHEN_MISSING,
  SERVER_ERROR_WHEN_MISSING,
  WITHDRAW_FIELD_TYPES,
  type WithdrawField,
} from './behaviour.ts';

interface ScenarioBase {
  readonly name: string;
  readonly description: string;
  /** Suite variables a live run against this scenario needs besides credentials and payee. */
  readonly suiteEnv: Readonly<Record<string, string>>;
  readonly behaviour: Behaviour;
}

export interface ProfileScenario extends ScenarioBase {
  readonly kind: 'profile';
}

export interface FaultScenario extends ScenarioBase {
  readonly kind: 'fault';
  /** The verdict the suite must give: FAILED for a broken rule, WARNING where the document is silent. */
  readonly level: 'FAILED' | 'WARNING';
}

export type Scenario = ProfileScenario | FaultScenario;

const ALL_FIELDS_BUT_CHECK_CODE = (Object.keys(WITHDRAW_FIELD_TYPES) as WithdrawField[]).filter(
  (field) => field !== 'check_code',
);

/** The document read strictly wherever it is silent. */
const REFERENCE: Behaviour = {
  credentialRefusal: 403,
  acceptHeader: 'enforce',
  tokenClientId: CHECKED,
  certClient: CHECKED,
  tokenReply: 'access_token',
  tokenUses: 'unlimited',
  paymentClientId: CHECKED,
  clientSecret: CHECKED,
  authorization: 'bearer',
  unparsableBody: 'refuse',
  wrongTypes: 'refuse',
  bodyRefusal: 400,
  requiredFields: ALL_FIELDS_BUT_CHECK_CODE,
  valueRules: true,
  checkCodeDefault: true,
  duplicateCheck: 'as-asked',
  acceptedStatus: 200,
  acceptedReply: 'reference',
  errorsAsText: false,
  webhookPayload: 'reference',
  webhookSigned: true,
  webhookMethod: 'POST',
  webhookTarget: 'exact',
  webhookCopies: 1,
  webhookOnRefused: false,
};

/** Also conforming: the silent parts read the other way a real provider might. */
const LENIENT: Behaviour = {
  ...REFERENCE,
  credentialRefusal: 401,
  acceptHeader: 'ignore',
  tokenReply: 'token',
  requiredFields: ['amount', 'key_pix', 'PostBackUrl'],
  checkCodeDefault: false,
  acceptedReply: 'lenient',
  webhookPayload: 'lenient',
  webhookSigned: false,
};

function fault(
  name: string,
  level: FaultScenario['level'],
  description: string,
  overrides: Partial<Behaviour>,
): FaultScenario {
  return { kind: 'fault', name, level, description, suiteEnv: {}, behaviour: { ...REFERENCE, ...overrides } };
}

const FAULTS: readonly FaultScenario[] = [
  // §4.1: a valid token request is answered 200 with the token.
  fault('token-refuses-valid', 'FAILED', 'answers every valid token request with 401', {
    tokenReply: 'refused',
  }),
  // Preamble: payloads are JSON.
  fault('token-not-json', 'FAILED', 'returns the token as text/plain access_token=<token>', {
    tokenReply: 'text',
  }),
  // §4.1: the success body carries the access token.
  fault('token-missing-field', 'FAILED', 'issues the token but answers {}', { tokenReply: 'empty-object' }),
  // §4.1 and the preamble: the body is a JSON object carrying the token, not a bare array.
  fault('token-body-not-object', 'FAILED', 'answers ["<token>"]', { tokenReply: 'array' }),
  // §5.3: a token serves every request until it is renewed after 7200 s.
  fault('token-single-use', 'FAILED', 'a token stops working after the first withdrawal it authorises', {
    tokenUses: 'once',
  }),
  // §4.1, §5.4: client_id is required on the token request.
  fault('token-ignores-client-id', 'FAILED', 'issues a token without client_id', {
    tokenClientId: IGNORED_WHEN_MISSING,
  }),
  // §5.4: an invalid client_id is refused.
  fault('token-any-client-id', 'FAILED', 'issues a token to an unknown client_id when the cert is right', {
    tokenClientId: ANY_VALUE,
  }),
  // §4.1, §5.4: cert_client is required on the token request.
  fault('token-ignores-cert', 'FAILED', 'issues a token without cert_client', {
    certClient: IGNORED_WHEN_MISSING,
  }),
  // §5.4: a cert_client that is not the client's, or not base64, is refused.
  fault('token-any-cert', 'FAILED', 'issues a token for any cert_client value, base64 or not', {
    certClient: ANY_VALUE,
  }),
  // §5.4: a missing key is refused with 403, never a server error.
  fault('token-5xx-on-missing-credential', 'FAILED', 'answers 500 when client_id or cert_client is missing', {
    tokenClientId: SERVER_ERROR_WHEN_MISSING,
    certClient: SERVER_ERROR_WHEN_MISSING,
  }),
  // §4.2, §5.4: client_id is required on the withdrawal.
  fault('payment-ignores-client-id', 'FAILED', 'accepts a withdrawal without client_id', {
    paymentClientId: IGNORED_WHEN_MISSING,
  }),
  // §5.4: an invalid client_id is refused.
  fault('payment-any-client-id', 'FAILED', 'accepts a withdrawal with an unknown client_id', {
    paymentClientId: ANY_VALUE,
  }),
  // §4.2, §5.4: client_secret is required on the withdrawal.
  fault('payment-ignores-secret', 'FAILED', 'accepts a withdrawal without client_secret', {
    clientSecret: IGNORED_WHEN_MISSING,
  }),
  // §5.4: a wrong client_secret is refused.
  fault('payment-any-secret', 'FAILED', 'accepts a withdrawal with a wrong client_secret', {
    clientSecret: ANY_VALUE,
  }),
  // §4.2, §5.2: Authorization is required.
  fault('payment-ignores-authorization', 'FAILED', 'accepts a withdrawal without Authorization', {
    authorization: 'ignored-when-missing',
  }),
  // §5.2: the token is sent as a Bearer credential.
  fault('payment-any-scheme', 'FAILED', 'accepts the token under any scheme (Basic, Token, ...)', {
    authorization: 'any-scheme',
  }),
  // §5.2: only a token the service issued authorises a withdrawal.
  fault('payment-any-token', 'FAILED', 'accepts any Bearer value', { authorization: 'any-token' }),
  // §4.2, §7: an accepted withdrawal is answered 200.
  fault('payment-status-201', 'FAILED', 'answers an accepted withdrawal with 201', { acceptedStatus: 201 }),
  // Preamble: payloads are JSON.
  fault('payment-not-json', 'FAILED', 'answers an accepted withdrawal with a text/plain body', {
    acceptedReply: 'text',
  }),
  // Preamble: payloads are JSON, error bodies included.
  fault('errors-not-json', 'FAILED', 'answers every error with a text/plain body', { errorsAsText: true }),
  // §7: a bad request is answered 400; 422 is not among the statuses the document lists.
  fault('status-422', 'FAILED', 'answers body validation errors with 422 instead of 400', {
    bodyRefusal: 422,
  }),
  // §2.1, §7: a field of the wrong JSON type makes a bad request.
  fault('body-no-type-check', 'FAILED', 'accepts fields of the wrong JSON type', { wrongTypes: 'accept' }),
  // §7: a bad body is a bad request (400), never a server error.
  fault('body-5xx', 'FAILED', 'answers 500 to a body that is not a JSON object or has a wrong-typed field', {
    unparsableBody: 'server-error',
    wrongTypes: 'server-error',
  }),
  // §4.2: the body is the withdraw request of §2.1, a JSON object.
  fault('body-not-json-accepted', 'FAILED', 'accepts a body that is not JSON, empty or an array', {
    unparsableBody: 'accept',
  }),
  // §2.1: with check_code true the service refuses a repeated code.
  fault('check-code-ignored', 'FAILED', 'accepts a repeated code even with check_code true', {
    duplicateCheck: 'never',
  }),
  // §2.1: with check_code false the code is not checked.
  fault('check-code-always', 'FAILED', 'refuses a repeated code even with check_code false', {
    duplicateCheck: 'always',
  }),
  // §7: a request is refused or served, never answered with a server error for a header it lacks.
  fault('accept-5xx', 'FAILED', 'answers 500 when Accept/accept is missing or not application/json', {
    acceptHeader: 'server-error',
  }),
  // §4.2, §6: a webhook follows every accepted withdrawal.
  fault('webhook-none', 'FAILED', 'never posts a webhook', { webhookCopies: 0 }),
  // §4.2, §6: the webhook goes to the address given in PostBackUrl.
  fault('webhook-wrong-path', 'FAILED', "posts the webhook to the PostBackUrl's origin + /webhook", {
    webhookTarget: 'origin-webhook',
  }),
  // §6: the webhook is sent by POST.
  fault('webhook-get', 'FAILED', 'sends the webhook with GET and no body', { webhookMethod: 'GET' }),
  // Preamble, §6: the webhook payload is JSON.
  fault('webhook-not-json', 'FAILED', 'sends the webhook body status=PAID as text/plain', {
    webhookPayload: 'text',
  }),
  // §2.1, §8 (silent): nonsensical values are better refused.
  fault(
    'lax-body',
    'WARNING',
    'accepts missing fields, amounts <= 0 or with 3 decimals, any PostBackUrl, key_type, name',
    {
      requiredFields: [],
      valueRules: false,
    },
  ),
  // §6 (silent): a webhook should say which withdrawal it reports.
  fault(
    'webhook-anonymous',
    'WARNING',
    'posts {"event":"withdrawal.paid","status":"PAID"} with no code or id',
    {
      webhookPayload: 'anonymous',
    },
  ),
  // §4.2 (silent): the webhook follows acceptance, so none should follow a refusal.
  fault(
    'webhook-on-refused',
    'WARNING',
    'also posts a webhook for refused withdrawals with a loopback PostBackUrl',
    {
      webhookOnRefused: true,
    },
  ),
  // §6 (silent): one withdrawal, one delivery while the receiver acknowledges.
  fault('webhook-duplicate', 'WARNING', 'posts every webhook twice', { webhookCopies: 2 }),
];

export const SCENARIOS: readonly Scenario[] = [
  {
    kind: 'profile',
    name: 'reference',
    description: 'the document read strictly where it is silent (the default without /s/<scenario>)',
    suiteEnv: {},
    behaviour: REFERENCE,
  },
  {
    kind: 'profile',
    name: 'lenient',
    description: '401 for credentials, Accept not enforced, {token, expiresIn}, few required fields',
    suiteEnv: { PIX_TOKEN_FIELD: 'token' },
    behaviour: LENIENT,
  },
  ...FAULTS,
];

export const DEFAULT_SCENARIO = 'reference';

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.name === name);
}
