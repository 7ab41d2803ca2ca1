/**
 * pix-certify history <report dirs or certification.json files…> [--out FILE] (npm run history -- …
 * in a clone): the history of many runs without running anything. Writes history.html (in the
 * current directory unless --out says where) and prints the table: one row per check, one column per
 * run, oldest first, the checks whose verdict changed first. A file that is not a certification is
 * left out with one line on stderr; exit 0 once the history is written, 2 when no certification
 * could be read or the command line is wrong.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { renderHistoryConsole, renderHistoryHtml } from '../reporters/certification/history.ts';
import { layoutFor } from '../reporters/certification/layout.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { visible } from '../src/base/visible.ts';
import { readHistory } from '../src/report/history.ts';
import { commandHelp, errorPrefix } from './command-help.ts';

const USAGE = commandHelp(
  'history',
  `Each argument is a report directory, a certification.json, or a directory of run directories
(PIX_REPORT_DIR=reports/{runId}). Writes history.html (or --out FILE): a series per environment (its
name and base URL), its runs' verdicts first, a failing run marked, then a chart of the verdicts and
run time and each check's verdict run after run, the checks that changed verdict first; each run
linked to its report. Prints the same tables. The same run given twice counts once.`,
);

function stop(message: string): never {
  process.stderr.write(`${errorPrefix('history')} ${visible(message)}\n`);
  process.exit(2);
}

let values: { out?: string | undefined; help?: boolean | undefined };
let positionals: string[];
try {
  ({ values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  }));
} catch (error) {
  stop(`${(error as Error).message}. ${suiteCommand('history', '--help')} shows the usage.`);
}
if (values.help === true) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (positionals.length === 0)
  stop(
    `give the report directories or certification.json files of the runs. ${suiteCommand('history', '--help')} shows the usage.`,
  );

const history = readHistory(positionals);
for (const line of history.refused)
  process.stderr.write(`${errorPrefix('history')} left out: ${visible(line)}\n`);
if (history.series.length === 0) stop('none of these is a certification, so there is no history to write');
const out = resolve(values.out ?? 'history.html');
try {
  writeFileSync(out, renderHistoryHtml(history, dirname(out)));
} catch (error) {
  stop(
    `could not write ${out} (${(error as NodeJS.ErrnoException).code ?? 'error'}): give --out a file in a directory you can write`,
  );
}
process.stdout.write(renderHistoryConsole(history, layoutFor(process.stdout, process.env), out));
