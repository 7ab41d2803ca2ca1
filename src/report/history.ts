/**
 * The history of many runs (pix-certify history): a series per environment (its name and base URL),
 * and in each, every check's verdict run after run, in time order, the checks whose verdict changed
 * first, and each run's counts and duration for the chart. The same run given twice counts once. A
 * directory of run directories (PIX_REPORT_DIR=reports/{runId}) stands for every run in it. Reads
 * every report schema the suite has written, through read.ts; a file that is not a certification is
 * refused with one line and the others still make the history. In a series that holds a matrix report
 * (pix-certify client --readings) a row is a check in one reading, and a plain report's checks are
 * the `simulator` reading's.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Level, Verdict } from '../checks/vocabulary.ts';
import type { Certification, OverallVerdict } from './model.ts';
import { certificationPath, isDirectory, readCertification, UnreadableCertification } from './read.ts';
import { PLAIN_READING } from './compare.ts';

const CERTIFICATION_FILE = 'certification.json';
const HTML_FILE = 'certification.html';

/** One run of the history, as its column is labelled and linked. */
export interface HistoryRun {
  /** The certification.json it was read from. */
  readonly path: string;
  /** The report a person opens: certification.html beside it when present, else the JSON. */
  readonly report: string;
  /** The environment's name (PIX_ENV_NAME), else its base URL. */
  readonly label: string;
  readonly baseUrl: string;
  readonly startTime: string;
  readonly durationMs: number;
  readonly verdict: OverallVerdict;
  readonly counts: Readonly<Record<Verdict, number>>;
}

/** One check across the runs. */
export interface HistoryRow {
  readonly id: string;
  /** In a series that holds a matrix report: the reading of this row. */
  readonly reading?: string;
  readonly title: string;
  readonly clause: string;
  readonly level: Level;
  /** Its verdict in each run, in the runs' order; undefined where the run did not have the check. */
  readonly verdicts: readonly (Verdict | undefined)[];
  /** How many times its verdict changed from one run that had it to the next. */
  readonly changes: number;
  /** The index of the run since which its latest verdict has held. */
  readonly since: number;
}

/** The runs of one environment: its name (PIX_ENV_NAME, else the base URL) and its base URL. */
export interface HistorySeries {
  readonly name: string;
  readonly baseUrl: string;
  /** Oldest first. */
  readonly runs: readonly HistoryRun[];
  /** The checks whose verdict changed first (most changes first), then the others in catalogue order. */
  readonly rows: readonly HistoryRow[];
}

export interface History {
  /** One per environment, the one whose first run is oldest first. */
  readonly series: readonly HistorySeries[];
  /** Arguments that named a run already read (the same directory twice): each counted once. */
  readonly duplicates: number;
  /** One line per argument that was not a certification, saying why. */
  readonly refused: readonly string[];
}

/**
 * The certification.json files an argument stands for: a report directory's, a file as it is, or
 * every run directory's in a directory that holds runs (PIX_REPORT_DIR=reports/{runId}).
 */
export function certificationPaths(argument: string): string[] {
  const path = certificationPath(argument);
  if (!isDirectory(argument) || existsSync(path)) return [path];
  const runs = readdirSync(argument)
    .sort()
    .map((name) => join(argument, name, CERTIFICATION_FILE))
    .filter((file) => existsSync(file));
  return runs.length === 0 ? [path] : runs;
}

function reportOf(path: string): string {
  const html = join(dirname(path), HTML_FILE);
  return basename(path) === CERTIFICATION_FILE && existsSync(html) ? html : path;
}

function runOf(path: string, report: Certification): HistoryRun {
  return {
    path,
    report: reportOf(path),
    label: report.run.environmentName ?? report.run.baseUrl,
    baseUrl: report.run.baseUrl,
    startTime: report.run.startTime,
    durationMs: report.run.durationMs,
    verdict: report.verdict,
    counts: report.counts,
  };
}

/** Reads each argument (a report directory or a certification.json) and builds the history of those it can. */
export function readHistory(paths: readonly string[]): History {
  const read: { path: string; report: Certification }[] = [];
  const refused: string[] = [];
  for (const path of paths.flatMap(certificationPaths)) {
    try {
      read.push({ path, report: readCertification(path) });
    } catch (error) {
      if (!(error instanceof UnreadableCertification)) throw error;
      refused.push(error.message);
    }
  }
  return { ...buildHistory(read), refused };
}

/** What tells one run from another: the same run read twice (a directory given twice) is one run. */
const runKey = ({ run }: Certification): string =>
  JSON.stringify([run.runId ?? '', run.startTime, run.baseUrl, run.environmentName ?? '']);

/** What tells one environment from another: its base URL and the name its runs gave it. */
const environmentKey = ({ run }: Certification): string =>
  JSON.stringify([run.baseUrl, run.environmentName ?? '']);

/** The history of certifications already read: pure, so that the bench and the tests build it alike. */
export function buildHistory(
  certifications: readonly { readonly path: string; readonly report: Certification }[],
): Omit<History, 'refused'> {
  const unique = new Map<string, { readonly path: string; readonly report: Certification }>();
  for (const read of certifications)
    if (!unique.has(runKey(read.report))) unique.set(runKey(read.report), read);
  const environments = new Map<string, { path: string; report: Certification }[]>();
  for (const read of unique.values()) {
    const key = environmentKey(read.report);
    environments.set(key, [...(environments.get(key) ?? []), read]);
  }
  const series = [...environments.values()].map(seriesOf);
  series.sort((a, b) => (a.runs[0]?.startTime ?? '').localeCompare(b.runs[0]?.startTime ?? ''));
  return { series, duplicates: certifications.length - unique.size };
}

function seriesOf(
  certifications: readonly { readonly path: string; readonly report: Certification }[],
): HistorySeries {
  const ordered = [...certifications].sort(
    (a, b) => a.report.run.startTime.localeCompare(b.report.run.startTime) || a.path.localeCompare(b.path),
  );
  const byReading = ordered.some(({ report }) => report.readings !== undefined);
  const byKey = new Map<string, { cell: Cell; verdicts: (Verdict | undefined)[] }>();
  // The newest run's order (the catalogue's) first; checks only older runs had follow.
  for (let index = ordered.length - 1; index >= 0; index--)
    for (const cell of cellsOf(ordered[index]?.report, byReading))
      if (!byKey.has(cellKey(cell))) byKey.set(cellKey(cell), { cell, verdicts: [] });
  ordered.forEach(({ report }, index) => {
    for (const cell of cellsOf(report, byReading)) {
      const row = byKey.get(cellKey(cell));
      if (row !== undefined) row.verdicts[index] = cell.verdict;
    }
  });
  const rows = [...byKey.values()].map(({ cell, verdicts }, order) => {
    const filled = Array.from({ length: ordered.length }, (_, i) => verdicts[i]);
    return { ...rowOf(cell, filled), order };
  });
  rows.sort(
    (a, b) => Math.sign(b.changes) - Math.sign(a.changes) || b.changes - a.changes || a.order - b.order,
  );
  const runs = ordered.map(({ path, report }) => runOf(path, report));
  return {
    name: runs[0]?.label ?? '',
    baseUrl: runs[0]?.baseUrl ?? '',
    runs,
    rows: rows.map(({ order: _order, ...row }) => row),
  };
}

/** A check's verdict in one run, in one reading when the series holds a matrix report. */
interface Cell {
  readonly check: Certification['checks'][number];
  readonly reading?: string;
  readonly verdict: Verdict;
}

const cellKey = (cell: Cell): string => JSON.stringify([cell.check.id, cell.reading ?? null]);

function cellsOf(report: Certification | undefined, byReading: boolean): Cell[] {
  const checks = report?.checks ?? [];
  if (!byReading) return checks.map((check) => ({ check, verdict: check.verdict }));
  if (report?.readings === undefined)
    return checks.map((check) => ({ check, reading: PLAIN_READING, verdict: check.verdict }));
  return checks.flatMap((check) =>
    (check.readings ?? []).map((cell) => ({ check, reading: cell.reading, verdict: cell.verdict })),
  );
}

function rowOf({ check, reading }: Cell, verdicts: readonly (Verdict | undefined)[]): HistoryRow {
  let changes = 0;
  let previous: Verdict | undefined;
  let since = 0;
  verdicts.forEach((verdict, index) => {
    if (verdict === undefined) return;
    if (previous === undefined) since = index;
    else if (verdict !== previous) {
      changes++;
      since = index;
    }
    previous = verdict;
  });
  return {
    id: check.id,
    ...(reading === undefined ? {} : { reading }),
    title: check.title,
    clause: check.clause,
    level: check.level,
    verdicts,
    changes,
    since,
  };
}
