/**
 * Client family (§2.1, §4.1, §4.2, §5, §7): what an integrator's own client sends, judged from the
 * simulator's journal (pix-certify client). Header and body checks read the departures the simulator
 * recorded, one check per way of departing, so that one mistake is one finding; the checks of
 * behaviour (token use, after a 401, a 429 or an unknown outcome) read the order of the requests.
 */
import type { DepartureCode, Journal, JournalRequest, OutcomeName, OutcomeRow } from '../evidence/journal.ts';
import { defineCheck, violation, type Check, type Violation } from './check.ts';
import { familyFile, type Family } from './family.ts';
import type { CheckDefinition } from './vocabulary.ts';

/** What a client run gives the checks: the namespace's journal and the simulator's outcome table. */
export interface ClientRun {
  readonly journal: Journal;
  readonly outcomes: readonly OutcomeRow[];
}

/** A check of a client run: unjudgeable, with what would exercise it, when nothing in the run did. */
export type ClientCheck = Check<ClientRun>;

type Definition = Omit<CheckDefinition, 'needs'>;

export function defineClientCheck(
  definition: Definition,
  unexercised: (run: ClientRun) => string | undefined,
  judge: (run: ClientRun) => Violation[],
): ClientCheck {
  return defineCheck(definition, judge, unexercised);
}

/** §8 and §5.3: the client requests a new token every 7200 s. */
export const TOKEN_RENEWAL_SECONDS = 7200;
/** A request this close to the end of a Retry-After wait is not called early: clocks round to the ms. */
const RETRY_AFTER_SLACK_MS = 5;
/** 401 answers in a row, each followed by a renewal, that make a loop rather than a renewal. */
const RENEWAL_LOOP = 3;

/** The client stopped waiting before a decided answer was written: it never read that status (CLIENT-SLOW-ANSWER's). */
const unread = (r: JournalRequest): boolean =>
  r.answer.status !== null && r.answer.clientClosedAfterMs !== undefined;

const refusal = (status: number | null): boolean => status !== null && status >= 400 && status < 500;

export const describeRequest = (r: JournalRequest): string =>
  `request #${r.seq} ${r.method} ${r.path} at ${r.at}`;

/** The amount of an outcome of the simulator's table, as a sentence's words. */
export function outcomeAmount(run: ClientRun, name: OutcomeName): string {
  const row = run.outcomes.find((o) => o.name === name);
  return row === undefined ? `the ${name} outcome` : `amount ${row.amount.toFixed(2)} (${name})`;
}

const amountOf = (r: JournalRequest): unknown =>
  typeof r.body.value === 'object' && r.body.value !== null
    ? (r.body.value as Record<string, unknown>).amount
    : undefined;

/**
 * What would exercise a check: `lead` a withdrawal of one of these outcomes' amounts; or, when the
 * client sent one and the simulator refused it first for a departure, that refusal, which is what to fix.
 */
export function exercisedBy(run: ClientRun, names: readonly OutcomeName[], lead: string): string {
  const amounts = run.outcomes.filter((o) => names.includes(o.name)).map((o) => o.amount);
  const refused = ofOperation(run, 'withdraw').find(
    (r) =>
      amounts.includes(amountOf(r) as number) &&
      r.outcome === undefined &&
      r.departures.some((d) => d.level !== 'observe'),
  );
  const departure = refused?.departures.find((d) => d.level !== 'observe');
  if (refused === undefined || departure === undefined)
    return `${lead} ${names.map((name) => outcomeAmount(run, name)).join(' or ')} would exercise it`;
  return `${describeRequest(refused)} sent amount ${String(amountOf(refused))}, which would exercise it, but was answered ${refused.answer.status ?? 'nothing'} first (${departure.message}): once that is fixed, it exercises this check`;
}

/**
 * The withdrawal's code as its body gave it: a request refused before the simulator read it (a rate
 * limit's 429) journals no `code`, yet is a resend of the same one.
 */
const codeOf = (r: JournalRequest): string | undefined => {
  const body = r.body.value;
  const code = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).code : undefined;
  return typeof code === 'string' ? code : r.code;
};

const ofOperation = (run: ClientRun, operation: JournalRequest['operation']): JournalRequest[] =>
  run.journal.requests.filter((r) => r.operation === operation);

const NO_TOKEN_REQUEST =
  'no token request (POST <PIX_BASE_URL>/auth/token) reached the simulator: the command must request a token with PIX_CLIENT_ID and PIX_CERT_CLIENT';
const NO_WITHDRAWAL =
  'no withdrawal (POST <PIX_BASE_URL>/pix/payment) reached the simulator: the command must make at least one, with PIX_BASE_URL and the credentials it was given';
const NO_REQUEST = 'no request reached the simulator: the command must call PIX_BASE_URL';

const needsToken = (run: ClientRun): string | undefined =>
  ofOperation(run, 'token').length > 0 ? undefined : NO_TOKEN_REQUEST;
const needsWithdrawal = (run: ClientRun): string | undefined =>
  ofOperation(run, 'withdraw').length > 0 ? undefined : NO_WITHDRAWAL;
const needsRequest = (run: ClientRun): string | undefined =>
  run.journal.requests.length > 0 ? undefined : NO_REQUEST;

type Departure = JournalRequest['departures'][number];

/** The requests of the operation (or any) that departed in one of these ways, with each such departure. */
const departuresOf = (
  run: ClientRun,
  operation: JournalRequest['operation'] | 'any',
  codes: readonly DepartureCode[],
): { request: JournalRequest; departure: Departure }[] =>
  run.journal.requests
    .filter((r) => operation === 'any' || r.operation === operation)
    .flatMap((request) =>
      request.departures.filter((d) => codes.includes(d.code)).map((departure) => ({ request, departure })),
    );

/** A departure as a finding tells it: the request, then the simulator's teaching line. */
const departureLine = ({ request, departure }: { request: JournalRequest; departure: Departure }): string =>
  `${describeRequest(request)}: ${departure.message}`;

/**
 * A check of the departures the simulator recorded: each request of the operation (or any) that
 * departed in one of these ways is a violation, its message the simulator's teaching line.
 */
function departureCheck(
  definition: Definition,
  operation: JournalRequest['operation'] | 'any',
  codes: readonly DepartureCode[],
  expected: string,
): ClientCheck {
  const { level } = definition;
  return defineClientCheck(
    definition,
    operation === 'token' ? needsToken : operation === 'withdraw' ? needsWithdrawal : needsRequest,
    (run) =>
      departuresOf(run, operation, codes).map((found) => violation(level, expected, departureLine(found))),
  );
}

/** Withdrawals whose body passed the simulator's limit (answered 413, only its start read), with that limit. */
const overLimit = (run: ClientRun): { request: JournalRequest; limitBytes: number }[] =>
  ofOperation(run, 'withdraw').flatMap((request) => {
    const { limitBytes } = request.body;
    return limitBytes === undefined ? [] : [{ request, limitBytes }];
  });

/** Why a body left unread leaves a check of the body's fields unjudged, or undefined when every body was read. */
function unreadBodies(run: ClientRun): string | undefined {
  const [first, ...more] = overLimit(run);
  if (first === undefined) return undefined;
  const { request, limitBytes } = first;
  const others = more.length === 0 ? '' : ` (and ${more.length} more withdrawals)`;
  return `${describeRequest(request)}${others} sent a body of ${request.body.bytes} bytes, past the simulator's limit of ${limitBytes}: it was answered 413 with only its start read, so its fields were never judged. The document shows no limit, but a provider refuses a body that large too: send the fields of §2.1 alone and this check judges them`;
}

/**
 * A check of the withdrawal body's departures: a body the simulator did not read whole leaves it
 * unjudged, never PASSED, unless a body it read already departed.
 */
function bodyCheck(definition: Definition, codes: readonly DepartureCode[], expected: string): ClientCheck {
  const { judge, unjudgeable } = departureCheck(definition, 'withdraw', codes, expected);
  return defineClientCheck(
    definition,
    (run) => unjudgeable(run) ?? (judge(run).length > 0 ? undefined : unreadBodies(run)),
    judge,
  );
}

export const clientOperations = defineClientCheck(
  {
    id: 'CLIENT-OPERATIONS',
    title: 'Calls the two operations with POST at their paths',
    clause: '§4.1, §4.2',
    level: 'must',
    reason:
      'The document names the operations POST {base_url}/auth/token and POST {base_url}/pix/payment (§4.1, §4.2): another method at their paths, or a POST elsewhere, calls no operation (FAILED). It names no other path and forbids none, so another method elsewhere (a HEAD / readiness probe) only warns: a provider may refuse it, count it against a rate limit or log it as an error (our reading).',
    remedy:
      'Send POST to PIX_BASE_URL followed by /auth/token or /pix/payment exactly; leave out readiness probes of the base URL (HEAD /, GET /health), which the document does not name.',
  },
  needsRequest,
  (run) =>
    departuresOf(run, 'any', ['method-not-post', 'path-unknown']).map((found) =>
      found.departure.code === 'path-unknown' && found.request.method !== 'POST'
        ? violation('should', 'no request to a path the document does not name', departureLine(found))
        : violation('must', 'POST /auth/token or POST /pix/payment', departureLine(found)),
    ),
);

export const clientTokenAccept = departureCheck(
  {
    id: 'CLIENT-TOKEN-ACCEPT',
    title: 'Sends Accept: application/json on the token request',
    clause: '§4.1',
    level: 'must',
    reason: "The token request's Accept header is required, with the value application/json (§4.1).",
    remedy: 'Add the header Accept: application/json to POST /auth/token.',
  },
  'token',
  ['accept-missing', 'accept-not-json'],
  'Accept: application/json',
);

export const clientTokenClientId = departureCheck(
  {
    id: 'CLIENT-TOKEN-CLIENT-ID',
    title: 'Sends its client_id on the token request',
    clause: '§4.1, §5.1',
    level: 'must',
    reason:
      'The token request carries the client_id header, required (§4.1), issued in the client dashboard (§2.2).',
    remedy: 'Send the header client_id with the value of PIX_CLIENT_ID, spelt exactly so.',
  },
  'token',
  ['client-id-missing', 'client-id-wrong'],
  'client_id: <PIX_CLIENT_ID>',
);

export const clientTokenCertClient = departureCheck(
  {
    id: 'CLIENT-TOKEN-CERT-CLIENT',
    title: 'Sends cert_client, the base64 of its certificate public key, on the token request',
    clause: '§4.1, §2.2, §5.1',
    level: 'must',
    reason:
      'cert_client is required and is "the base64 encoding of the client certificate public key" (§4.1, §2.2): never a private key, never the PEM as text.',
    remedy:
      'Send cert_client: the base64 of the public key PEM (PIX_CERT_CLIENT, or base64 of the file PIX_CERT_FILE names); never send a private key.',
  },
  'token',
  ['cert-client-missing', 'cert-client-not-base64', 'cert-client-private-key', 'cert-client-wrong'],
  'cert_client: base64 of the public key (<PIX_CERT_CLIENT>)',
);

export const clientWithdrawCredentials = departureCheck(
  {
    id: 'CLIENT-WITHDRAW-CREDENTIALS',
    title: 'Sends client_id and client_secret on the withdrawal',
    clause: '§4.2, §5.2',
    level: 'must',
    reason:
      'The withdrawal requires the client_id and client_secret headers (§4.2), sent with the token (§5.2).',
    remedy:
      'Send the headers client_id (PIX_CLIENT_ID) and client_secret (PIX_CLIENT_SECRET) on every POST /pix/payment.',
  },
  'withdraw',
  ['client-id-missing', 'client-id-wrong', 'client-secret-missing', 'client-secret-wrong'],
  'client_id: <PIX_CLIENT_ID> and client_secret: <PIX_CLIENT_SECRET>',
);

export const clientWithdrawAccept = departureCheck(
  {
    id: 'CLIENT-WITHDRAW-ACCEPT',
    title: 'Sends accept: application/json on the withdrawal',
    clause: '§4.2',
    level: 'must',
    reason: "The withdrawal's accept header is required, with the value application/json (§4.2).",
    remedy: 'Add the header Accept: application/json to POST /pix/payment.',
  },
  'withdraw',
  ['accept-missing', 'accept-not-json'],
  'accept: application/json',
);

export const clientWithdrawBearer = departureCheck(
  {
    id: 'CLIENT-WITHDRAW-BEARER',
    title: 'Sends Authorization: Bearer <token> with a token the token operation issued',
    clause: '§4.2, §5.2',
    level: 'must',
    reason:
      'The withdrawal requires "Authorization: Bearer <ACCESS_TOKEN>", the token the create-token operation produced (§4.2, §5.2).',
    remedy:
      'Send Authorization: Bearer followed by a space and the access_token of the token answer, on every POST /pix/payment.',
  },
  'withdraw',
  ['authorization-missing', 'authorization-not-bearer', 'token-unknown'],
  'Authorization: Bearer <a token issued by POST /auth/token>',
);

export const clientBodyJson = bodyCheck(
  {
    id: 'CLIENT-BODY-JSON',
    title: 'Sends the withdrawal body as a JSON object',
    clause: '§4.2, §2.1',
    level: 'must',
    reason: 'The request body is "the withdraw request of section 2.1, JSON object" (§4.2).',
    remedy: 'Send JSON.stringify of an object with the fields of §2.1, with Content-Type: application/json.',
  },
  ['body-not-json', 'body-not-object'],
  'a JSON object',
);

export const clientBodyFieldNames = bodyCheck(
  {
    id: 'CLIENT-BODY-FIELD-NAMES',
    title: "Spells the body's field names exactly as §2.1 does (PostBackUrl, key_pix, check_code…)",
    clause: '§2.1',
    level: 'must',
    reason: '"Field names are case-sensitive; the callback field is written PostBackUrl" (§2.1).',
    remedy:
      'Use the names amount, code, name, key_type, document, key_pix, PostBackUrl and check_code exactly as written.',
  },
  ['field-case'],
  'the field names of §2.1, case included',
);

export const clientBodyTypes = bodyCheck(
  {
    id: 'CLIENT-BODY-TYPES',
    title: 'Sends amount as a number, check_code as a boolean and the other fields as strings',
    clause: '§2.1',
    level: 'must',
    reason: '§2.1 gives each field its type: amount a number, check_code a boolean, the others strings.',
    remedy:
      'Send amount as a JSON number (12.5, not "12.50"), check_code as true or false (not "true"), and the other fields as strings.',
  },
  ['field-type'],
  'amount a number, check_code a boolean, the other fields strings',
);

export const clientBodyPostBack = bodyCheck(
  {
    id: 'CLIENT-BODY-POSTBACK',
    title: 'Gives PostBackUrl as an absolute URL the webhook can be posted to',
    clause: '§2.1, §6',
    level: 'must',
    reason:
      'PostBackUrl is the "address that receives the webhook" (§2.1, §6): a path or a relative URL is no address the service can post to.',
    remedy:
      'Send PostBackUrl as an absolute http(s) URL of the webhook handler, e.g. https://app.example/pix/webhook.',
  },
  ['postback-not-absolute'],
  'an absolute http(s) URL',
);

export const clientBodyFields = bodyCheck(
  {
    id: 'CLIENT-BODY-FIELDS',
    title: 'Sends every field of §2.1',
    clause: '§2.1 (required: not shown)',
    level: 'should',
    reason:
      'Which fields are required is not shown (§2.1); a body without one of the eight fields may be refused by a provider (our reading).',
    remedy:
      'Send all eight fields of §2.1: amount, code, name, key_type, document, key_pix, PostBackUrl and check_code.',
  },
  ['field-missing'],
  'the eight fields of §2.1',
);

export const clientBodyValues = bodyCheck(
  {
    id: 'CLIENT-BODY-VALUES',
    title: 'Sends plausible values: a positive amount with two decimals, a known key_type, a bounded name',
    clause: '§2.1 (formats: not shown)',
    level: 'should',
    reason:
      'Allowed values and formats are not shown (§2.1); values no payout system takes (a negative amount, three decimals, an unknown key_type) will be refused (our reading).',
    remedy:
      'Send a positive amount with at most two decimals, a key_type of the Pix key kinds (CPF, CNPJ, EMAIL, PHONE, EVP) and a name of at most 140 characters.',
  },
  ['field-value'],
  'values a payout system takes',
);

export const clientHttps = departureCheck(
  {
    id: 'CLIENT-HTTPS',
    title: 'Sends credentials over https outside loopback',
    clause: '§5 (transport: not shown)',
    level: 'should',
    reason:
      'The document does not name the transport, but client_secret, cert_client and the token sent in clear over a network can be read by anyone on the path (our reading).',
    remedy: 'Use an https:// PIX_BASE_URL for anything but a service on this machine.',
  },
  'any',
  ['credentials-over-http'],
  'https outside loopback',
);

/** Withdrawals that presented a token the simulator issued, with its id. */
function withIssuedToken(run: ClientRun): { request: JournalRequest; tokenId: string }[] {
  return ofOperation(run, 'withdraw').flatMap((request) => {
    const tokenId = request.credentials.tokenId;
    return tokenId === undefined ? [] : [{ request, tokenId }];
  });
}

/** The withdrawals (by code; a request without one counts alone) that carried an issued token. */
const codesWithToken = (run: ClientRun): Set<string> =>
  new Set(withIssuedToken(run).map(({ request }) => codeOf(request) ?? `#${request.seq}`));

export const clientTokenReused = defineClientCheck(
  {
    id: 'CLIENT-TOKEN-REUSED',
    title: 'Uses one token for many withdrawals, not a new token before each',
    clause: '§5.3, §8',
    level: 'should',
    reason:
      'The client "requests a new token every 7200 seconds" (§5.3): a token serves the withdrawals of that interval, and a token request before each withdrawal doubles the calls and may be rate limited (our reading).',
    remedy:
      'Keep the token and reuse it until it is about to reach 7200 s (or a 401 says it is no longer valid); request a new one only then.',
  },
  (run) =>
    codesWithToken(run).size >= 2
      ? undefined
      : 'fewer than two withdrawals carried an issued token: a second withdrawal would exercise it',
  (run) => {
    const tokens = new Set(withIssuedToken(run).map((u) => u.tokenId));
    const codes = codesWithToken(run);
    // A resend may reuse its first try's token (after a 429): what counts is a token per withdrawal made.
    return tokens.size >= codes.size
      ? [
          violation(
            'should',
            'one token for the withdrawals of its 7200 s',
            `${codes.size} withdrawals, ${tokens.size} tokens (${[...tokens].join(', ')}): a token of its own for each`,
          ),
        ]
      : [];
  },
);

/** The life a token was given: what its answer stated (expires_in), never more than 7200 s (§5.3). */
const lifetimeOf = (stated: number): number => Math.min(stated, TOKEN_RENEWAL_SECONDS);

export const clientTokenRenewed = defineClientCheck(
  {
    id: 'CLIENT-TOKEN-RENEWED',
    title: 'Renews its token within 7200 s, or sooner when the token answer says so',
    clause: '§5.3, §8',
    level: 'must',
    reason:
      '"The client requests a new token every 7200 seconds" (§5.3, §8): a token older than that, or than the expires_in its answer stated, is not to be used.',
    remedy:
      'Record when each token was issued and the expires_in it came with; request a new one before the shorter of that and 7200 s has passed (a little earlier, to cover clock skew).',
  },
  (run) =>
    withIssuedToken(run).length > 0
      ? undefined
      : NO_WITHDRAWAL.replace('at least one', 'at least one with a token'),
  (run) => {
    const issued = new Map(run.journal.tokens.map((t) => [t.id, t]));
    return withIssuedToken(run).flatMap(({ request, tokenId }) => {
      const token = issued.get(tokenId);
      if (token === undefined) return [];
      const lifetimeS = lifetimeOf(token.expiresInSeconds);
      const ageS = (Date.parse(request.at) - Date.parse(token.issuedAt)) / 1000;
      return ageS > lifetimeS
        ? [
            violation(
              'must',
              `a token younger than ${lifetimeS} s (its answer stated expires_in ${token.expiresInSeconds})`,
              `${describeRequest(request)} used token ${tokenId}, issued ${ageS.toFixed(1)} s before`,
            ),
          ]
        : [];
    });
  },
);

/**
 * 401s the client could not foresee, the outcome table's: a refusal for a header it got wrong has no
 * outcome and is that header check's finding (a departure that refuses nothing, plain http, is no cause).
 */
const answered401 = (run: ClientRun): JournalRequest[] =>
  ofOperation(run, 'withdraw').filter(
    (r) => r.answer.status === 401 && r.outcome !== undefined && !unread(r),
  );

export const clientAfter401 = defineClientCheck(
  {
    id: 'CLIENT-AFTER-401',
    title: 'After a 401, renews its token once and tries again, never in a loop',
    clause: '§7, §5.3',
    level: 'should',
    reason:
      '401 means Unauthorized (§7); the document shows no recovery, but one renewal then one retry recovers from an expired token, while renewing again and again hammers the service (our reading).',
    remedy:
      'On a 401, request one new token and send the withdrawal once more; if that is refused too, stop and report it instead of renewing again.',
  },
  (run) =>
    answered401(run).length > 0
      ? undefined
      : `no withdrawal was answered 401: ${exercisedBy(run, ['unauthorized-401'], 'a withdrawal of')}`,
  (run) => {
    const { requests } = run.journal;
    const found: Violation[] = [];
    for (const refused of answered401(run)) {
      const after = requests.filter((r) => r.seq > refused.seq);
      const nextWithdrawal = after.findIndex((r) => r.operation === 'withdraw');
      const renewals = (nextWithdrawal === -1 ? after : after.slice(0, nextWithdrawal)).filter(
        (r) => r.operation === 'token',
      );
      if (renewals.length > 1)
        found.push(
          violation(
            'should',
            'one token request after a 401',
            `after ${describeRequest(refused)} answered 401: ${renewals.length} token requests before the next withdrawal`,
          ),
        );
    }
    // Each run of 401s in a row as long as a loop, told whole: how many, and the first and last.
    const unforeseen = new Set(answered401(run));
    let streak: JournalRequest[] = [];
    for (const r of [...ofOperation(run, 'withdraw'), undefined]) {
      if (r !== undefined && unforeseen.has(r)) {
        streak.push(r);
        continue;
      }
      const [first] = streak;
      const last = streak.at(-1);
      if (streak.length >= RENEWAL_LOOP && first !== undefined && last !== undefined)
        found.push(
          violation(
            'should',
            'one renewal and one retry after a 401, then stop',
            `${streak.length} withdrawals in a row answered 401, from ${describeRequest(first)} to ${describeRequest(last)}: a renewal loop`,
          ),
        );
      streak = [];
    }
    return found;
  },
);

const answeredAt = (r: JournalRequest): number => Date.parse(r.at) + r.elapsedMs;

const rateLimited = (run: ClientRun): JournalRequest[] =>
  run.journal.requests.filter((r) => r.answer.status === 429 && !unread(r));

export const clientAfter429 = defineClientCheck(
  {
    id: 'CLIENT-AFTER-429',
    title: 'After a 429, sends nothing before Retry-After has passed',
    clause: '§8 (rate limits: not shown)',
    level: 'should',
    reason:
      'Rate limits are not shown (§8), but a 429 with Retry-After asks the client to wait that long; a client that sends sooner is refused again, or blocked (our reading, RFC 9110 §10.2.3).',
    remedy:
      'On a 429, wait the seconds of Retry-After (or a backoff when it is absent) before the next request of any kind.',
  },
  (run) =>
    rateLimited(run).length > 0
      ? undefined
      : `no request was answered 429: ${exercisedBy(run, ['rate-limited-429'], 'a withdrawal of')}`,
  (run) =>
    rateLimited(run).flatMap((limited) => {
      const waitMs = (limited.answer.retryAfterSeconds ?? 0) * 1000;
      const until = answeredAt(limited) + waitMs;
      const early = run.journal.requests.find(
        (r) => r.seq > limited.seq && Date.parse(r.at) < until - RETRY_AFTER_SLACK_MS,
      );
      return early === undefined
        ? []
        : [
            violation(
              'should',
              `no request before ${new Date(until).toISOString()} (Retry-After: ${limited.answer.retryAfterSeconds ?? 'absent'})`,
              `${describeRequest(early)}, ${Math.round(until - Date.parse(early.at))} ms early, after ${describeRequest(limited)} answered 429`,
            ),
          ];
    }),
);

/**
 * A Pix key as the key directory tells keys apart: an e-mail case-insensitively; any other (CPF, CNPJ,
 * phone, EVP) without the separators people write in it, case-insensitively (a phone keeps its +, an
 * alphanumeric CNPJ its letters).
 */
const pixKey = (key: string): string =>
  key.includes('@') ? key.trim().toLowerCase() : key.replace(/[\s()./-]/g, '').toUpperCase();

/** A beneficiary's name as a person reads it: case, accents and runs of white space ignored. */
const personName = (name: string): string =>
  name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The same payment, as these checks tell it: the same amount (a JSON number whatever its digits), Pix
 * key and beneficiary's name, each compared as Pix compares them: a client that resends "MARIA" for
 * "Maria" pays the same person twice.
 */
function paymentOf(r: JournalRequest): string | undefined {
  const body = r.body.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { amount, key_pix: key, name } = body as Record<string, unknown>;
  if (amount === undefined || key === undefined) return undefined;
  return JSON.stringify([
    amount,
    typeof key === 'string' ? pixKey(key) : key,
    typeof name === 'string' ? personName(name) : name,
  ]);
}

const checkCodeOf = (r: JournalRequest): unknown =>
  typeof r.body.value === 'object' && r.body.value !== null
    ? (r.body.value as Record<string, unknown>).check_code
    : undefined;

/** A withdrawal whose outcome the client cannot know: answered 5xx, or not answered in its time. */
const unknownOutcome = (r: JournalRequest): boolean =>
  r.answer.status === null || (r.answer.status >= 500 && !unread(r));

const answerText = (r: JournalRequest): string =>
  r.answer.status === null ? 'no answer' : `${r.answer.status}`;

export const clientUnknownOutcome = defineClientCheck(
  {
    id: 'CLIENT-UNKNOWN-OUTCOME',
    title:
      'After a 5xx or no answer, resends the same code with check_code true, never a new code for the same payment',
    clause: '§2.1, §4.2, §7',
    level: 'should',
    reason:
      'A 500 or a lost answer does not say the withdrawal was not processed (§7 shows no condition); check_code true makes the service refuse a second record of the same code (§2.1), so resending the same code is safe, while a new code for the same payment risks a double payout (our reading).',
    remedy:
      'After a 5xx or a timeout, resend the very same body (same code) with check_code: true, or wait for the webhook; never mint a new code for a payment whose first try may have been paid.',
    money: 'a double payout',
  },
  (run) =>
    ofOperation(run, 'withdraw').some(unknownOutcome)
      ? undefined
      : `no withdrawal was answered 5xx or left unanswered: ${exercisedBy(run, ['error-500-paid', 'no-answer-paid'], 'a withdrawal of')}`,
  (run) => {
    return ofOperation(run, 'withdraw')
      .filter(unknownOutcome)
      .flatMap((first) => {
        const again = sentAgain(run, first);
        if (again === undefined) return [];
        if (codeOf(again) !== codeOf(first))
          return [
            violation(
              'should',
              `the same code ${first.code ?? '(none)'} sent again with check_code: true`,
              `${describeRequest(again)} sent the same payment (amount, key_pix, name) under a new code ${again.code ?? '(none)'} after ${describeRequest(first)} got ${answerText(first)}: if the first was paid, this pays twice (a double payout)`,
            ),
          ];
        return checkCodeOf(again) === true
          ? []
          : [
              violation(
                'should',
                'the resend with check_code: true',
                `${describeRequest(again)} resent code ${again.code ?? ''} with check_code ${checkCodeOf(again) === undefined ? 'absent' : JSON.stringify(checkCodeOf(again))} after ${describeRequest(first)} got ${answerText(first)}: the service may record it twice`,
              ),
            ];
      });
  },
);

/** Each run's withdrawals by payment, in journal order: worked out once, not for every withdrawal looked back on. */
const byPayment = new WeakMap<ClientRun, Map<string, JournalRequest[]>>();

function withdrawalsByPayment(run: ClientRun): Map<string, JournalRequest[]> {
  let grouped = byPayment.get(run);
  if (grouped === undefined) {
    grouped = new Map();
    for (const r of ofOperation(run, 'withdraw')) {
      const payment = paymentOf(r);
      if (payment === undefined) continue;
      const same = grouped.get(payment);
      if (same === undefined) grouped.set(payment, [r]);
      else same.push(r);
    }
    byPayment.set(run, grouped);
  }
  return grouped;
}

/**
 * The same payment sent again after `first`: its next withdrawal, or with `newCode` its next under
 * another code (a second payout), sent after `since` and before `until` (ms since the epoch).
 */
function sentAgain(
  run: ClientRun,
  first: JournalRequest,
  {
    newCode = false,
    since = -Infinity,
    until = Infinity,
  }: { newCode?: boolean; since?: number; until?: number } = {},
): JournalRequest | undefined {
  const payment = paymentOf(first);
  if (payment === undefined) return undefined;
  return withdrawalsByPayment(run)
    .get(payment)
    ?.find(
      (r) =>
        r.seq > first.seq &&
        (!newCode || codeOf(r) !== codeOf(first)) &&
        Date.parse(r.at) > since &&
        Date.parse(r.at) < until,
    );
}

const FINAL_STATUSES: ReadonlySet<string> = new Set(['PAID', 'FAILED']);

/**
 * Accepted withdrawals a webhook told PROCESSING before their final status: when that webhook was first
 * sent, and when the final status was. An answer saying PROCESSING tells no step the client could act
 * on: a batch pays one payee the same amount under two codes right after it, as §2.1 allows.
 */
function stillProcessing(
  run: ClientRun,
): { request: JournalRequest; processingAt: number; finalAt: number }[] {
  const { deliveries } = run.journal;
  return ofOperation(run, 'withdraw').flatMap((request) => {
    const id = request.answer.withdrawalId;
    if (request.answer.status !== 200 || id === null || unread(request)) return [];
    const own = deliveries.filter((d) => d.withdrawalId === id);
    // Without a final status the run cannot tell a payment still open from one given up: not judged.
    const finals = own.filter((d) => FINAL_STATUSES.has(d.event)).map((d) => Date.parse(d.sentAt));
    if (finals.length === 0) return [];
    const finalAt = Math.min(...finals);
    const told = own
      .filter((d) => d.event === 'PROCESSING')
      .map((d) => Date.parse(d.sentAt))
      .filter((sentAt) => sentAt < finalAt);
    return told.length === 0 ? [] : [{ request, processingAt: Math.min(...told), finalAt }];
  });
}

export const clientProcessingNotFinal = defineClientCheck(
  {
    id: 'CLIENT-PROCESSING-NOT-FINAL',
    title: 'Takes PROCESSING for a step, never pays again while a withdrawal is still processing',
    clause: '§3 (states: not shown), §6',
    level: 'should',
    reason:
      'The statuses a withdrawal passes through are not shown (§3); an accepted withdrawal a webhook reported PROCESSING may still be paid, so the same payment under a new code after that webhook and before its final status can pay twice (our reading). An answer saying PROCESSING alone is no such finding: code is the identity of a withdrawal (§2.1), and a batch may pay one payee the same amount twice under two codes.',
    remedy:
      'Keep a withdrawal reported PROCESSING open and wait for its final webhook (PAID or FAILED); pay anew only after a final FAILED, never on PROCESSING.',
    money: 'a double payout',
    readings: 'some',
  },
  (run) =>
    stillProcessing(run).length > 0
      ? undefined
      : 'no accepted withdrawal was sent a PROCESSING webhook and then a final one: a reading that posts PROCESSING first (processing-first) exercises it',
  (run) =>
    stillProcessing(run).flatMap(({ request, processingAt, finalAt }) => {
      const again = sentAgain(run, request, { newCode: true, since: processingAt, until: finalAt });
      return again === undefined
        ? []
        : [
            violation(
              'should',
              `no new withdrawal for the payment of code ${request.code ?? '(none)'} before its final status`,
              `${describeRequest(again)} sent the same payment (amount, key_pix, name) under a new code ${again.code ?? '(none)'} while ${describeRequest(request)} was still PROCESSING, ${Math.round(Date.parse(again.at) - processingAt)} ms after its PROCESSING webhook and ${Math.round(finalAt - Date.parse(again.at))} ms before its final webhook were sent: both may be paid`,
            ),
          ];
    }),
);

/** Withdrawals the simulator decided but the client stopped waiting for before their answer was written. */
const givenUp = (run: ClientRun): JournalRequest[] =>
  // A refusal (4xx) processed nothing: a new code after it pays once.
  ofOperation(run, 'withdraw').filter((r) => unread(r) && !refusal(r.answer.status));

export const clientSlowAnswer = defineClientCheck(
  {
    id: 'CLIENT-SLOW-ANSWER',
    title: 'An answer slower than its timeout is resent with the same code, never under a new one',
    clause: '§8 (response times: not shown), §2.1, §7',
    level: 'should',
    reason:
      'How long an answer may take is not shown (§8); a withdrawal the client stopped waiting for may still be processed and paid, so the same payment under a new code after a timeout can pay twice, while the same code with check_code true is refused as a duplicate (§2.1) (our reading).',
    remedy:
      "Give withdrawals a timeout longer than the provider's slowest answers; after a timeout, resend the same code with check_code: true or wait for the webhook, never a new code.",
    money: 'a double payout',
    readings: 'some',
  },
  (run) =>
    ofOperation(run, 'withdraw').some((r) => r.answer.delayMs !== undefined || unread(r))
      ? undefined
      : 'no withdrawal was answered slowly, nor left by the client before its answer: a reading with slow answers (slow-answers) exercises it',
  (run) =>
    givenUp(run).flatMap((first) => {
      const again = sentAgain(run, first, { newCode: true });
      const answer = first.answer;
      return again === undefined
        ? []
        : [
            violation(
              'should',
              `the same code ${first.code ?? '(none)'} resent with check_code: true, or the answer waited for`,
              `the client closed ${describeRequest(first)} after ${answer.clientClosedAfterMs ?? 0} ms (its timeout), before the answer ${answer.status ?? ''} came at ${first.elapsedMs + (answer.delayMs ?? 0)} ms; ${describeRequest(again)} then sent the same payment under a new code ${again.code ?? '(none)'}: if the first pays, both do (a double payout)`,
            ),
          ];
    }),
);

const CLIENT_CHECKS: readonly ClientCheck[] = [
  clientOperations,
  clientTokenAccept,
  clientTokenClientId,
  clientTokenCertClient,
  clientWithdrawCredentials,
  clientWithdrawAccept,
  clientWithdrawBearer,
  clientBodyJson,
  clientBodyFieldNames,
  clientBodyTypes,
  clientBodyPostBack,
  clientBodyFields,
  clientBodyValues,
  clientTokenReused,
  clientTokenRenewed,
  clientAfter401,
  clientAfter429,
  clientUnknownOutcome,
  clientProcessingNotFinal,
  clientSlowAnswer,
  clientHttps,
];

export const clientFamily: Family<ClientCheck> = {
  name: 'client (pix-certify client)',
  file: familyFile(import.meta.url),
  checks: () => CLIENT_CHECKS,
  withdrawals: () => 0,
};
