/**
 * The certification as data: what the reporter gathers from Playwright and what it writes. The
 * JSON artifact is this `Certification`, and reporters/certification.schema.json describes it for
 * anyone who reads the file without this code (baselines, dashboards).
 */
import type {
  JsonValue,
  Level,
  Observation,
  Evaluation,
  Verdict,
} from '../../tests/_support/checks/types.ts';

/** The run's verdict: a check verdict, or ERROR when the suite itself went wrong. */
export type OverallVerdict = 'PASSED' | 'WARNING' | 'FAILED' | 'ERROR';

/** What Playwright tells about one test, reduced to what the certification needs. */
export interface TestOutcome {
  /** Project, file, describe blocks and title. */
  readonly titlePath: readonly string[];
  readonly status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  readonly errors: readonly string[];
  readonly evaluations: readonly Evaluation[];
  readonly observations: readonly Observation[];
}

/** A problem of the suite, not of the environment: it makes the run ERROR (exit 2) unless a check FAILED. */
export interface SuiteError {
  /** The test's title path joined with ›, or null for an error outside any test. */
  readonly test: string | null;
  readonly message: string;
}

export interface Evidence {
  readonly verdict: Verdict;
  readonly expected?: string;
  readonly actual?: string;
  readonly reproduction?: string;
  readonly reason?: string;
}

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly clause: string;
  readonly level: Level;
  readonly reason: string;
  readonly verdict: Verdict;
  /** How many times the check was evaluated in the run. */
  readonly evaluations: number;
  /** For a check that did not pass: its first distinct non-passed evaluations, worst first. */
  readonly evidence?: readonly Evidence[];
  /** How many distinct non-passed evaluations there were, of which `evidence` keeps a few. */
  readonly evidenceCount?: number;
}

export interface CoveredClause {
  readonly clause: string;
  readonly title: string;
  readonly checks: readonly { readonly id: string; readonly verdict: Verdict }[];
}

export interface Coverage {
  readonly clauses: readonly CoveredClause[];
  /** Clauses of the document that no check names. */
  readonly uncovered: readonly string[];
}

/** A reason some checks were SKIPPED that the person running the suite can remove. */
export interface IncompleteReason {
  readonly reason: string;
  readonly checks: readonly string[];
}

export interface RunInfo {
  readonly suiteVersion: string;
  readonly specVersion: string;
  readonly specHash: string;
  readonly mode: 'mock' | 'live';
  readonly baseUrl: string;
  readonly strict: boolean;
  readonly startTime: string;
  readonly endTime: string;
  readonly durationMs: number;
  readonly options: Readonly<Record<string, string | number | boolean>>;
}

export interface ReportedObservation {
  readonly topic: string;
  readonly clause: string;
  readonly value: JsonValue;
  readonly note?: string;
}

export interface Certification {
  readonly schemaVersion: 1;
  readonly verdict: OverallVerdict;
  readonly exitCode: 0 | 1 | 2;
  /** False when checks were SKIPPED for a reason the person running the suite can remove. */
  readonly complete: boolean;
  readonly incomplete: readonly IncompleteReason[];
  readonly run: RunInfo;
  readonly counts: Readonly<Record<Verdict, number>>;
  readonly checks: readonly CheckResult[];
  readonly coverage: Coverage;
  readonly observations: readonly ReportedObservation[];
  readonly suiteErrors: readonly SuiteError[];
}
