/**
 * The certification as data: what the reporter gathers from Playwright and what it writes. The
 * JSON artifact is this `Certification`, and reporters/certification.schema.json describes it for
 * anyone who reads the file without this code (baselines, dashboards).
 */
import type { Blocker, Capability, Level, Observation, Evaluation, Verdict } from '../checks/vocabulary.ts';
import type { JsonValue } from '../base/json.ts';
import type { WithdrawalSummary } from './withdrawals.ts';

/**
 * The run's verdict, decided in this order: FAILED when a check failed; ERROR when the suite itself
 * went wrong; INCOMPLETE when a check was not judged for a reason the person running the suite can
 * change (see IncompleteCause); then WARNING or PASSED.
 */
export type OverallVerdict = 'PASSED' | 'WARNING' | 'INCOMPLETE' | 'FAILED' | 'ERROR';

/** The report schema this code writes (reporters/certification.schema.json). */
export const SCHEMA_VERSION = 5;

/**
 * The report schemas this code reads: version 3 only added `integrity`, version 4 the `environment`
 * cause of INCOMPLETE and `notJudged.blockedBy`, and version 5 the readings of a matrix report, so
 * version 2, 3 and 4 baselines still compare.
 */
export const READABLE_SCHEMA_VERSIONS = [2, 3, 4, SCHEMA_VERSION] as const;

/** What Playwright tells about one test, reduced to what the certification needs. */
export interface TestOutcome {
  /** Project, file, describe blocks and title. */
  readonly titlePath: readonly string[];
  readonly status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  /** How long the test ran, in milliseconds. */
  readonly durationMs: number;
  readonly errors: readonly string[];
  readonly evaluations: readonly Evaluation[];
  readonly observations: readonly Observation[];
}

/** A problem of the suite, not of the environment: it makes the run ERROR (exit 2) unless a check FAILED. */
export interface SuiteError {
  /** The test's title path joined with ›, or null for an error outside any test. */
  readonly test: string | null;
  readonly message: string;
  /** In a matrix report: the reading whose run went wrong. */
  readonly reading?: string;
}

export interface Evidence {
  readonly verdict: Verdict;
  /** In a matrix report's row: the reading this evidence was found in. */
  readonly reading?: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly reproduction?: string;
  readonly reason?: string;
}

/**
 * Why a check was not judged: the target lacked a capability it needs, the run's selection left
 * its tests out, a test ended with an error before judging it (a suite error says which), what
 * the run found made it moot (no token, a refused withdrawal: the check that found it says so), or
 * the reading of the document's silences the simulator played cannot exercise it (slow answers).
 */
export type SkipCause = 'lacks' | 'selection' | 'error' | 'outcome' | 'reading';

export interface NotJudged {
  readonly cause: SkipCause;
  /** For `lacks`: what the target lacked. */
  readonly lacks?: readonly Capability[];
  /** For `outcome`: the first answer of the environment that stopped it, when the test said which. */
  readonly blockedBy?: Blocker;
}

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly clause: string;
  readonly level: Level;
  readonly reason: string;
  /** What a provider that fails the check should do; absent in reports written before it existed. */
  readonly remedy?: string;
  /** What a finding of the check can cost in money: any finding of it fails the gate (exit 1). */
  readonly money?: string;
  readonly verdict: Verdict;
  /** How many times the check was evaluated in the run. */
  readonly evaluations: number;
  /** The summed durations of the tests that evaluated the check (a test judging several counts for each). */
  readonly durationMs: number;
  /** For a SKIPPED check: why it was not judged. */
  readonly notJudged?: NotJudged;
  /** For a check that did not pass: its first distinct non-passed evaluations, worst first. */
  readonly evidence?: readonly Evidence[];
  /** How many distinct non-passed evaluations there were, of which `evidence` keeps a few. */
  readonly evidenceCount?: number;
  /** In a matrix report: the check's verdict in each reading, in the columns' order. */
  readonly readings?: readonly ReadingCell[];
}

/** One cell of a matrix report: a check's verdict in one reading, with that reading's evidence. */
export interface ReadingCell {
  readonly reading: string;
  readonly verdict: Verdict;
  /** For a SKIPPED cell: why the reading did not judge the check. */
  readonly notJudged?: NotJudged;
  /** For a cell that did not pass: the reading's first distinct non-passed evaluations, worst first. */
  readonly evidence?: readonly Evidence[];
  readonly evidenceCount?: number;
}

/** One column of a matrix report: a reading of the document's silences the client ran against. */
export interface ReadingColumn {
  /** The simulator profile's name (`simulator` for the reference). */
  readonly name: string;
  /** What the reading does where the document is silent, in a sentence. */
  readonly description: string;
  /** The column's own verdict, as the run's verdict is decided, from its cells alone. */
  readonly verdict: OverallVerdict;
  /** The namespace the command ran against in this reading. */
  readonly runId: string;
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

/**
 * What the person running the suite can change to judge more: give a provider instead of the
 * mock, allow payouts, make the webhook receiver reachable, or run the whole suite.
 */
export type IncompleteCause = Capability | 'selection' | 'environment';

/** Checks not judged for one cause the person running the suite can remove. */
export interface IncompleteReason {
  readonly cause: IncompleteCause;
  /** What was missing and how to give it, in a sentence. */
  readonly reason: string;
  readonly checks: readonly string[];
  /** In a matrix report: the readings that left these checks unjudged. */
  readonly readings?: readonly string[];
}

export interface RunInfo {
  /** PIX_ENV_NAME: the label the reports name the environment by; absent, they name it by its base URL. */
  readonly environmentName?: string;
  /** The id in the run's withdrawal codes and ledger lines; absent in reports written before it existed. */
  readonly runId?: string;
  readonly suiteVersion: string;
  /** SHA-256 of the checks the suite judged by; absent in reports written before it existed. */
  readonly catalogueHash?: string;
  readonly specVersion: string;
  readonly specHash: string;
  /** `client`: pix-certify client judged an integrator's client against the simulator. */
  readonly mode: 'mock' | 'live' | 'client';
  readonly baseUrl: string;
  /** PIX_STRICT=1: a WARNING or an INCOMPLETE run exits 1. */
  readonly strict: boolean;
  /** PIX_REQUIRE_COMPLETE=1: an INCOMPLETE run exits 1. */
  readonly requireComplete: boolean;
  /** The selecting options and file filters of the command line (`--grep @auth`); empty: the whole suite. */
  readonly selection: readonly string[];
  /** The seed of the values the run invented (PIX_SEED replays it); absent in reports written before it existed. */
  readonly seed?: number;
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
  /** In a matrix report: the reading it was observed in. */
  readonly reading?: string;
}

/**
 * How a check's verdict moved since the baseline. Better or worse ranks FAILED below WARNING below
 * PASSED; SKIPPED is no judgement at all, so a move to or from it is told apart.
 */
export type CheckChangeKind = 'regressed' | 'improved' | 'new' | 'removed' | 'now-skipped' | 'now-judged';

export interface CheckChange {
  readonly id: string;
  /** Between matrix reports: the reading whose cell changed. */
  readonly reading?: string;
  readonly kind: CheckChangeKind;
  /** Absent for a check the baseline's catalogue lacked. */
  readonly before?: Verdict;
  /** Absent for a check this run's catalogue lacks. */
  readonly after?: Verdict;
  /** The verdict got worse: PASSED to WARNING or FAILED, or WARNING to FAILED. */
  readonly regression: boolean;
}

export type ObservationChangeKind =
  | 'field-removed'
  | 'field-added'
  | 'type-changed'
  | 'value-changed'
  | 'list-changed'
  | 'later'
  | 'first-observed'
  | 'no-longer-observed';

export interface ObservationChange {
  readonly topic: string;
  /** Between matrix reports: the reading it was observed in. */
  readonly reading?: string;
  readonly kind: ObservationChangeKind;
  /** For a field kind: the field's path in the shape (`data.code`, `items[]`, `(body)` for the whole body). */
  readonly field?: string;
  /**
   * What the baseline observed and what this run did, as shown to a person (a type, a status, a
   * delay); for `list-changed`, the names no longer listed and the names newly listed.
   */
  readonly before?: string;
  readonly after?: string;
  /** An observed field disappeared. */
  readonly regression: boolean;
}

export interface RunChange {
  /** `suiteVersion`, `specHash`, `baseUrl`, `options.tokenField`… */
  readonly field: string;
  readonly before: string;
  readonly after: string;
  /** `suite`: the suite or the document it judges by changed; `configuration`: what it was pointed at or told. */
  readonly source: 'suite' | 'configuration';
}

/** A reading one side of a comparison ran against and the other did not: its cells are not compared. */
export interface ReadingChange {
  readonly reading: string;
  readonly kind: 'added' | 'removed';
  /** The column's verdict on the side that has it. */
  readonly verdict: OverallVerdict;
}

/** The run the changes are measured from. */
export interface BaselineRun {
  readonly verdict: OverallVerdict;
  readonly baseUrl: string;
  readonly startTime: string;
  readonly suiteVersion: string;
  readonly specHash: string;
}

/** What changed between a baseline certification and a later one; regressions come first in each list. */
export interface Comparison {
  readonly baseline: BaselineRun;
  /** The run's verdict then and now (PASSED → INCOMPLETE: fewer checks judged, not a worse environment). */
  readonly verdict: { readonly before: OverallVerdict; readonly after: OverallVerdict };
  readonly regressions: number;
  /** The suite's version or its document differ: a change may come from the suite, not the environment. */
  readonly suiteChanged: boolean;
  readonly run: readonly RunChange[];
  readonly checks: readonly CheckChange[];
  readonly observations: readonly ObservationChange[];
  /** Readings only one side ran, when either side is a matrix report. */
  readonly readings?: readonly ReadingChange[];
}

/** A comparison made by the reporter, which also decides whether a regression fails the run. */
export interface Changes extends Comparison {
  /** PIX_FAIL_ON_DRIFT=1: a regression makes the exit code 1. */
  readonly failOnDrift: boolean;
}

/** One artifact of the run as it was written: npm run verify recomputes both. */
export interface ArtifactDigest {
  /** Relative to the report directory. */
  readonly path: string;
  readonly size: number;
  /** Lowercase hex. */
  readonly sha256: string;
}

/** The key that signed certification.json, as certification.sig names it. */
export interface SignatureRecord {
  readonly file: string;
  /** `Ed25519`, `ECDSA-P256-SHA256`, `RSA-PKCS1-SHA256`… */
  readonly algorithm: string;
  /** SHA-256 of the public key's SubjectPublicKeyInfo (DER), lowercase hex. */
  readonly publicKeyFingerprint: string;
}

/**
 * What vouches for the report directory: the size and SHA-256 of every other artifact of the run,
 * taken after each was written, and the signature over certification.json when the run signed it.
 */
export interface Integrity {
  readonly artifacts: readonly ArtifactDigest[];
  /** Present when the run signed certification.json (PIX_SIGNING_KEY_FILE). */
  readonly signature?: SignatureRecord;
}

export interface Certification {
  readonly schemaVersion: (typeof READABLE_SCHEMA_VERSIONS)[number];
  readonly verdict: OverallVerdict;
  readonly exitCode: 0 | 1 | 2;
  /** False when checks were not judged for a reason the person running the suite can remove. */
  readonly complete: boolean;
  /** Each such reason with the checks it left unjudged; a check lacking two capabilities is under both. */
  readonly incomplete: readonly IncompleteReason[];
  readonly run: RunInfo;
  readonly counts: Readonly<Record<Verdict, number>>;
  readonly checks: readonly CheckResult[];
  readonly coverage: Coverage;
  readonly observations: readonly ReportedObservation[];
  readonly suiteErrors: readonly SuiteError[];
  /** Present when the run was compared with a baseline (PIX_BASELINE or certify --baseline). */
  readonly changes?: Changes;
  /**
   * A matrix report (pix-certify client --readings, schema version 5): the readings, one column each,
   * in the order they ran; each check then carries its cells.
   */
  readonly readings?: readonly ReadingColumn[];
  /** What the run's withdrawals did, from its ledger; absent when it sent none (schema version 4). */
  readonly withdrawals?: WithdrawalSummary;
  /**
   * Added when certification.json is written, after every other artifact: they are rendered from
   * the certification, and cannot hold their own hashes. Absent in reports of schema version 2.
   */
  readonly integrity?: Integrity;
}
