/**
 * Handler family (§6): how the integrator's webhook handler answers the deliveries the simulator made
 * to the PostBackUrls the client gave, judged from the journal. The payload, retries and delivery
 * guarantees are not shown (§6), so every check here is a reading and warns; each names the kind of
 * delivery that exercises it (a duplicate, statuses out of order, a malformed body, extra fields).
 */
import type { DeliveryKind, JournalDelivery } from '../evidence/journal.ts';
import { violation, type Violation } from './check.ts';
import { defineClientCheck, exercisedBy, type ClientCheck, type ClientRun } from './client-requests.ts';
import { familyFile, type Family } from './family.ts';

/** Answers that mean the handler was not there: nothing listened, or the connection broke. */
const DEAD: ReadonlySet<string> = new Set(['refused', 'reset', 'unreachable']);

const answered2xx = (d: JournalDelivery): boolean =>
  d.answer.status !== null && d.answer.status >= 200 && d.answer.status < 300;

/** The handler's answer to a delivery, as a person reads it. */
export function answerOf(d: JournalDelivery, timeoutMs: number): string {
  if (d.answer.status !== null) return `answered ${d.answer.status} in ${d.durationMs} ms`;
  if (d.answer.error === 'timeout') return `no answer within ${timeoutMs} ms (timeout)`;
  if (d.answer.error === 'refused') return 'the connection was refused: no handler listened';
  if (d.answer.error === 'reset') return 'the connection broke before an answer: the handler failed or died';
  return `not delivered (${d.answer.error})`;
}

const describeDelivery = (d: JournalDelivery, timeoutMs: number): string =>
  `${d.event} webhook #${d.seq} (${d.kind}) to ${d.url} for code ${d.code ?? '(none)'} at ${d.sentAt}: ${answerOf(d, timeoutMs)}`;

/** The first attempt of each delivery the simulator made, not one it withheld (a host it may not post to). */
const firstAttempts = (run: ClientRun): JournalDelivery[] =>
  run.journal.deliveries.filter(
    (d) => d.attempt === 1 && !('error' in d.answer && d.answer.error === 'host-not-allowed'),
  );

/**
 * The first attempt of each delivery the handler is judged on: not one the simulator withheld (a
 * host it may not post to), nor one a malformed delivery before it broke the handler (that one's
 * finding, HANDLER-MALFORMED-4XX, names the root cause).
 */
function judged(run: ClientRun): JournalDelivery[] {
  const first = firstAttempts(run);
  const brokeAt = new Map<string, number>();
  for (const d of first)
    if (d.kind === 'malformed' && !answered2xx(d) && (d.answer.status === null || d.answer.status >= 500))
      brokeAt.set(d.url, Math.min(brokeAt.get(d.url) ?? Infinity, d.seq));
  return first.filter(
    (d) =>
      d.kind === 'malformed' ||
      !(d.seq > (brokeAt.get(d.url) ?? Infinity) && 'error' in d.answer && DEAD.has(d.answer.error)),
  );
}

const ofKind = (run: ClientRun, kind: DeliveryKind): JournalDelivery[] =>
  judged(run).filter((d) => d.kind === kind);

/** URLs where the handler answered no valid webhook 2xx: HANDLER-VALID-2XX's finding, for every kind sent there. */
function failingUrls(run: ClientRun): Set<string> {
  const valid = ofKind(run, 'valid');
  return new Set(
    valid.filter((d) => !valid.some((v) => v.url === d.url && answered2xx(v))).map((d) => d.url),
  );
}

/**
 * Valid webhooks sent before their withdrawal's answer where the handler answers others 2xx: refusing
 * those is HANDLER-BEFORE-ANSWER-2XX's finding; where it answers none, HANDLER-VALID-2XX's.
 */
const early = (run: ClientRun): JournalDelivery[] => {
  const failing = failingUrls(run);
  return ofKind(run, 'valid').filter((d) => d.beforeAnswer && !failing.has(d.url));
};

/** Deliveries of a kind other than valid, judged where the handler answers valid ones. */
const kindJudged = (run: ClientRun, kind: DeliveryKind | 'early'): JournalDelivery[] => {
  if (kind === 'early') return early(run);
  if (kind === 'valid') return ofKind(run, 'valid');
  const failing = failingUrls(run);
  return ofKind(run, kind).filter((d) => !failing.has(d.url));
};

/** Why a kind's deliveries were not judged: none came, or the handler failed every valid one there too. */
function kindUnexercised(
  run: ClientRun,
  kind: DeliveryKind | 'early',
  exercisedBy: (run: ClientRun) => string,
): string | undefined {
  const ofThisKind = (deliveries: JournalDelivery[]): JournalDelivery[] =>
    kind === 'early'
      ? deliveries.filter((d) => d.kind === 'valid' && d.beforeAnswer)
      : deliveries.filter((d) => d.kind === kind);
  if (ofThisKind(firstAttempts(run)).length === 0) return exercisedBy(run);
  if (ofThisKind(judged(run)).length === 0)
    return `the webhooks that exercise it came after a malformed webhook broke the handler, which answered none of them (HANDLER-MALFORMED-4XX's finding): once it survives one, they are judged`;
  return kindJudged(run, kind).length > 0
    ? undefined
    : `the handler answered no valid webhook 2xx where these were sent (HANDLER-VALID-2XX's finding): once it does, they are judged`;
}

/** A check that every first delivery of a kind was answered 2xx within the simulator's limit. */
function answeredCheck(
  definition: Parameters<typeof defineClientCheck>[0],
  kind: DeliveryKind | 'early',
  exercisedBy: (run: ClientRun) => string,
): ClientCheck {
  return defineClientCheck(
    definition,
    (run) => kindUnexercised(run, kind, exercisedBy),
    (run) => {
      const limit = run.journal.limits.webhookTimeoutMs;
      const theirs = kind === 'valid' ? new Set(early(run)) : new Set<JournalDelivery>();
      return kindJudged(run, kind)
        .filter((d) => !answered2xx(d) && !theirs.has(d))
        .map((d) => violation(definition.level, `2xx within ${limit} ms`, describeDelivery(d, limit)));
    },
  );
}

export const handlerValid = answeredCheck(
  {
    id: 'HANDLER-VALID-2XX',
    title: 'Answers a valid webhook 2xx within the time limit',
    clause: '§6 (delivery: not shown)',
    level: 'should',
    reason:
      'The webhook is sent by POST to PostBackUrl (§6); how a sender reads the answer is not shown, but every sender takes a 2xx in time as delivered and anything else as a failure to retry or drop (our reading; the simulator waits the limit stated in the journal).',
    remedy:
      'Answer the webhook 2xx as soon as it is stored (do slow work after answering); keep the handler listening at the PostBackUrl the client sends.',
    money: 'a payout the application never records',
  },
  'valid',
  () =>
    'no valid webhook was delivered: an accepted withdrawal whose PostBackUrl points at the handler (the command must keep it listening until its webhooks came) would exercise it',
);

export const handlerBeforeAnswer = answeredCheck(
  {
    id: 'HANDLER-BEFORE-ANSWER-2XX',
    title: "Answers 2xx a webhook that arrives before its withdrawal's answer",
    clause: '§6 (delivery: not shown), §4.2',
    level: 'should',
    reason:
      'When the webhook is sent is not shown (§6): a provider may post it before answering the withdrawal (a payout settled within the request, an answer held back); a handler that refuses a webhook for a withdrawal it does not know yet loses that payout notice (our reading).',
    remedy:
      'Take a webhook for a code or id not stored yet: store its status (or queue it) and answer 2xx; match it to the withdrawal when the answer arrives.',
    money: 'a payout the application never records',
    readings: 'some',
  },
  'early',
  (run) =>
    `no valid webhook was sent before its withdrawal's answer: ${exercisedBy(run, ['no-answer-paid'], 'a reading that posts it first (webhook-first, slow-answers), or a withdrawal of')}`,
);

export const handlerDuplicate = answeredCheck(
  {
    id: 'HANDLER-DUPLICATE-2XX',
    title: 'Answers a duplicate delivery 2xx (at least once delivery)',
    clause: '§6 (retries: not shown)',
    level: 'should',
    reason:
      'Delivery retries are not shown (§6); senders deliver at least once, so a handler must take the same webhook twice without failing or acting twice (our reading).',
    remedy:
      'Make the handler idempotent: recognise a webhook already processed (its webhook-id, or the withdrawal code and status) and answer it 2xx again without acting twice.',
  },
  'duplicate',
  (run) =>
    `no duplicate webhook was delivered: ${exercisedBy(run, ['webhook-twice'], "a first paid withdrawal (the simulator's realistic faults deliver its webhook twice) or one of")}`,
);

export const handlerOutOfOrder = answeredCheck(
  {
    id: 'HANDLER-OUT-OF-ORDER-2XX',
    title: 'Answers statuses that arrive out of order 2xx (PROCESSING after PAID)',
    clause: '§6, §3 (states: not shown)',
    level: 'should',
    reason:
      'States and their order are not shown (§3), and webhooks can arrive in any order; a handler that fails on an older status after a newer one makes the sender retry it forever (our reading).',
    remedy:
      'Answer 2xx to a status older than the one recorded, and keep the newer one (never step a PAID withdrawal back to PROCESSING).',
  },
  'out-of-order',
  (run) =>
    `no out-of-order statuses were delivered: ${exercisedBy(run, ['out-of-order'], "a second paid withdrawal (the simulator's realistic faults disorder its statuses) or one of")}`,
);

export const handlerExtraFields = answeredCheck(
  {
    id: 'HANDLER-EXTRA-FIELDS-2XX',
    title: 'Answers a webhook with fields it does not know 2xx',
    clause: '§6 (payload: not shown)',
    level: 'should',
    reason:
      'The payload shape is not shown (§6), so a provider may add fields at any time; a handler that refuses unknown fields breaks on the first one (our reading).',
    remedy:
      'Read the fields the handler needs and ignore the others; never validate the payload against a closed list.',
  },
  'extra-fields',
  (run) =>
    `no webhook with extra fields was delivered: ${exercisedBy(run, ['webhook-extra-fields'], 'a withdrawal of')}`,
);

export const handlerMalformed = defineClientCheck(
  {
    id: 'HANDLER-MALFORMED-4XX',
    title: 'Answers a malformed webhook 4xx, and still answers the next one',
    clause: '§6 (payload: not shown), §7',
    level: 'should',
    reason:
      "A body the handler cannot read is the sender's fault, which 4xx says (§7: 400 Bad request); a 5xx, a timeout or a crash makes the sender retry it and may stop the next valid webhook from being answered (our reading).",
    remedy:
      'Parse the webhook body inside a try/catch and answer 400 to one that is not the JSON expected, without throwing; keep serving the next delivery.',
  },
  (run) =>
    kindUnexercised(
      run,
      'malformed',
      () =>
        `no malformed webhook was delivered: ${exercisedBy(run, ['webhook-malformed'], 'a withdrawal of')}`,
    ),
  (run) => {
    const limit = run.journal.limits.webhookTimeoutMs;
    const deliveries = judged(run);
    return kindJudged(run, 'malformed').flatMap((bad): Violation[] => {
      const status = bad.answer.status;
      const own =
        status !== null && status >= 400 && status < 500
          ? []
          : [violation('should', '4xx (a body the handler cannot read)', describeDelivery(bad, limit))];
      const next = deliveries.find((d) => d.seq > bad.seq && d.url === bad.url && d.kind !== 'malformed');
      const after =
        next === undefined ||
        next.answer.status !== null ||
        !('error' in next.answer) ||
        !DEAD.has(next.answer.error)
          ? []
          : [
              violation(
                'should',
                'the next webhook still answered',
                `after the malformed webhook #${bad.seq}, ${describeDelivery(next, limit)}`,
              ),
            ];
      return [...own, ...after];
    });
  },
);

const HANDLER_CHECKS: readonly ClientCheck[] = [
  handlerValid,
  handlerBeforeAnswer,
  handlerDuplicate,
  handlerOutOfOrder,
  handlerMalformed,
  handlerExtraFields,
];

export const handlerFamily: Family<ClientCheck> = {
  name: 'webhook handler (pix-certify client)',
  file: familyFile(import.meta.url),
  checks: () => HANDLER_CHECKS,
  withdrawals: () => 0,
};
