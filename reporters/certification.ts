/**
 * The certification reporter: gathers what every test recorded and, when the run ends, writes
 * certification.json, certification.html and summary.md to the report directory, appends the
 * summary to GITHUB_STEP_SUMMARY when set, and prints the findings and the verdict.
 *
 * With PIX_BASELINE (an absolute path; npm run certify -- --baseline sets it) every report also
 * says what changed since that earlier certification, and PIX_FAIL_ON_DRIFT=1 makes a regression
 * fail the run. Both are read when the run ends, so merge-reports honours them too.
 *
 * The catalogue and the document's clauses come from the suite (tests/_support). A config may
 * carry its own in `metadata.pixCatalogue` ({ checks, clauses }): the reporter's self-test does,
 * and as config metadata it travels in blob reports, so merge-reports judges against it too.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { catalogue } from '../tests/_support/checks/catalogue.ts';
import type { CheckDefinition } from '../tests/_support/checks/types.ts';
import { ConfigError, loadConfig } from '../tests/_support/config.ts';
import { registerConfigSecrets } from '../tests/_support/redact.ts';
import type { PixRunMetadata } from '../tests/_support/run-metadata.ts';
import { documentClauses } from '../tests/_support/spec.ts';
import { readHandover } from './certification/attachments.ts';
import { scrub } from './certification/scrub.ts';
import { buildCertification, type Baseline } from './certification/build.ts';
import { progressLine, renderConsole } from './certification/console.ts';
import { renderHtml } from './certification/html.ts';
import { renderJunit } from './certification/junit.ts';
import { renderMarkdown } from './certification/markdown.ts';
import { readCertification, UnreadableCertification } from './certification/read.ts';
import type { SuiteError, TestOutcome } from './certification/model.ts';
import type { ReportPaths } from './certification/text.ts';

export { buildCertification, type CertificationInput } from './certification/build.ts';
export { scrub } from './certification/scrub.ts';
export type { Certification, TestOutcome } from './certification/model.ts';

export interface CatalogueOverride {
  readonly checks: readonly CheckDefinition[];
  readonly clauses: Readonly<Record<string, string>>;
}

/** Shown relative to the working directory when inside it, which is what a CI log reader needs. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** Masked before anything cuts it for a line or a report. */
const messageOf = (error: TestError): string => scrub(error.message ?? error.value ?? 'unknown error');

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
  private total = 0;

  constructor() {
    // In a run, global setup shares the configuration's secrets with every process, this one included;
    // merge-reports on another machine knows only its own configuration, and may have none.
    try {
      registerConfigSecrets(loadConfig());
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.metadata = config.metadata.pix as PixRunMetadata | undefined;
    this.override = config.metadata.pixCatalogue as CatalogueOverride | undefined;
    this.total = suite.allTests().length;
    process.stdout.write(
      `Running ${this.total} tests (${config.workers} ${config.workers === 1 ? 'worker' : 'workers'})\n`,
    );
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const titlePath = test.titlePath().filter((part) => part !== '');
    const handover = readHandover(result.attachments);
    for (const problem of handover.problems)
      this.suiteErrors.push({ test: titlePath.join(' › '), message: problem });
    const outcome: TestOutcome = {
      titlePath,
      status: result.status,
      errors: result.errors.map(messageOf),
      evaluations: handover.evaluations,
      observations: handover.observations,
    };
    this.outcomes.set(test.id, outcome);
    process.stdout.write(scrub(progressLine(outcome, test.title, this.outcomes.size, this.total)));
  }

  onError(error: TestError): void {
    this.suiteErrors.push({ test: null, message: messageOf(error) });
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    if (this.metadata === undefined) {
      process.stderr.write(
        'certification: the Playwright config has no metadata.pix (see playwright.config.ts), so no certification was written.\n',
      );
      return { status: 'failed' };
    }
    if (result.status === 'interrupted' || result.status === 'timedout') {
      this.suiteErrors.push({
        test: null,
        message: `the run ended ${result.status} before every test had run`,
      });
    }
    const baseline = baselineFromEnvironment(this.suiteErrors);
    const report = buildCertification({
      checks: this.override?.checks ?? catalogue(),
      clauses: this.override?.clauses ?? documentClauses(),
      metadata: this.metadata,
      tests: [...this.outcomes.values()],
      suiteErrors: this.suiteErrors,
      startTime: result.startTime,
      durationMs: result.duration,
      ...(baseline === undefined ? {} : { baseline }),
    });
    // PIX_REPORT_DIR wins so that merge-reports on another machine writes where it is told to.
    const dir = resolve(process.env.PIX_REPORT_DIR ?? this.metadata.reportDir);
    const files: ReportPaths = {
      html: join(dir, 'certification.html'),
      json: join(dir, 'certification.json'),
      markdown: join(dir, 'summary.md'),
      junit: join(dir, 'junit.xml'),
    };
    const paths: ReportPaths = {
      html: shown(files.html),
      json: shown(files.json),
      markdown: shown(files.markdown),
      junit: shown(files.junit),
    };
    const markdown = renderMarkdown(report, paths);
    await mkdir(dir, { recursive: true });
    await writeFile(files.json, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(files.html, renderHtml(report));
    await writeFile(files.markdown, markdown);
    await writeFile(files.junit, renderJunit(report));
    if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
    process.stdout.write(renderConsole(report, paths));
    return undefined;
  }

  printsToStdio(): boolean {
    return true;
  }
}
