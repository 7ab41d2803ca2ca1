/**
 * The runs `pix-certify history` is timed over: one real certification of the sandbox's reference
 * reading, copied into `count` report directories an hour apart, with a few checks warning in some of
 * them, so that the history has flipped checks to put first, as a month of nightly runs would.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const HOUR_MS = 60 * 60 * 1000;

interface CheckEntry {
  verdict: string;
  evidence?: unknown[];
  evidenceCount?: number;
}

interface Report {
  verdict: string;
  run: { startTime: string; endTime: string; environmentName?: string };
  counts: Record<string, number>;
  checks: CheckEntry[];
}

export interface HistoryRuns {
  /** The report directories, oldest first. */
  readonly dirs: readonly string[];
  /** Where they are, and where history.html goes. */
  readonly workDir: string;
}

export async function historyRuns(
  env: Readonly<Record<string, string>>,
  count: number,
): Promise<HistoryRuns> {
  const workDir = mkdtempSync(join(tmpdir(), 'pix-bench-history-'));
  const first = join(workDir, 'certified');
  await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'certify.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, PIX_REPORT_DIR: first, PIX_ENV_NAME: 'Bench nightly' },
    timeout: 180_000,
  });
  const source = readFileSync(join(first, 'certification.json'), 'utf8');
  const start = Date.parse((JSON.parse(source) as Report).run.startTime) - count * HOUR_MS;
  const dirs = Array.from({ length: count }, (_, index) => {
    const report = JSON.parse(source) as Report;
    const at = (ms: number): string => new Date(start + index * HOUR_MS + ms).toISOString();
    report.run.startTime = at(0);
    report.run.endTime = at(6_000);
    // Every seventh run, three passed checks warn: the checks that flip.
    if (index % 7 === 3) {
      report.verdict = 'WARNING';
      for (const check of report.checks.filter((c) => c.verdict === 'PASSED').slice(0, 3)) {
        check.verdict = 'WARNING';
        check.evidence = [{ verdict: 'WARNING' }];
        check.evidenceCount = 1;
        report.counts.PASSED = (report.counts.PASSED ?? 0) - 1;
        report.counts.WARNING = (report.counts.WARNING ?? 0) + 1;
      }
    }
    const dir = join(workDir, `run-${String(index + 1).padStart(3, '0')}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'certification.json'), JSON.stringify(report));
    return dir;
  });
  return { dirs, workDir };
}
