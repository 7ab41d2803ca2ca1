/**
 * The report directory holds what the suite writes and nothing else it would touch, besides what a
 * repository keeps there (.gitkeep, .gitignore, a README). Before a run, a directory that holds
 * anything else is refused (it is most likely the wrong one: a home, a repository's root); reports are written atomically (a temporary file beside the report, then a rename),
 * so an interrupted run leaves the previous certification or the new one, never half of either;
 * and a report that is a symbolic link is replaced, never written through.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LEDGER_FILE } from './ledger.ts';

/** The reports every run writes, by kind. */
export const REPORT_FILES = {
  json: 'certification.json',
  html: 'certification.html',
  markdown: 'summary.md',
  junit: 'junit.xml',
} as const;

/** The detached signature over certification.json, written after it when the run signs (integrity.ts). */
export const SIGNATURE_FILE = 'certification.sig';

/** Playwright's output directory, which earlier versions of the suite kept in the report directory. */
const EARLIER_OUTPUT_DIR = 'test-results';

/** Where `npm run mutate` (stryker.config.json) writes its reports in a clone of the suite: the default reports/. */
const MUTATION_REPORTS_DIR = 'mutation';

/** What a repository or CI keeps in a report directory: the suite leaves them be. */
const KEPT_FILE = /^(\.gitkeep|\.gitignore|README.*)$/;

/** The directories the suite's other commands write beside a certification: lifetime-<run id>, client. */
const COMMAND_DIR = /^(lifetime-[0-9a-z]+|client)$/;

/** `.certification.json.3f9a0c1b.tmp`: a report an interrupted run was writing. */
const TEMPORARY = /^\.(.+)\.[0-9a-f]{16}\.tmp$/;

const OWNED_FILES: ReadonlySet<string> = new Set([
  ...Object.values(REPORT_FILES),
  SIGNATURE_FILE,
  LEDGER_FILE,
]);

function isOwned(name: string, isFile: boolean, isDirectory: boolean): boolean {
  if (name === EARLIER_OUTPUT_DIR || name === MUTATION_REPORTS_DIR || COMMAND_DIR.test(name))
    return isDirectory;
  if (KEPT_FILE.test(name)) return isFile;
  const temporary = TEMPORARY.exec(name);
  return isFile && OWNED_FILES.has(temporary?.[1] ?? name);
}

/**
 * Why the suite must not write to this directory, or undefined when it may: it does not exist
 * yet, or holds only an earlier run's reports. The ledger must be a plain file: it is appended to
 * and never followed through a link.
 */
export function reportDirProblem(dir: string): string | undefined {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory())
      return `PIX_REPORT_DIR: ${dir} is not a directory. Set PIX_REPORT_DIR to a directory of its own for the reports (default: reports).`;
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return `PIX_REPORT_DIR: ${dir} cannot be read (${code ?? 'unknown error'}). Set PIX_REPORT_DIR to a directory this user can write.`;
  }
  const foreign = names.filter((name) => {
    const stat = lstatSync(join(dir, name));
    return !isOwned(name, stat.isFile() || stat.isSymbolicLink(), stat.isDirectory());
  });
  if (foreign.length > 0) {
    const shown =
      foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, and ${foreign.length - 3} more` : '');
    return `PIX_REPORT_DIR: ${dir} holds files this suite did not write (${shown}). Set PIX_REPORT_DIR to an empty or new directory (default: reports); the suite writes there only ${[...OWNED_FILES].join(', ')} (and lifetime-<run id>/ and client/ for its other commands), and leaves .gitkeep, .gitignore and README files be.`;
  }
  if (names.includes(LEDGER_FILE) && lstatSync(join(dir, LEDGER_FILE)).isSymbolicLink())
    return `PIX_REPORT_DIR: ${join(dir, LEDGER_FILE)} is a symbolic link, and the ledger is never written through one. Remove the link (keep the file it points to if you need that ledger).`;
  return undefined;
}

/**
 * Writes the file whole or not at all: a new file beside it (created exclusively, so no link is
 * followed), flushed to disk, then renamed over the old one, which replaces a link rather than
 * writing through it.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
  const file = await open(temporary, 'wx', 0o644);
  try {
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
