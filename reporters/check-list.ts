/**
 * The reporter of `pix-certify list` (certify --list): Playwright selects the tests as a run would
 * (its --grep, --grep-invert, tags, --shard and file filters) and runs none; this prints the checks
 * those tests declare, each once, with its level, clause, title and the tags of the selected tests
 * that judge it. It writes no file: a listing is not a run.
 */
import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';
import { catalogue } from '../src/checks/catalogue.ts';
import { declaredChecks } from '../src/checks/declare.ts';

/** Each check id declared by the selected tests, with the tags of those tests. */
function selectedChecks(suite: Suite): Map<string, Set<string>> {
  const tagsOf = new Map<string, Set<string>>();
  for (const test of suite.allTests())
    for (const id of declaredChecks(test.annotations) ?? []) {
      const tags = tagsOf.get(id) ?? new Set<string>();
      for (const tag of test.tags) tags.add(tag);
      tagsOf.set(id, tags);
    }
  return tagsOf;
}

function padded(cells: readonly (readonly string[])[]): string[] {
  const widths =
    cells[0]?.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0))) ?? [];
  return cells.map((row) =>
    `  ${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ')}`.trimEnd(),
  );
}

export default class CheckListReporter implements Reporter {
  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    const tagsOf = selectedChecks(suite);
    const all = catalogue('provider');
    const checks = all.filter((check) => tagsOf.has(check.id));
    // The level the run will report: a `must` check warns for the answers where the document is ambiguous.
    const rows = checks.map((c) => [
      c.id,
      c.ambiguous === undefined ? c.level : `${c.level} (${c.ambiguous})`,
      c.clause,
      c.title,
      [...(tagsOf.get(c.id) ?? [])].sort().join(' '),
    ]);
    const tests = suite.allTests().length;
    process.stdout.write(
      [
        `${checks.length} of ${all.length} checks, judged by the ${tests} selected tests (level: must can FAIL, should only WARN):`,
        ...padded([['id', 'level', 'clause', 'title', 'tags'], ...rows]),
        '',
        'Listed only: nothing was sent and no report was written.',
        '',
      ].join('\n'),
    );
  }
}
