/**
 * Readings of the document's silences (issue 52): each a coherent provider a namespace may play, the
 * namespaces' default (outcome table, journal, departures) with the few switches in which real
 * providers read a "not shown" otherwise. An integrator's client is run against each
 * (`pix-certify client --readings`); `sandbox --profiles` lists them with what they change.
 */
import type { Behaviour } from './behaviour.ts';
import { NAMESPACE_DEFAULT } from './scenarios.ts';

export interface ReadingScenario {
  readonly kind: 'reading';
  readonly name: string;
  /** What the provider does differently from the namespaces' default. */
  readonly description: string;
  /** Why a real provider does it, and the silence of the document it reads. */
  readonly why: string;
  /** Client variables a run against it needs besides the namespace's credentials. */
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly behaviour: Behaviour;
}

type ReadingSpec = Omit<ReadingScenario, 'kind' | 'behaviour' | 'clientEnv'> & {
  readonly clientEnv?: Readonly<Record<string, string>>;
  readonly changes: Partial<Behaviour>;
};

function reading({ changes, clientEnv = {}, ...spec }: ReadingSpec): ReadingScenario {
  return { kind: 'reading', clientEnv, behaviour: { ...NAMESPACE_DEFAULT.behaviour, ...changes }, ...spec };
}

export const READINGS: readonly ReadingScenario[] = [
  reading({
    name: 'refuses-401',
    description: 'refuses a missing or wrong client_id, cert_client or client_secret with 401, not 403',
    why: 'A gateway in front of the service answers every authentication failure 401, whatever §5.4 says of a key not informed or invalid; §7 lists both statuses.',
    changes: { credentialRefusal: 401 },
  }),
  reading({
    name: 'problem-errors',
    description:
      'answers every error as RFC 9457 application/problem+json {type, title, status, detail}; a duplicate code\'s title is "Duplicate code"',
    why: 'The shape of error bodies is not shown (§7); web frameworks and gateways that follow RFC 9457 write every error as problem details.',
    changes: { errorBody: 'problem' },
  }),
  reading({
    name: 'token-field',
    description: 'answers the token request {token, expiresIn} instead of {access_token, expires_in}',
    why: 'The fields of the token response are not shown (§2.3); many providers name the field token and write camelCase.',
    clientEnv: { PIX_TOKEN_FIELD: 'token' },
    changes: { tokenReply: 'token' },
  }),
  reading({
    name: 'short-token',
    description:
      'issues tokens that state expires_in: 3 and refuses them with 401 (token-expired) 3 s after issue',
    why: 'How long the service accepts a token is not shown (§5); providers issue tokens that live minutes, not the 7200 s of the renewal (§5.3): here scaled to seconds, so that a run meets a renewal.',
    changes: { tokenLifetimeSeconds: 3 },
  }),
  reading({
    name: 'slow-answers',
    description:
      'answers every withdrawal 3 s after it arrived; the withdrawal is processed on arrival, so its webhook may come first',
    why: 'The document states no time within which an answer comes; a provider whose payout waits on a slow upstream answers in seconds, and has made the payment even if the client gave up waiting.',
    changes: { answerDelayMs: 3_000 },
  }),
  reading({
    name: 'webhook-first',
    description: "posts a withdrawal's webhooks, and waits for the handler's answers, before answering it",
    why: 'The document does not order the webhook and the answer (§4.2, §6); a provider that settles at once posts the webhook from the same worker before its answer leaves.',
    changes: { webhookTiming: 'before-answer' },
  }),
  reading({
    name: 'processing-first',
    description:
      'answers status PROCESSING, posts a PROCESSING webhook, then the final one (PAID or FAILED, as the outcome table says) 1 s later',
    why: 'States and transitions are not shown (§3); providers report a payment in progress first and its final status once the payment network settles it.',
    changes: { processingGapMs: 1_000 },
  }),
  reading({
    name: 'webhook-retries',
    description:
      'sends a webhook answered other than 2xx (or not answered) again 1 s later, 3 attempts at most',
    why: 'Delivery retries are not shown (§6); providers send a webhook again until the receiver acknowledges it, so a handler sees one event more than once.',
    changes: { webhookRetry: { delayMs: 1_000, attempts: 3 } },
  }),
  reading({
    name: 'rate-limiting',
    description: 'answers 429 with Retry-After: 1 to the requests beyond 5 in one second',
    why: 'Rate limits are not shown (§8); gateways cap the requests of each client and answer 429 with Retry-After.',
    changes: { rateLimit: { perSecond: 5, retryAfterSeconds: 1 } },
  }),
  reading({
    name: 'compressed',
    description:
      'gzip-compresses every answer (token, withdrawal, errors) whose request allows gzip in Accept-Encoding (Content-Encoding: gzip, Vary: Accept-Encoding)',
    why: 'The document says payloads are JSON and nothing of how they travel; servers and gateways compress whenever the client says it accepts gzip, as most HTTP clients do by default.',
    changes: { compression: 'gzip' },
  }),
];
