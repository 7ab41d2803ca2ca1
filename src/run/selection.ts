/**
 * Which part of the suite a run selected. Playwright's command line filters never reach the
 * reporter's configuration (`config.grep` stays `.*` under `--grep @auth`), so playwright.config.ts
 * reads them from the command line it was started with and hands them over in its metadata, which
 * travels in blob reports to merge-reports too. A check that no test judged in a run that selected
 * is "not selected", which the person running the suite can change; in a run of the whole suite it
 * is something else, and the certification says what.
 */

/** Options of `playwright test` that choose the tests to run. */
const SELECTING = new Set([
  '-g',
  '--grep',
  '-G',
  '--grep-invert',
  '--shard',
  '--project',
  '--test-list',
  '--test-list-invert',
  '--last-failed',
  '--only-changed',
]);

/** Options that take a value in the next argument (unless written `--name=value`). */
const WITH_VALUE = new Set([
  '--add-reporter',
  '--browser',
  '-c',
  '--config',
  '--global-timeout',
  '-g',
  '--grep',
  '-G',
  '--grep-invert',
  '--last-failed-file',
  '--max-failures',
  '--output',
  '--repeat-each',
  '--reporter',
  '--retries',
  '--run-agents',
  '--shard',
  '--test-list',
  '--test-list-invert',
  '--timeout',
  '--trace',
  '--tsconfig',
  '--ui-host',
  '--ui-port',
  '--update-source-method',
  '-j',
  '--workers',
]);

/** Options whose value is optional: the next argument is theirs when it is not an option. */
const OPTIONAL_VALUE = new Set(['--only-changed', '--debug', '-u', '--update-snapshots', '--shuffle']);
/** `--project a b c` takes every argument up to the next option. */
const VARIADIC = new Set(['--project']);

/**
 * The selection in the arguments of `playwright test` (what follows `test`), each as `--name value`
 * (`--grep @auth`, `--shard 1/2`) or a file filter (`tests/events`). Empty: the whole suite.
 */
export function selectionIn(args: readonly string[]): string[] {
  const selection: string[] = [];
  for (let at = 0; at < args.length; at += 1) {
    const arg = args[at] ?? '';
    if (arg === '--') break;
    if (!arg.startsWith('-')) {
      selection.push(arg);
      continue;
    }
    const [name = '', inline] = arg.split(/=(.*)/s);
    const values: string[] = inline === undefined ? [] : [inline];
    const isValue = (next: string | undefined): next is string => next !== undefined && !next.startsWith('-');
    if (inline === undefined && WITH_VALUE.has(name) && args[at + 1] !== undefined) {
      at += 1;
      values.push(args[at] ?? '');
    } else if (inline === undefined && (OPTIONAL_VALUE.has(name) || VARIADIC.has(name))) {
      while (isValue(args[at + 1])) {
        at += 1;
        values.push(args[at] ?? '');
        if (!VARIADIC.has(name)) break;
      }
    }
    if (SELECTING.has(name)) selection.push([name, ...values].join(' '));
  }
  return selection;
}

/** The selection of the `playwright test` command this process runs, or none for any other command. */
export function selectionOfThisRun(argv: readonly string[] = process.argv): string[] {
  return argv[2] === 'test' ? selectionIn(argv.slice(3)) : [];
}
