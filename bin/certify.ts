/**
 * npm run certify: validates the configuration, checks the environment can be reached and the payout
 * plan fits the budget, runs the Playwright suite and exits 0 (no FAILED), 1 (FAILED, or WARNING under
 * PIX_STRICT=1, or INCOMPLETE under PIX_REQUIRE_COMPLETE=1 or PIX_STRICT=1, or a regression since the
 * baseline under PIX_FAIL_ON_DRIFT=1) or 2 (configuration or suite error, or no certification written).
 * `--baseline <certification.json>` (or PIX_BASELINE) compares the run with an earlier one; `--help` and
 * `--version` print and exit 0; Playwright's own flags pass through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readRunOutcome, runStateEnvironment, type RunOutcome } from '../src/base/run-state.ts';
import { cacheCompiledCode } from '../src/base/compile-cache.ts';
import { YOUNG_GENERATION_FLAG } from '../src/base/young-generation.ts';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { admissionProblem, shareEnvironmentChecks } from '../src/run/admission.ts';
import { startEnvironmentChecks } from '../src/run/environment-checks.ts';
import { configOfThisProcess, type Config } from '../src/config/config.ts';
import { launchMock } from '../src/run/mock/prism.ts';
import { serveMockFront } from '../src/run/mock/front.ts';
import { PLAYWRIGHT_CONFIG_PATH, suiteModule } from '../src/base/paths.ts';
import { redact } from '../src/secrets/redact.ts';
import { ConfigError } from '../src/config/errors.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';
import { markPhase } from '../src/base/phase.ts';
import { NODE_LOADS_SOURCES } from '../src/run/playwright-options.ts';
import { pathToFileURL } from 'node:url';

const EXIT = { passed: 0, failed: 1, error: 2 } as const;
const require = createRequire(import.meta.url);
const PLAYWRIGHT_CLI = require.resolve('@playwright/test/cli');
const OPTIONS_MODULE = pathToFileURL(suiteModule('src/run/playwright-options')).href;

/** The message, each of its lines prefixed so that CI logs show whose they are. */
function tell(message: string): void {
  for (const line of redact(message).split('\n')) process.stderr.write(`pix-certify: ${line}\n`);
}

/** Set once the run stops with exit 2: Playwright's exit, if its runner started, must not turn that into another code. */
let stopped = false;

/** Exit 2 with the message. */
function stop(message: string): never {
  stopped = true;
  tell(message);
  process.exit(EXIT.error);
}

/** --help and --version answer before the configuration is read: a broken one must not hide them. */
async function answerInfoFlags(args: readonly string[]): Promise<void> {
  const help = args.includes('--help') || args.includes('-h');
  if (!help && !args.includes('--version')) return;
  const { helpText, versionText } = await import('./usage.ts');
  process.stdout.write(`${help ? helpText() : versionText()}\n`);
  process.exit(EXIT.passed);
}

/**
 * Playwright's runner on the suite's own configuration, wherever the user runs from (a --config of
 * theirs comes later and wins), in this very process: its command line (`@playwright/test/cli`), as its
 * bin starts it, so that the run's tree holds no node process of its own for it (docs/performance.md).
 * Playwright ends the process when the run ends; `exitCode` turns its exit code into the certification's.
 */
function runPlaywrightHere(
  args: readonly string[],
  env: Record<string, string>,
  exitCode: (playwrightCode: number) => number,
): void {
  Object.assign(process.env, env);
  // Workers are forked with this process's flags: not the TypeScript loader this process may run under
  // (Playwright compiles the tests itself), the young generation's bound (docs/performance.md) and, where
  // Node loads src/ itself, the configuration's module of src/ before Playwright's hooks can transform it.
  process.execArgv = [YOUNG_GENERATION_FLAG, ...(NODE_LOADS_SOURCES ? ['--import', OPTIONS_MODULE] : [])];
  process.once('exit', (code) => {
    if (!stopped) process.exitCode = exitCode(code);
  });
  process.argv = [process.execPath, PLAYWRIGHT_CLI, 'test', '--config', PLAYWRIGHT_CONFIG_PATH, ...args];
  markPhase('Playwright runner loads');
  require(PLAYWRIGHT_CLI);
}

/** `--baseline <path>` or `--baseline=<path>` is certify's own option: Playwright never sees it. */
function takeBaseline(args: readonly string[]): { path: string | undefined; rest: string[] } {
  const at = args.findIndex((a) => a === '--baseline' || a.startsWith('--baseline='));
  if (at === -1) return { path: undefined, rest: [...args] };
  const inline = args[at]?.startsWith('--baseline=') === true;
  const path = inline ? args[at]?.slice('--baseline='.length) : args[at + 1];
  if (path === undefined || path === '')
    stop('--baseline: no path given. Use --baseline <certification.json of an earlier run>.');
  return { path, rest: args.filter((_, i) => i !== at && (inline || i !== at + 1)) };
}

/** A baseline that cannot be compared is a configuration error, reported before anything is sent. */
async function baselineEnvironment(
  path: string | undefined,
  failOnDrift: boolean,
): Promise<Record<string, string>> {
  if (path === undefined) return {};
  const { readCertification, UnreadableCertification } = await import('../src/report/read.ts');
  try {
    readCertification(path);
  } catch (error) {
    if (error instanceof UnreadableCertification) stop(`baseline: ${error.message}`);
    throw error;
  }
  return { PIX_BASELINE: resolve(path), PIX_FAIL_ON_DRIFT: failOnDrift ? '1' : '0' };
}

/** Exit 2 for an error: a configuration mistake in its own words, anything else as a suite error. */
function stopWith(error: unknown): never {
  if (error instanceof ConfigError) stop(error.message);
  stop(`suite error: ${error instanceof Error ? error.message : String(error)}`);
}

async function main(): Promise<void> {
  markPhase('pix-certify loaded');
  cacheCompiledCode();
  await answerInfoFlags(process.argv.slice(2));
  const { path: baselinePath, rest: args } = takeBaseline(process.argv.slice(2));
  const listOnly = args.includes('--list');
  const passThrough = args.filter((a) => a !== '--list');
  // A configuration mistake reaches stopWith, which says it in its own words.
  const config = configOfThisProcess();
  registerConfigSecrets(config);
  markPhase('configuration read');
  const baseline = await baselineEnvironment(baselinePath ?? config.baseline, config.failOnDrift);
  const dryRun = listOnly || config.dryRun;
  const refused = dryRun ? undefined : await admissionProblem(config);
  if (refused !== undefined) stop(refused);
  if (dryRun) {
    const { describePlan, planFor } = await import('../src/run/plan.ts');
    process.stdout.write(`${describePlan(config, planFor(config))}\n\n`);
    // Playwright selects the tests as a run would (--grep, --grep-invert, tags, --shard, file filters)
    // without running them; the reporter prints the checks they judge.
    const listing = ['--list', `--reporter=${suiteModule('reporters/check-list')}`, ...passThrough];
    runPlaywrightHere(listing, {}, (code) => code);
    return;
  }
  // Served from a thread of this process, started before Playwright's runner loads so that Prism's
  // loading takes the other core meanwhile. The workers wait for it themselves; if it never comes up,
  // this says why.
  const mock = config.mode === 'mock' ? await launchMock() : undefined;
  markPhase('Prism thread launched');
  void mock?.ready.then(() => markPhase('Prism listens'));
  mock?.ready.catch((error: unknown) =>
    process.stderr.write(`pix-certify: ${error instanceof Error ? error.message : String(error)}\n`),
  );
  // The tests talk to our front of the mock, which keeps Prism's webhooks from following its refusals.
  const front = mock && (await serveMockFront({ upstream: mock.url, upstreamReady: mock.ready }));
  // Checked while Playwright's runner loads; global setup waits for them before anything else is sent.
  markPhase('mock front listens');
  const { checked } = await startEnvironmentChecks(config, stopWith);
  shareEnvironmentChecks(checked);
  // Global setup prints the plan: Playwright has loaded the spec and the cases by then, and a mock
  // run need not wait for them here.
  const outcomeDir = mkdtempSync(join(tmpdir(), 'pix-outcome-'));
  const outcomeFile = join(outcomeDir, 'outcome.json');
  const env = { ...baseline, ...runStateEnvironment({ mockUrl: front?.url, outcomeFile }) };
  runPlaywrightHere(passThrough, env, (playwrightCode) =>
    exitCodeOf(config, passThrough, playwrightCode, readRunOutcome(outcomeFile)),
  );
  // After the exit code is read from it, whichever way the run ends: a stop by the environment's
  // checks (exit 2) reads nothing, and left the directory behind when it was removed only there.
  process.once('exit', () => rmSync(outcomeDir, { recursive: true, force: true }));
}

/** The certification's exit code, the single place where the verdict becomes one. */
function exitCodeOf(
  config: Config,
  passThrough: readonly string[],
  playwrightCode: number,
  outcome: RunOutcome | undefined,
): number {
  const code = outcome?.exitCode;
  if (code === undefined && passThrough.some((a) => a.startsWith('--reporter'))) {
    // The user chose other reporters (e.g. blob for a shard): the certification comes from the merge.
    process.stderr.write(
      `pix-certify: --reporter replaced the certification reporter; build it with npx playwright merge-reports --reporter ${suiteModule('reporters/certification')} <blob dirs>.\n`,
    );
    return playwrightCode;
  }
  if (code === undefined) {
    tell(
      `no certification was written (Playwright exit ${playwrightCode}): the lines above say why; ${join(config.reportDir, 'certification.json')} was left as it was.`,
    );
    return EXIT.error;
  }
  return code;
}

main().catch(stopWith);
