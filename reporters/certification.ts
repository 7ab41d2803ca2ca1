/**
 * The certification reporter: gathers what every test recorded and, when the run ends, writes
 * certification.html, summary.md, junit.xml and certification.json to the report directory (each
 * whole, by a rename), appends the summary to GITHUB_STEP_SUMMARY when set, and prints the findings
 * and the verdict. certification.json comes last, with the hashes of the others, and with
 * PIX_SIGNING_KEY_FILE certification.sig signs it (certification/integrity.ts). A run that executed
 * no test writes nothing and says why: it certifies nothing, and must not replace a certification
 * that does. Everything printed is scrubbed of secrets and shows control characters and line breaks
 * escaped (consoleLine, src/secrets/redact.ts).
 *
 * With PIX_BASELINE (an absolute path; npm run certify -- --baseline sets it) every report also
 * says what changed since that earlier certification, and PIX_FAIL_ON_DRIFT=1 makes a regression
 * fail the run. Both are read when the run ends, so merge-reports honours them too.
 *
 * The catalogue and the document's clauses come from the suite (src/checks, src/spec). A config may
 * carry its own in `metadata.pixCatalogue` ({ checks, clauses }): the reporter's self-test does,
 * and as config metadata it travels in blob reports, so merge-reports judges against it too.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
  TestStep,
} from '@playwright/test/reporter';
import { catalogue } from '../src/checks/catalogue.ts';
import type { CheckDefinition } from '../src/checks/vocabulary.ts';
import { configOfThisProcess, reportDirOf } from '../src/config/config.ts';
import { type SigningKey } from '../src/secrets/signing.ts';
import type { PixRunMetadata } from '../src/run/run-metadata.ts';
import { documentClauses } from '../src/spec/spec.ts';
import { readHandover } from '../src/report/attachments.ts';
import { consoleLine, redact } from '../src/secrets/redact.ts';
import { buildCertification, type Baseline } from '../src/report/build.ts';
import { shown, writeCertification } from './certification/write.ts';
import { progressLine, stepLine } from './certification/console.ts';
import { causeOf, groupErrors } from '../src/report/errors.ts';
import { layoutFor, type Layout } from './certification/layout.ts';
import { readCertification, UnreadableCertification } from '../src/report/read.ts';
import type { SuiteError, TestOutcome } from '../src/report/model.ts';
import { ConfigError } from '../src/config/errors.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';
import { SIGNING_KEY_VARIABLE } from '../src/config/signing-key.ts';
import { tellRunOutcome } from '../src/base/run-state.ts';
import { readLedger } from '../src/report/withdrawals.ts';
import { LEDGER_FILE } from '../src/run/ledger.ts';
import { markPhase } from '../src/base/phase.ts';

export { buildCertification, type CertificationInput } from '../src/report/build.ts';
export type { Certification, TestOutcome } from '../src/report/model.ts';

export interface CatalogueOverride {
  readonly checks: readonly CheckDefinition[];
  readonly clauses: Readonly<Record<string, string>>;
}

/** Masked before anything cuts it for a line or a report. */
const messageOf = (error: TestError): string => redact(error.message ?? error.value ?? 'unknown error');

/** A test that started: it ran, or skipped itself after recording why (a static skip never starts). */
const executed = (outcome: TestOutcome): boolean =>
  outcome.status !== 'skipped' || outcome.evaluations.length > 0;

const NO_TESTS_FOUND = /^Error: No tests found/;

const MATCH_ALL = String(/.*/);

/**
 * A selection written in a Playwright config rather than on the command line (which metadata.pix
 * carries): its grep, a project's grep, a shard. Command-line filters never show here.
 */
function configuredSelection(config: FullConfig, fromCommandLine: readonly string[]): string[] {
  const patterns = (grep: RegExp | RegExp[] | null, name: string): string[] =>
    (grep === null ? [] : [grep].flat())
      .map(String)
      .filter((pattern) => pattern !== MATCH_ALL)
      .map((pattern) => `${name} ${pattern}`);
  const shard =
    config.shard === null || fromCommandLine.some((s) => s.startsWith('--shard'))
      ? []
      : [`--shard ${config.shard.current}/${config.shard.total}`];
  return [
    ...patterns(config.grep, 'grep'),
    ...patterns(config.grepInvert, 'grepInvert'),
    ...config.projects.flatMap((p) => [
      ...patterns(p.grep, `project ${p.name} grep`),
      ...patterns(p.grepInvert, `project ${p.name} grepInvert`),
    ]),
    ...shard,
  ];
}

/** Text from the environment or from Playwright, made safe to print on its line (consoleLine). */
const safe = consoleLine;

/** bin/certify.ts checked the baseline before the run; a merge-reports run may not have, so a bad one is a suite error. */
function baselineFromEnvironment(suiteErrors: SuiteError[]): Baseline | undefined {
  const path = process.env.PIX_BASELINE?.trim();
  if (path === undefined || path === '') return undefined;
  try {
    return { certification: readCertification(path), failOnDrift: process.env.PIX_FAIL_ON_DRIFT === '1' };
  } catch (error) {
    if (!(error instanceof UnreadableCertification)) throw error;
    suiteErrors.push({ test: null, message: `PIX_BASELINE: ${error.message}` });
    return undefined;
  }
}

export default class CertificationReporter implements Reporter {
  private metadata: PixRunMetadata | undefined;
  private override: CatalogueOverride | undefined;
  /** Keyed by test id: with retries, the last attempt is the test's outcome. */
  private readonly outcomes = new Map<string, TestOutcome>();
  private readonly suiteErrors: SuiteError[] = [];
  /** The progress position of the first test each error cause broke: later ones point there. */
  private readonly firstBroken = new Map<string, string>();
  private readonly layout: Layout = layoutFor(process.stdout, process.env);
  private listing = false;
  private total = 0;
  private signingKey: SigningKey | undefined;
  /** A signing key that cannot be used: the run was asked to sign, so it must not end as if it had. */
  private signingProblem: string | undefined;

  constructor() {
    // In a run, global setup shares the configuration's secrets with every process, this one included;
    // merge-reports on another machine knows only its own configuration, and may have none.
    try {
      const config = configOfThisProcess();
      registerConfigSecrets(config);
      this.signingKey = config.signingKey;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.signingProblem = error.problems.find((p) => p.variable === SIGNING_KEY_VARIABLE)?.line;
    }
  }

  onBegin(config: FullConfig, suite: Suite): void {
    const pix = config.metadata.pix as PixRunMetadata | undefined;
    this.metadata =
      pix === undefined
        ? undefined
        : { ...pix, selection: [...pix.selection, ...configuredSelection(config, pix.selection)] };
    this.override = config.metadata.pixCatalogue as CatalogueOverride | undefined;
    this.listing = config.argv.includes('--list');
    markPhase('tests begin');
    const tests = suite.allTests();
    this.total = tests.length;
    if (this.listing) {
      const titles = tests.map((t) =>
        safe(
          t
            .titlePath()
            .filter((part) => part !== '')
            .join(' › '),
        ),
      );
      process.stdout.write(`${[...titles, `${tests.length} tests; --list runs none of them.`].join('\n')}\n`);
      return;
    }
    const against =
      this.metadata === undefined
        ? ''
        : ` against ${[this.metadata.environmentName, this.metadata.baseUrl].filter((part) => part !== undefined).join(', ')}`;
    process.stdout.write(
      `${safe(`Running ${this.total} tests${against} (${config.workers} ${config.workers === 1 ? 'worker' : 'workers'})`)}\n`,
    );
  }

  /** A test's own steps (test.step: the wait for a webhook) are told once each, as they begin. */
  onStepBegin(_test: TestCase, _result: TestResult, step: TestStep): void {
    if (step.category === 'test.step') process.stdout.write(stepLine(safe(step.title), this.layout));
  }

  /** For the profile: how long each wait for a webhook held its test. */
  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    if (step.category === 'test.step') markPhase(`step: ${step.title}`, step.startTime);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    markPhase(`test: ${test.title}`, result.startTime);
    const titlePath = test.titlePath().filter((part) => part !== '');
    const handover = readHandover(result.attachments);
    for (const problem of handover.problems)
      this.suiteErrors.push({ test: titlePath.join(' › '), message: problem });
    const outcome: TestOutcome = {
      titlePath,
      status: result.status,
      durationMs: result.duration,
      errors: result.errors.map(messageOf),
      evaluations: handover.evaluations,
      observations: handover.observations,
    };
    this.outcomes.set(test.id, outcome);
    const position = `[${String(this.outcomes.size).padStart(String(this.total).length)}/${this.total}]`;
    process.stdout.write(
      progressLine(outcome, safe(test.title), position, this.layout, this.brokeBy(outcome, position)),
    );
  }

  /** What broke the test, told in full the first time its cause appears and as a pointer after. */
  private brokeBy(outcome: TestOutcome, position: string): { cause: string; sameAs?: string } | undefined {
    if (outcome.status === 'passed' || outcome.status === 'skipped') return undefined;
    const cause = safe(causeOf(outcome.errors[0] ?? `the test ended ${outcome.status}`));
    const sameAs = this.firstBroken.get(cause);
    if (sameAs === undefined) this.firstBroken.set(cause, position);
    return sameAs === undefined ? { cause } : { cause, sameAs };
  }

  onError(error: TestError): void {
    this.suiteErrors.push({ test: null, message: messageOf(error) });
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    markPhase('reports begin');
    if (this.metadata === undefined) {
      process.stderr.write(
        'certification: the Playwright config has no metadata.pix (see playwright.config.ts), so no certification was written.\n',
      );
      return { status: 'failed' };
    }
    // PIX_REPORT_DIR wins so that merge-reports on another machine writes where it is told to.
    const setting = process.env.PIX_REPORT_DIR;
    const { runId } = this.metadata;
    const dir = resolve(setting === undefined ? this.metadata.reportDir : reportDirOf(setting, () => runId));
    if (![...this.outcomes.values()].some(executed)) {
      if (!this.listing) this.tellNothingWritten(result, dir);
      return undefined;
    }
    if (result.status === 'interrupted' || result.status === 'timedout') {
      this.suiteErrors.push({
        test: null,
        message: `the run ended ${result.status} before every test had run`,
      });
    }
    const baseline = baselineFromEnvironment(this.suiteErrors);
    if (this.signingProblem !== undefined)
      this.suiteErrors.push({ test: null, message: this.signingProblem });
    const {
      summary: withdrawals,
      refusals,
      paces,
    } = readLedger(dir, this.metadata.runId, shown(join(dir, LEDGER_FILE)));
    const report = buildCertification({
      checks: this.override?.checks ?? catalogue('provider'),
      clauses: this.override?.clauses ?? documentClauses(),
      metadata: this.metadata,
      tests: [...this.outcomes.values()],
      suiteErrors: this.suiteErrors,
      startTime: result.startTime,
      durationMs: result.duration,
      ...(baseline === undefined ? {} : { baseline }),
      ...(withdrawals === undefined ? {} : { withdrawals }),
      refusals,
      paces,
    });
    await writeCertification(report, {
      dir,
      signingKey: this.signingKey,
      layout: this.layout,
      // Every report is written: the CLI that started the run exits with this.
      sealed: () => {
        markPhase('reports written');
        tellRunOutcome({ verdict: report.verdict, exitCode: report.exitCode });
      },
    });
    return undefined;
  }

  /** A run that executed no test certifies nothing, and must not replace a certification that does. */
  private tellNothingWritten(result: FullResult, dir: string): void {
    const selection = this.metadata?.selection ?? [];
    // Playwright reports an empty selection as an error of its own; the selection says it better.
    const stops = this.suiteErrors.filter((e) => !NO_TESTS_FOUND.test(causeOf(e.message)));
    const why =
      stops.length > 0
        ? `the run stopped before its first test: ${groupErrors(stops)
            .map((g) => g.cause)
            .join('; ')}`
        : this.total === 0
          ? `no test matches ${selection.length > 0 ? `this run's selection (${selection.join(' ')})` : 'this run'}`
          : result.status === 'interrupted'
            ? 'the run was interrupted before its first test'
            : `none of the ${this.total} selected tests started`;
    // The first withdrawal may have gone before the stop: the ledger then holds it, and says so.
    const kept = existsSync(join(dir, LEDGER_FILE))
      ? `No report in ${shown(dir)} was changed; its ${LEDGER_FILE} records every withdrawal sent.`
      : `Nothing in ${shown(dir)} was changed.`;
    // One line, like every stop of the suite, so that a log search finds it whole.
    process.stderr.write(
      `${safe(`certification: none written, because no test ran: ${why.replace(/\.+$/, '')}. ${kept}`)}\n`,
    );
  }

  printsToStdio(): boolean {
    return true;
  }
}
