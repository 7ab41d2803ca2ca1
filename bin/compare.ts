/**
 * pix-certify compare <old> <new> (npm run compare -- … in a clone), each a report directory or its
 * certification.json: what
 * changed between two certifications, without running anything; the same comparison certify
 * --baseline adds to its reports. It also compares two environments (a sandbox and a
 * production-like one). Exits 0 when nothing regressed, 1 on a regression (like diff, whatever
 * PIX_FAIL_ON_DRIFT says), 2 when a file cannot be compared.
 */
import { compareCertifications } from '../src/report/compare.ts';
import { renderChanges } from '../reporters/certification/console.ts';
import { layoutFor } from '../reporters/certification/layout.ts';
import type { Certification } from '../src/report/model.ts';
import { certificationPath, readCertification, UnreadableCertification } from '../src/report/read.ts';
import { visible, visibleJson, visibleLine } from '../src/base/visible.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { commandHelp, errorPrefix, helpAsked } from './command-help.ts';

const USAGE = commandHelp(
  'compare',
  'Each side is a report directory (reports/) or the certification.json in it: the older run first.',
);

function stop(message: string): never {
  process.stderr.write(`${errorPrefix('compare')} ${visible(message)}\n`);
  process.exit(2);
}

/** Read and made visible: what a file says is printed, never obeyed by the terminal. */
function read(path: string): Certification {
  try {
    return visibleJson(readCertification(certificationPath(path)), visibleLine);
  } catch (error) {
    if (error instanceof UnreadableCertification) stop(error.message);
    throw error;
  }
}

const describeRun = (path: string, report: Certification): string =>
  `${path}: ${report.verdict}, ${report.run.mode} against ${report.run.baseUrl}, ${report.run.startTime}, suite ${report.run.suiteVersion}`;

if (helpAsked(process.argv.slice(2))) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const [baselinePath, currentPath, ...extra] = process.argv.slice(2);
if (baselinePath === undefined || currentPath === undefined || extra.length > 0)
  stop(`give two certifications, the older first. ${suiteCommand('compare', '--help')} shows the usage.`);
const baseline = read(baselinePath);
const current = read(currentPath);
const comparison = compareCertifications(baseline, current);
const lines = [
  `Baseline: ${describeRun(visible(baselinePath), baseline)}`,
  `Compared: ${describeRun(visible(currentPath), current)}`,
  '',
  ...renderChanges(comparison, layoutFor(process.stdout, process.env).width),
];
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(comparison.regressions > 0 ? 1 : 0);
