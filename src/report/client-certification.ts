/**
 * The client certification (pix-certify client): the client and handler checks judged on a
 * simulator's journal, turned into the same Certification as certify's by the same builder, so the
 * same renderers, `verify`, `compare` and `history` read it. A check the run did not exercise is
 * SKIPPED naming what would, and makes the run INCOMPLETE.
 */
import type { ClientCheck, ClientRun } from '../checks/client-requests.ts';
import { judgement } from '../checks/check.ts';
import type { Evaluation } from '../checks/vocabulary.ts';
import { suiteVersion } from '../run/run-metadata.ts';
import { loadSpec } from '../spec/spec.ts';
import { buildCertification } from './build.ts';
import type { Certification, ReportedObservation, TestOutcome } from './model.ts';
import type { JsonValue } from '../base/json.ts';
import type { ClientEvidence } from '../run/client-run.ts';
import type { CommandRun } from '../run/command-under-test.ts';

export interface ClientCertificationInput extends ClientEvidence {
  readonly checks: readonly ClientCheck[];
  /** What the client was run against, the same from run to run; a handler's URL for `handler`. */
  readonly baseUrl: string;
  /** PIX_ENV_NAME: the label the reports name the client by. */
  readonly environmentName?: string;
  readonly durationMs: number;
  readonly strict: boolean;
  readonly requireComplete: boolean;
}

/** The reason every report gives for checks the client's run did not exercise. */
export const UNEXERCISED_REASON =
  "The client's run did not exercise these checks: each one's evidence names what would (a second withdrawal, an amount of the simulator's outcome table, a 401). Make the command's tests exercise them and run again; such a run exits 1 unless PIX_REQUIRE_COMPLETE=0.";

/** One check's evaluations: SKIPPED naming what would exercise it, each violation, or one PASSED. */
export function evaluate(check: ClientCheck, run: ClientRun, at: string): Evaluation[] {
  const judged = judgement(check, run);
  if ('unjudged' in judged) {
    const reason = judged.unjudged;
    return [{ checkId: check.id, verdict: 'SKIPPED', reason, blockedBy: { answer: reason, at } }];
  }
  if (judged.violations.length === 0) return [{ checkId: check.id, verdict: 'PASSED' }];
  return judged.violations.map(({ verdict, expected, actual }) => ({
    checkId: check.id,
    verdict,
    expected,
    actual,
  }));
}

/** Departures no check judges (the document is silent, or the simulator's own limit), as observations. */
function observationsOf(run: ClientRun): ReportedObservation[] {
  const observed = run.journal.requests.flatMap((r) =>
    r.departures
      .filter((d) => d.level === 'observe')
      .map((d) => ({ code: d.code, clause: d.clause, message: d.message })),
  );
  const byCode = new Map<string, { clause: string; messages: Set<string> }>();
  for (const { code, clause, message } of observed) {
    const entry = byCode.get(code) ?? { clause, messages: new Set<string>() };
    entry.messages.add(message);
    byCode.set(code, entry);
  }
  const departures = [...byCode].map(([code, { clause, messages }]) => ({
    topic: `client.departure.${code}`,
    clause,
    value: [...messages].slice(0, 5),
  }));
  const { dropped, limits } = run.journal;
  const bounded =
    dropped.requests + dropped.deliveries === 0
      ? []
      : [
          {
            topic: 'client.journal.dropped',
            clause: '(suite bound)',
            value: { requests: dropped.requests, deliveries: dropped.deliveries } as JsonValue,
            note: `the simulator keeps the newest ${limits.journalMaxEntries} requests and deliveries of a namespace; older ones were not judged`,
          },
        ];
  return [...departures, ...bounded];
}

function commandObservation(command: CommandRun): ReportedObservation {
  const ended = command.timedOut
    ? 'stopped at the time limit'
    : command.exitCode !== null
      ? `exit code ${command.exitCode}`
      : `ended by ${command.signal ?? 'a signal'}`;
  const left =
    command.leftovers.length === 0
      ? ''
      : `; ${command.leftovers.length} process(es) it started were still running when it ended, and were ended before this report was written: ${command.leftovers.map((p) => `${p.pid} (${p.command})`).join(', ')}`;
  return {
    topic: 'client.command',
    clause: '(the command under certification)',
    value: {
      command: command.line,
      exitCode: command.exitCode,
      signal: command.signal,
      timedOut: command.timedOut,
      durationMs: command.durationMs,
      leftovers: command.leftovers.map((p) => ({ pid: p.pid, command: p.command })),
    },
    note: `${ended}; shown, never taken for the certification's exit code${left}`,
  };
}

export function buildClientCertification(input: ClientCertificationInput): Certification {
  const spec = loadSpec();
  const at = input.startTime.toISOString();
  const tests: TestOutcome[] = input.checks.map((check) => ({
    titlePath: [input.subject, check.id],
    status: 'passed',
    durationMs: 0,
    errors: [],
    evaluations: evaluate(check, input.run, at),
    observations: [],
  }));
  const observations = [
    ...observationsOf(input.run),
    ...(input.command === undefined ? [] : [commandObservation(input.command)]),
  ];
  const certification = buildCertification({
    checks: input.checks,
    clauses: spec.clauses,
    metadata: {
      ...(input.environmentName === undefined ? {} : { environmentName: input.environmentName }),
      runId: input.run.journal.namespace,
      suiteVersion: suiteVersion(),
      specVersion: spec.version,
      specHash: spec.hash,
      mode: 'client',
      baseUrl: input.baseUrl,
      reportDir: '',
      strict: input.strict,
      requireComplete: input.requireComplete,
      selection: [],
      seed: 0,
      options: { subject: input.subject, ...input.options },
    },
    tests: [
      {
        titlePath: [input.subject, 'journal'],
        status: 'passed',
        durationMs: 0,
        errors: [],
        evaluations: [],
        observations,
      },
      ...tests,
    ],
    suiteErrors: input.suiteErrors,
    startTime: input.startTime,
    durationMs: input.durationMs,
  });
  return {
    ...certification,
    incomplete: certification.incomplete.map((i) =>
      i.cause === 'environment' ? { ...i, reason: UNEXERCISED_REASON } : i,
    ),
  };
}
