/**
 * Judging responses: every response of the run goes through the checks every response must pass,
 * given what they judge from the spec, every error body through the leak check, and its shape is
 * observed where the document shows none.
 */
import { errorShowsNoInternals } from '../checks/leaked-internals.ts';
import { RESPONSE_CHECKS, responseComplete } from '../checks/responses.ts';
import type { Exchange } from '../evidence/exchange.ts';
import { shapeOf } from '../evidence/shape.ts';
import type { SpecModel } from '../spec/spec.ts';
import { isError, isSuccess } from '../base/status.ts';
import type { Recorder } from './recorder.ts';

const SHAPE_TOPIC = { createToken: 'token', createWithdraw: 'withdraw' } as const;

export class ResponseJudge {
  private readonly spec: SpecModel;
  private readonly verify: Recorder;

  constructor(spec: SpecModel, verify: Recorder) {
    this.spec = spec;
    this.verify = verify;
  }

  /** The same judge recording with another recorder: a case's (Recorder.forCase). */
  recordingWith(verify: Recorder): ResponseJudge {
    return new ResponseJudge(this.spec, verify);
  }

  /** `alsoAllowed`: statuses the test tolerates beyond §7 (406 for a refused Accept). */
  judge(exchange: Exchange, alsoAllowed: readonly number[] = []): void {
    const { operation, response } = exchange;
    const input = {
      exchange,
      documented: this.spec.operations[operation].statuses,
      alsoAllowed,
      validate: this.spec.responseValidator(operation, response.status),
    };
    this.verify.check(responseComplete, { failure: undefined }, exchange);
    for (const check of RESPONSE_CHECKS) this.verify.check(check, input, exchange);
    if (isError(response.status)) this.verify.check(errorShowsNoInternals, input, exchange);
    if (exchange.rateLimited !== undefined)
      this.verify.observe(
        `rate-limit.${operation}`,
        '§8 (not shown)',
        exchange.rateLimited.map(({ status, waitedMs }) => ({ status, waitedMs })),
        'answers that asked the suite to slow down before this request was served, and how long it waited for each (rate limits are not shown)',
      );
    const ok = isSuccess(response.status);
    this.verify.observe(
      ok ? `${SHAPE_TOPIC[operation]}.response.shape` : `error.response.shape.${response.status}`,
      ok ? '§2.3 (not shown)' : '§7 (not shown)',
      shapeOf(response.json),
      ok
        ? 'the fields of a successful answer and their types, no values'
        : `the fields of a ${response.status} answer and their types, no values`,
    );
  }
}
