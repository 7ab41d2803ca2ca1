/**
 * Runs the real suite (npm run certify, or npx playwright test) as a user would, in a child process
 * with its own report directory, and returns its exit code, output and certification report.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDir } from './temporary.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CheckResult {
  readonly id: string;
  readonly verdict: 'PASSED' | 'FAILED' | 'WARNING' | 'SKIPPED';
  readonly level: string;
}

export interface Certification {
  readonly verdict: string;
  readonly exitCode: number;
  readonly checks: readonly CheckResult[];
  readonly [key: string]: unknown;
}

export interface SuiteRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly reportDir: string;
  readonly report: Certification | undefined;
  verdictOf(id: string): CheckResult['verdict'] | undefined;
  idsWith(verdict: CheckResult['verdict']): string[];
}

/** Only the variables a user would set: nothing of this process's PIX_* leaks into the run. */
export function cleanEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PIX_')));
  return { ...base, CI: '1', FORCE_COLOR: '0', ...env };
}

export const PLAYWRIGHT_CLI = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');

/** How a clone's npm scripts load a command's TypeScript (`node --import <this> bin/<command>.ts`). */
export const TYPESCRIPT_LOADER = join(ROOT, 'scripts', 'typescript.mjs');

/** How a user starts the suite: npm run certify (as package.json starts it), or Playwright's own command line. */
const ENTRY_POINTS = {
  certify: ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'certify.ts')],
  playwright: [PLAYWRIGHT_CLI, 'test'],
} as const;

export function runSuite(
  env: Record<string, string>,
  args: readonly string[] = [],
  timeoutMs = 120_000,
  entry: keyof typeof ENTRY_POINTS = 'certify',
): Promise<SuiteRun> {
  const reportDir = env.PIX_REPORT_DIR ?? temporaryDir('pix-run-');
  return runCommand(process.execPath, [...ENTRY_POINTS[entry], ...args], {
    cwd: ROOT,
    env: cleanEnvironment({ PIX_REPORT_DIR: reportDir, ...env }),
    timeoutMs,
    reportDir,
  });
}

/** Runs a command of the suite and reads the certification it left in reportDir, if any. */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; reportDir: string },
): Promise<SuiteRun> {
  const { cwd, env, timeoutMs, reportDir } = options;
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const path = join(reportDir, 'certification.json');
        const report = existsSync(path)
          ? (JSON.parse(readFileSync(path, 'utf8')) as Certification)
          : undefined;
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({
          code,
          stdout,
          stderr,
          reportDir,
          report,
          verdictOf: (id) => report?.checks.find((c) => c.id === id)?.verdict,
          idsWith: (verdict) => (report?.checks ?? []).filter((c) => c.verdict === verdict).map((c) => c.id),
        });
      },
    );
  });
}

/** The lines certify wrote to stderr; each names whose they are. */
export function stopLines(run: SuiteRun): string[] {
  const lines = run.stderr.trim().split('\n');
  for (const line of lines) assert.ok(line.startsWith('pix-certify: '), line);
  return lines.map((line) => line.slice('pix-certify: '.length));
}

/** Stopped as a configuration error, before Playwright: no test ran and no certification was written. */
export function assertStoppedBeforeTheRun(run: SuiteRun): void {
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.equal(run.report, undefined);
  assert.doesNotMatch(run.stdout, /Payout plan/, 'Playwright never started');
}
