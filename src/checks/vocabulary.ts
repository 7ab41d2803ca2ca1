/**
 * The vocabulary shared by checks, tests and reporters. Reporters import this module and the
 * catalogue only, never the HTTP layer.
 */

import type { JsonValue } from '../base/json.ts';

/** `must` can yield FAILED, `should` at most WARNING, `observe` only records what the environment does. */
export type Level = 'must' | 'should' | 'observe';

export type Verdict = 'PASSED' | 'FAILED' | 'WARNING' | 'SKIPPED';

/** What a check needs from the environment to run; anything the target lacks makes it SKIPPED. */
export type Capability =
  /** A stateful provider that validates credential values, not only their presence (the mock cannot). */
  | 'provider'
  /** Requests to POST /pix/payment that a provider could accept (live mode needs PIX_ALLOW_PAYOUTS=1). */
  | 'payout'
  /** An environment that can reach the suite's webhook receiver (on this machine, or PIX_WEBHOOK_PUBLIC_URL). */
  | 'webhook';

export interface CheckDefinition {
  /** Stable identifier, e.g. `TOKEN-REFUSE-MISSING-CLIENT-ID`. Reports and baselines key on it. */
  readonly id: string;
  /** A sentence a person understands. */
  readonly title: string;
  /** Clause(s) of interface.md, e.g. `§4.1, §5.4`; `(not shown)` marks a silent area. */
  readonly clause: string;
  readonly level: Level;
  /**
   * A `must` check that only warns for some answers, where the document is ambiguous (it names one
   * status and lists others): which, in a few words. `list` shows it beside the level.
   */
  readonly ambiguous?: string;
  /** Why the check exists, in one sentence. */
  readonly reason: string;
  /** What a provider that fails the check should change, in one or two concrete sentences. */
  readonly remedy: string;
  readonly needs: readonly Capability[];
  /**
   * The check whose valid request this check's request is, with one header changed: when both got the
   * same server error, the change explains nothing, and this check is SKIPPED naming that one.
   */
  readonly variantOf?: string;
  /**
   * The check whose failure already holds this one's: a provider that fails it fails this one for the
   * same reason, and this check's FAILED is then SKIPPED naming it (one root cause, one finding).
   */
  readonly subsumedBy?: string;
  /**
   * Every finding of this check in a run has one root cause (one error handler writes every answer it
   * judges): the certification keeps the first as the check's one finding, counting the others.
   */
  readonly onePerRun?: true;
  /**
   * What a finding of this check can cost in money (a double payout, a payout never recorded): any
   * finding of it, WARNING included, fails the gate (exit 1) whatever the check's level.
   */
  readonly money?: string;
  /**
   * `some`: only some readings of the document's silences can exercise the check (a webhook before its
   * answer happens only where the provider sends it so): in a matrix report a reading that cannot is
   * SKIPPED for that reading only, and the run stays complete when another reading judged it; a run of
   * one reading (no --readings) stays complete too, its SKIPPED naming the readings that would judge it.
   */
  readonly readings?: 'some';
}

/** One evaluation of a check inside a test; a check may be evaluated many times in a run. */
export interface Evaluation {
  readonly checkId: string;
  readonly verdict: Verdict;
  /** For SKIPPED: why it could not run. Otherwise a short summary. */
  readonly reason?: string;
  /**
   * For SKIPPED: the capabilities the target lacked (the mock is no provider, payouts not allowed,
   * the webhook receiver out of reach). Absent when the skip follows from something the run found
   * (no token, a refused withdrawal). The certification is incomplete exactly when a check is
   * SKIPPED for a lack or left out of the run's selection, whatever the reason's wording.
   */
  readonly lacks?: readonly Capability[];
  /**
   * For SKIPPED without a lack: the environment's answer that left the check unjudged (no token, a
   * refused withdrawal, no webhook), and the check that judged that answer. Such a skip makes the run
   * INCOMPLETE (cause `environment`) unless the run FAILED.
   */
  readonly blockedBy?: Blocker;
  /** The status of the answer judged, when the check judged one. */
  readonly answered?: number;
  readonly expected?: string;
  readonly actual?: string;
  /** A `curl` line that reproduces the request, secrets masked. */
  readonly reproduction?: string;
}

/** An answer of the environment that stopped checks from being judged. */
export interface Blocker {
  /** What came back, e.g. `POST /auth/token answered 429`. */
  readonly answer: string;
  /** When, as an ISO 8601 time. */
  readonly at: string;
  /** The check that judged that answer, which a person reads first. */
  readonly check?: string;
}

/** What the environment does where the document is silent; never a verdict. */
export interface Observation {
  /** Stable topic, e.g. `token.response.fields`, `refusal.status.PAYMENT-REFUSE-WRONG-CLIENT-SECRET`. */
  readonly topic: string;
  readonly clause: string;
  readonly value: JsonValue;
  readonly note?: string;
}

/** Attachment names through which tests hand results to the reporters (they survive blob merges). */
export const EVALUATIONS_ATTACHMENT = 'pix-evaluations';
export const OBSERVATIONS_ATTACHMENT = 'pix-observations';

/**
 * The annotation in which a test declares, statically, the ids of the checks it judges (separated
 * by spaces), so that a listing can tell per check which tests, and so which tags, judge it.
 */
export const CHECKS_ANNOTATION = 'pix-checks';
