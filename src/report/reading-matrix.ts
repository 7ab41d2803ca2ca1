/**
 * The matrix report of pix-certify client --readings: the command run once per reading of the
 * document's silences, each run certified by the one builder (client-certification.ts), composed here
 * into one certification. Each check keeps one row with a cell per reading, its verdict the worst judged
 * cell's, so the run's verdict is the worst cell's. A check only some readings can exercise
 * (`readings: 'some'`) is SKIPPED in the others alone; any other cell left unjudged makes the run
 * INCOMPLETE naming its reading, as does a check no reading judged. Pure, like build.ts.
 */
import type { CheckDefinition } from '../checks/vocabulary.ts';
import {
  certificationOf,
  coverageOf,
  exitCodeOf,
  keptEvidence,
  overall,
  reportedDefinition,
  SEVERITY,
  worst,
} from './build.ts';
import {
  type Certification,
  type CheckResult,
  type Evidence,
  type IncompleteReason,
  type ReadingCell,
  type ReadingColumn,
  type RunInfo,
  type SuiteError,
} from './model.ts';

/** One reading's run of the command, certified alone. */
export interface ReadingRun {
  /** The simulator profile's name (`simulator` for the reference). */
  readonly reading: string;
  readonly description: string;
  readonly certification: Certification;
}

/** What the matrix says of the whole run, beside what each reading's certification says of its own. */
export interface MatrixRun {
  readonly startTime: Date;
  readonly durationMs: number;
  readonly baseUrl: string;
  readonly environmentName?: string | undefined;
  readonly strict: boolean;
  readonly requireComplete: boolean;
}

/** `reading a`, `readings a, b and c`. */
export function readingsText(readings: readonly string[]): string {
  const last = readings.at(-1) ?? '';
  return readings.length <= 1
    ? `reading ${last}`
    : `readings ${readings.slice(0, -1).join(', ')} and ${last}`;
}

/** The cell of a reading whose certification has no row for the check: the composition went wrong. */
function missingCell(reading: string): ReadingCell {
  const reason = `the certification of reading ${reading} has no row for this check`;
  return {
    reading,
    verdict: 'SKIPPED',
    notJudged: { cause: 'error' },
    evidence: [{ verdict: 'SKIPPED', reason }],
    evidenceCount: 1,
  };
}

function cellOf(reading: string, result: CheckResult | undefined): ReadingCell {
  if (result === undefined) return missingCell(reading);
  const { verdict, notJudged, evidence, evidenceCount } = result;
  return {
    reading,
    verdict,
    ...(notJudged === undefined ? {} : { notJudged }),
    ...(evidence === undefined ? {} : { evidence }),
    ...(evidenceCount === undefined ? {} : { evidenceCount }),
  };
}

/** A SKIPPED cell that leaves nothing unjudged: another reading judged a check only some can exercise. */
function skipExpected(check: CheckDefinition, cells: readonly ReadingCell[]): boolean {
  return check.readings === 'some' && cells.some((c) => c.verdict !== 'SKIPPED');
}

/** The row's evidence: each counted cell's, naming its reading, worst first, columns in order. */
function rowEvidence(cells: readonly ReadingCell[]): Evidence[] {
  const items = cells
    .filter((c) => c.verdict !== 'PASSED')
    .flatMap((c) => (c.evidence ?? []).map((item) => ({ ...item, reading: c.reading })));
  return items.sort((a, b) => SEVERITY.indexOf(a.verdict) - SEVERITY.indexOf(b.verdict));
}

function rowOf(check: CheckDefinition, runs: readonly ReadingRun[]): CheckResult {
  const results = runs.map((r) => r.certification.checks.find((c) => c.id === check.id));
  const cells = runs.map((r, index) => cellOf(r.reading, results[index]));
  const verdict = worst(cells.map((c) => c.verdict));
  const counted = skipExpected(check, cells) ? cells.filter((c) => c.verdict !== 'SKIPPED') : cells;
  const firstSkip = cells.find((c) => c.notJudged !== undefined)?.notJudged;
  return {
    ...reportedDefinition(check),
    verdict,
    evaluations: results.reduce((sum, r) => sum + (r?.evaluations ?? 0), 0),
    durationMs: results.reduce((sum, r) => sum + (r?.durationMs ?? 0), 0),
    ...(verdict === 'SKIPPED' ? { notJudged: firstSkip ?? { cause: 'error' } } : {}),
    ...keptEvidence(
      verdict,
      rowEvidence(counted),
      counted.reduce((sum, c) => sum + (c.evidenceCount ?? 0), 0),
    ),
    readings: cells,
  };
}

/** Each reading's own causes of INCOMPLETE, but for checks another reading judged that only some can exercise. */
function incompleteByReading(
  runs: readonly ReadingRun[],
  expected: ReadonlySet<string>,
): Map<string, IncompleteReason[]> {
  return new Map(
    runs.map((r) => [
      r.reading,
      r.certification.incomplete
        .map((i) => ({ ...i, checks: i.checks.filter((id) => !expected.has(id)) }))
        .filter((i) => i.checks.length > 0),
    ]),
  );
}

/** The readings' causes, one per cause, reason and checks, naming every reading that shares it. */
function mergedIncomplete(byReading: ReadonlyMap<string, readonly IncompleteReason[]>): IncompleteReason[] {
  const merged = new Map<string, IncompleteReason & { readings: string[] }>();
  for (const [reading, reasons] of byReading)
    for (const reason of reasons) {
      const key = JSON.stringify([reason.cause, reason.reason, reason.checks]);
      const entry = merged.get(key) ?? { ...reason, readings: [] };
      entry.readings.push(reading);
      merged.set(key, entry);
    }
  return [...merged.values()].map((i) => ({ ...i, reason: `In ${readingsText(i.readings)}: ${i.reason}` }));
}

/**
 * Checks only some readings exercise that none of this run's did: each reading's run is complete
 * without them (their cells say so), the matrix is not.
 */
function unjudgedByAny(checks: readonly CheckDefinition[], rows: readonly CheckResult[]): IncompleteReason[] {
  const ids = checks
    .filter(
      (c, index) =>
        c.readings === 'some' && rows[index]?.readings?.every((cell) => cell.notJudged?.cause === 'reading'),
    )
    .map((c) => c.id);
  return ids.length === 0
    ? []
    : [
        {
          cause: 'environment',
          reason: `No reading of this run exercised ${ids.join(', ')}, which only some readings can: each cell names the reading that would (pix-certify sandbox --profiles); add it to --readings, or run --readings all.`,
          checks: ids,
        },
      ];
}

function suiteErrorsOf(runs: readonly ReadingRun[], checks: readonly CheckDefinition[]): SuiteError[] {
  return runs.flatMap(({ reading, certification }) => {
    const present = new Set(certification.checks.map((c) => c.id));
    const missing = checks.filter((c) => !present.has(c.id)).map((c) => c.id);
    return [
      ...certification.suiteErrors.map((e) => ({ ...e, reading })),
      ...(missing.length === 0
        ? []
        : [
            {
              test: null,
              reading,
              message: `the certification of reading ${reading} has no row for ${missing.join(', ')}: it was built from another catalogue than the matrix`,
            },
          ]),
    ];
  });
}

/** What every reading's run shares: the suite, its document and the options, not the namespace or the name. */
const sharedRun = ({ runId: _runId, environmentName: _name, ...shared }: RunInfo): RunInfo => shared;

const countsOf = (verdicts: readonly CheckResult['verdict'][]): Certification['counts'] => {
  const counts = { PASSED: 0, FAILED: 0, WARNING: 0, SKIPPED: 0 };
  for (const verdict of verdicts) counts[verdict] += 1;
  return counts;
};

/**
 * One certification of every reading's run: a row per check with its cells, the readings as columns
 * (each with its own verdict), the run's verdict the worst cell's, the exit code by the usual rules.
 */
export function readingMatrix(
  runs: readonly ReadingRun[],
  checks: readonly CheckDefinition[],
  run: MatrixRun,
): Certification {
  const [first] = runs;
  if (first === undefined) throw new Error('a reading matrix needs at least one reading');
  const rows = checks.map((check) => rowOf(check, runs));
  const expected = new Set(
    checks.filter((c, index) => skipExpected(c, rows[index]?.readings ?? [])).map((c) => c.id),
  );
  const byReading = incompleteByReading(runs, expected);
  const incomplete = [...mergedIncomplete(byReading), ...unjudgedByAny(checks, rows)];
  const suiteErrors = suiteErrorsOf(runs, checks);
  const counts = countsOf(rows.map((r) => r.verdict));
  const verdict = overall(counts, suiteErrors, incomplete);
  const readings: ReadingColumn[] = runs.map(({ reading, description, certification }) => ({
    name: reading,
    description,
    verdict: overall(
      countsOf(
        rows.flatMap((r) => r.readings?.filter((c) => c.reading === reading) ?? []).map((c) => c.verdict),
      ),
      suiteErrors.filter((e) => e.reading === reading),
      byReading.get(reading) ?? [],
    ),
    runId: certification.run.runId ?? '',
  }));
  const info = {
    ...(run.environmentName === undefined ? {} : { environmentName: run.environmentName }),
    ...sharedRun(first.certification.run),
    baseUrl: run.baseUrl,
    strict: run.strict,
    requireComplete: run.requireComplete,
    startTime: run.startTime.toISOString(),
    endTime: new Date(run.startTime.getTime() + run.durationMs).toISOString(),
    durationMs: Math.round(run.durationMs),
  };
  const clauses = Object.fromEntries(first.certification.coverage.clauses.map((c) => [c.clause, c.title]));
  return certificationOf({
    verdict,
    exitCode: exitCodeOf(verdict, run, undefined, rows),
    incomplete,
    run: info,
    counts,
    checks: rows,
    coverage: coverageOf(rows, clauses),
    observations: runs.flatMap(({ reading, certification }) =>
      certification.observations.map((o) => ({ ...o, reading })),
    ),
    suiteErrors,
    readings,
  });
}
