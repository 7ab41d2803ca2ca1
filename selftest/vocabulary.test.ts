/**
 * One vocabulary across the commands, held to one source (bin/command-help.ts and the variables'
 * table): every command answers --help with its usage and its exit codes, and exits without starting
 * a server; the README's tables of commands, exit codes and strictness say what that source says.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { COMMAND_HELP, exitCodesText, type Command } from '../bin/command-help.ts';
import { VARIABLE_TABLE } from '../src/config/variables.ts';
import { TYPESCRIPT_LOADER } from './support/run-suite.ts';

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const COMMANDS = Object.keys(COMMAND_HELP) as Command[];

/** The cells of the README's table rows, markup (bold, code, escaped bars) taken away. */
const tableRows = (markdown: string): string[][] =>
  markdown
    .split('\n')
    .filter((line) => /^\|.*\|$/.test(line) && !/^\|[\s-|]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) =>
          cell
            .trim()
            .replace(/\*\*|`/g, '')
            .replace(/\\\|/g, '|'),
        ),
    );

describe('every command of pix-certify', () => {
  for (const command of COMMANDS)
    it(`${command} --help prints its usage and exit codes and exits 0, starting nothing`, async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', TYPESCRIPT_LOADER, join(ROOT, 'bin', 'pix-certify.ts'), command, '--help'],
        { cwd: ROOT, timeout: 60_000, env: { ...process.env, PIX_BASE_URL: '' } },
      );
      assert.ok(stdout.includes(exitCodesText(command)), stdout);
      assert.match(stdout, /^Usage: /m);
      assert.doesNotMatch(stdout, /listening|Ctrl-C stops|bound to/i);
    });
});

describe('the README says what the one source says', () => {
  const rows = tableRows(README);

  it('names every command with its purpose', () => {
    for (const command of COMMANDS) {
      const usage = `pix-certify ${COMMAND_HELP[command].usage}`;
      const row = rows.find(([first]) => first?.split(', ').includes(usage));
      assert.ok(row !== undefined, `the README's table of commands has no row for ${usage}`);
      assert.equal(row[1], COMMAND_HELP[command].purpose, usage);
    }
  });

  it("gives the certification's exit codes in the words of --help", () => {
    for (const [code, meaning] of COMMAND_HELP.certify.exitCodes)
      assert.deepEqual(
        rows.find(([first]) => first === String(code)),
        [String(code), meaning],
      );
  });

  it('describes PIX_STRICT and PIX_REQUIRE_COMPLETE as the variables table does', () => {
    for (const name of ['PIX_STRICT', 'PIX_REQUIRE_COMPLETE']) {
      const purpose = VARIABLE_TABLE.find((v) => v.name === name)?.purpose ?? '';
      const row = rows.find(([first]) => first === name);
      assert.ok(row?.[1]?.startsWith(purpose), `${name}: ${row?.[1] ?? 'no row'} | ${purpose}`);
    }
  });
});
