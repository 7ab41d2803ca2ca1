/**
 * Records what a test found, check by check, and hands it to the reporters as attachments.
 *
 * A FAILED check does not fail the Playwright test: the verdict belongs to the certification, which
 * the reporters build from these attachments, and a failed test would make Playwright restart its
 * worker (seconds each against a provider that breaks many rules). Only a suite error (an exception:
 * no response, a bug) fails a test. Each FAILED or WARNING check is also annotated on the test, so
 * Playwright's own reports show it.
 */
import type { TestInfo } from '@playwright/test';
import type { Check } from '../checks/check.ts';
import { judgement, verdictOf } from '../checks/check.ts';
import {
  EVALUATIONS_ATTACHMENT,
  type Blocker,
  type Capability,
  OBSERVATIONS_ATTACHMENT,
  type CheckDefinition,
  type Evaluation,
  type Observation,
  type Verdict,
} from '../checks/vocabulary.ts';
import { declaredChecks } from '../checks/declare.ts';
import { curlLine, isRateLimited, type Exchange } from '../evidence/exchange.ts';
import { MAX_ATTEMPTS } from '../transport/operations.ts';
import { excerpt } from '../secrets/redact.ts';
import { boundedJson } from '../evidence/shape.ts';
import type { Target } from './target.ts';
import type { JsonValue } from '../base/json.ts';
import { ANSWER_CHECKS, responseComplete } from '../checks/responses.ts';
import type { TransportError } from '../transport/http.ts';
import type { BurstDoesNotFit } from '../transport/gate.ts';
import type { WaitBudgetSpent } from '../transport/gate.ts';
import type { BoundReached } from '../transport/withdrawal-bound.ts';

/** What one piece of evidence may hold: a 200,000-field answer must not make a 30 MB report. */
const EVIDENCE_CHARS = 2_000;

/**
 * Thrown where a case's recorder would stop its test (Recorder.forCase): that case is over, its
 * checks recorded, and the test's other cases go on.
 */
export class CaseStopped extends Error {}

/** What a test found, shared by the recorders of its cases. */
interface Findings {
  readonly evaluations: Evaluation[];
  readonly observations: Observation[];
}

export class Recorder {
  /** The checks this recorder recorded a verdict on: a case's, within its test's. */
  private readonly recordedHere = new Set<string>();

  private readonly target: Target;
  private readonly testInfo: TestInfo;
  private readonly findings: Findings;
  /** A case's own checks, with those every response is judged by; undefined for the whole test. */
  private readonly scope: ReadonlySet<string> | undefined;

  constructor(
    target: Target,
    testInfo: TestInfo,
    findings: Findings = { evaluations: [], observations: [] },
    scope?: ReadonlySet<string>,
  ) {
    this.target = target;
    this.testInfo = testInfo;
    this.findings = findings;
    this.scope = scope;
  }

  /**
   * The recorder of one case among the test's independent cases, sent together: it records into the
   * test's findings, judges only the case's checks, and where the test's recorder would stop the test
   * (an environment's failure, a missing token) it stops only the case, with CaseStopped.
   */
  forCase(checks: readonly CheckDefinition[]): Recorder {
    const scope = new Set([...checks, ...ANSWER_CHECKS].map((c) => c.id));
    return new Recorder(this.target, this.testInfo, this.findings, scope);
  }

  private get evaluations(): Evaluation[] {
    return this.findings.evaluations;
  }

  private record(evaluation: Evaluation): void {
    this.findings.evaluations.push(evaluation);
    this.recordedHere.add(evaluation.checkId);
  }

  /** Judges one input with one check and records the verdict; the exchange gives the reproduction. */
  check<Input>(check: Check<Input>, input: Input, exchange?: Exchange): Verdict {
    this.assertDeclared(check);
    if (exchange !== undefined && isRateLimited(exchange)) {
      // Not processed, and the suite stopped sending it again: there is no answer to judge.
      const times = (exchange.rateLimited?.length ?? 0) + 1;
      this.recordSkips(
        [check],
        `the environment answered 429 (rate-limited, not processed) ${times === 1 ? 'once' : `${times} times in a row`} and the suite stopped sending it again (at most ${MAX_ATTEMPTS} attempts, no wait past PIX_MAX_RETRY_AFTER_S)`,
        { blockedBy: blockerOf(exchange) },
      );
      return 'SKIPPED';
    }
    const judged = judgement(check, input);
    if ('unjudged' in judged) {
      const at = new Date().toISOString();
      this.recordSkips([check], `not judged: ${judged.unjudged}`, {
        blockedBy: exchange === undefined ? { answer: judged.unjudged, at } : blockerOf(exchange),
      });
      return 'SKIPPED';
    }
    const { violations } = judged;
    const verdict = verdictOf(violations);
    this.record({
      checkId: check.id,
      verdict,
      ...(exchange === undefined ? {} : { answered: exchange.response.status }),
      ...(violations.length === 0
        ? {}
        : {
            expected: excerpt(violations.map((v) => v.expected).join(' | '), EVIDENCE_CHARS),
            actual: excerpt(violations.map((v) => v.actual).join(' | '), EVIDENCE_CHARS),
            ...(exchange === undefined
              ? {}
              : { reproduction: curlLine(exchange.request, exchange.operation) }),
          }),
    });
    return verdict;
  }

  /**
   * Judges a check of a withdrawal's body. A withdrawal refused for its credentials although it
   * carried every valid one never had its body read: its check is SKIPPED naming PAYMENT-ACCEPTED,
   * which finds the refusal once, instead of warning "expected 400, got 401" for every body case.
   */
  checkBody(check: Check<Exchange>, exchange: Exchange): Verdict {
    if (exchange.refusedWithValidCredentials !== true) return this.check(check, exchange, exchange);
    this.assertDeclared(check);
    this.recordSkips(
      [check],
      `not judged: the withdrawal was refused with ${exchange.response.status} for its credentials before its body was read; see PAYMENT-ACCEPTED`,
      { blockedBy: { ...blockerOf(exchange), check: 'PAYMENT-ACCEPTED' } },
    );
    return 'SKIPPED';
  }

  /**
   * The environment gave no complete answer to a request (not HTTP, cut short, no answer in time):
   * RESPONSE-COMPLETE FAILED with what happened, and every other check the test declared SKIPPED
   * naming it. The environment's failure, never the suite's; the test stops here.
   */
  environmentFailed(error: TransportError): never {
    this.check(responseComplete, { failure: error.message });
    return this.skipTheRest(
      `not judged: the environment gave no complete answer; see ${responseComplete.id}`,
      {
        answer: `POST ${new URL(error.request.url).pathname} got no complete response`,
        at: new Date().toISOString(),
        check: responseComplete.id,
      },
    );
  }

  /**
   * The run's wait budget for the environment's rate limit is spent (the gate sends nothing more):
   * every check the test declared and has not judged is SKIPPED as rate-limited, and the test stops.
   */
  rateLimitSpent(error: WaitBudgetSpent): never {
    return this.skipTheRest(`not judged, rate-limited: ${error.message}`, {
      answer: 'the environment kept answering 429 until the run spent its wait budget',
      at: new Date().toISOString(),
    });
  }

  /**
   * The requests a test must release together do not fit in one window of the run's limits (the
   * environment's rate): nothing was sent; every check it has not judged is SKIPPED saying so, and
   * with what PIX_RACE_WIDTH the burst would fit.
   */
  burstDoesNotFit(error: BurstDoesNotFit): never {
    const narrower =
      error.room >= 2
        ? `; with PIX_RACE_WIDTH at ${error.room} or less the race fits`
        : '; no race of 2 or more fits at this rate';
    return this.skipTheRest(
      `not judged: no window the environment's rate allows holds the copies released together, so none was sent: ${error.message}${narrower}`,
      {
        answer: `the environment answered 429 past ${error.room} request${error.room === 1 ? '' : 's'} in a window`,
        at: new Date().toISOString(),
      },
    );
  }

  /**
   * Records every check the test (or case) has not judged as SKIPPED: a withdrawal it needed was not
   * sent because the run reached the plan's bound on withdrawal requests.
   */
  boundReached(error: BoundReached): never {
    return this.skipTheRest(`not judged: ${error.message}`, {
      answer: `POST /pix/payment not sent: the plan's bound of ${error.limit} withdrawal requests was reached`,
      at: new Date().toISOString(),
    });
  }

  /** Every check in scope not judged yet SKIPPED for `reason`, and the test (or case) stopped. */
  private skipTheRest(reason: string, blocker: Blocker): never {
    const judged =
      this.scope === undefined ? new Set(this.evaluations.map((e) => e.checkId)) : this.recordedHere;
    const rest = [...(this.scope ?? declaredChecks(this.testInfo.annotations) ?? [])].filter(
      (id) => !judged.has(id),
    );
    this.recordSkips(
      rest.map((id) => ({ id })),
      reason,
      { blockedBy: blocker },
    );
    return this.stop(reason);
  }

  /** A listing of the checks per test is only true if no test judges a check it did not declare. */
  private assertDeclared(check: CheckDefinition): void {
    const declared = declaredChecks(this.testInfo.annotations);
    if (declared?.has(check.id) !== true)
      throw new Error(
        `The test '${this.testInfo.title}' judges ${check.id} without declaring it: list it in the checks of its judging(...) details.`,
      );
    if (this.scope !== undefined && !this.scope.has(check.id))
      throw new Error(
        `A case of the test '${this.testInfo.title}' judges ${check.id}, another case's check: each case judges its own request.`,
      );
  }

  observe(topic: string, clause: string, value: JsonValue, note?: string): void {
    this.findings.observations.push({
      topic,
      clause,
      value: boundedJson(value),
      ...(note === undefined ? {} : { note: excerpt(note, EVIDENCE_CHARS) }),
    });
  }

  /** The capabilities the target lacks for these checks, each with the reason it gives. */
  private lacking(checks: readonly CheckDefinition[]): Map<Capability, string> {
    const lacks = new Map<Capability, string>();
    for (const need of new Set(checks.flatMap((c) => c.needs))) {
      const reason = this.target.missing(need);
      if (reason !== undefined) lacks.set(need, reason);
    }
    return lacks;
  }

  private recordSkips(
    checks: readonly Pick<CheckDefinition, 'id'>[],
    reason: string,
    cause: { lacks: readonly Capability[] } | { blockedBy: Blocker | undefined },
  ): void {
    const why =
      'lacks' in cause
        ? cause.lacks.length === 0
          ? {}
          : { lacks: cause.lacks }
        : cause.blockedBy === undefined
          ? {}
          : { blockedBy: cause.blockedBy };
    for (const check of checks) this.record({ checkId: check.id, verdict: 'SKIPPED', reason, ...why });
  }

  /**
   * Stops the test as SKIPPED, with the reason recorded for each check it would have judged, when
   * the target lacks something one of them needs. A check never passes because it could not run.
   */
  requires(checks: readonly CheckDefinition[]): void {
    const lacks = this.lacking(checks);
    if (lacks.size === 0) return;
    const reason = [...lacks.values()].join('; ');
    this.recordSkips(checks, reason, { lacks: [...lacks.keys()] });
    this.stop(reason);
  }

  /**
   * Records SKIPPED for only these checks, because of the environment's answer `blockedBy`, and lets
   * the test go on with the others. Such a skip leaves the run INCOMPLETE unless it FAILED.
   */
  skipSome(checks: readonly CheckDefinition[], reason: string, blockedBy?: Blocker): void {
    this.recordSkips(checks, reason, { blockedBy });
  }

  /**
   * The checks the target can judge, the others recorded as SKIPPED; the test stops as SKIPPED when
   * it can judge none of them.
   */
  runnableOrStop<C extends CheckDefinition>(checks: readonly C[]): C[] {
    if (checks.every((check) => this.lacking([check]).size > 0)) this.requires(checks);
    return this.runnable(checks);
  }

  /** Records the checks the target cannot judge as SKIPPED and returns those it can. */
  runnable<C extends CheckDefinition>(checks: readonly C[]): C[] {
    return checks.filter((check) => {
      const lacks = this.lacking([check]);
      if (lacks.size > 0)
        this.recordSkips([check], [...lacks.values()].join('; '), { lacks: [...lacks.keys()] });
      return lacks.size === 0;
    });
  }

  /** Stops the test as SKIPPED because of the environment's answer `blockedBy` (see skipSome). */
  skip(checks: readonly CheckDefinition[], reason: string, blockedBy?: Blocker): never {
    this.skipSome(checks, reason, blockedBy);
    return this.stop(reason);
  }

  private stop(reason: string): never {
    if (this.scope !== undefined) throw new CaseStopped(reason);
    this.testInfo.skip(true, reason);
    throw new Error('unreachable: testInfo.skip throws');
  }

  /** Attaches the results and annotates the checks that did not pass. */
  async flush(): Promise<void> {
    const { evaluations, observations } = this.findings;
    await this.testInfo.attach(EVALUATIONS_ATTACHMENT, {
      body: JSON.stringify(evaluations),
      contentType: 'application/json',
    });
    if (observations.length > 0) {
      await this.testInfo.attach(OBSERVATIONS_ATTACHMENT, {
        body: JSON.stringify(observations),
        contentType: 'application/json',
      });
    }
    for (const e of evaluations.filter((e) => e.verdict === 'FAILED' || e.verdict === 'WARNING')) {
      this.testInfo.annotations.push({
        type: e.verdict,
        description: `${e.checkId}: expected ${e.expected ?? '?'}; got ${e.actual ?? '?'}`,
      });
    }
  }
}

/** The answer in an exchange as a blocker: what came back, now, and the check that judged it. */
export function blockerOf(exchange: Exchange, judgedBy?: CheckDefinition): Blocker {
  const path = new URL(exchange.request.url).pathname;
  return {
    answer: `${exchange.request.method} ${path} answered ${exchange.response.status}`,
    at: new Date().toISOString(),
    ...(judgedBy === undefined ? {} : { check: judgedBy.id }),
  };
}
