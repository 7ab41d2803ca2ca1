/**
 * npm run verify -- <report dir> [--fingerprint <hex> | --public-key <file>]: checks, without running
 * anything, that a report directory is what the run wrote and, when certification.sig is there, what
 * its key signed. Exits 0 when valid, 1 when an artifact changed or is missing, the signature is bad
 * or by another key than the pinned one, 2 when the directory or its certification.json cannot be
 * read. One plain line per problem, masked and with control characters shown escaped.
 *
 * `main` takes the arguments after the command, so that a dispatcher routes to it in one line:
 * `process.exit(main(args))`.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { redact } from '../src/secrets/redact.ts';
import { normalFingerprint, publicKeyOf, verifyReportDir } from '../src/report/verify.ts';
import { visible } from '../src/base/visible.ts';
import { fingerprintOf } from '../src/secrets/signing.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { errorPrefix, exitCodesText } from './command-help.ts';

export const USAGE = `Usage: ${suiteCommand('verify', '<report dir> [--fingerprint <hex> | --public-key <file>]')}

Checks a report directory (default of a run: reports/): certification.json's verdict, counts and exit
code follow from its checks, every artifact it lists has the recorded size and SHA-256, and
certification.sig, when present, is a valid signature over the exact bytes of certification.json.
Unsigned, a valid report proves only its own consistency.

Options:
  --fingerprint <hex>   the signing key you expect: SHA-256 of its public key (SubjectPublicKeyInfo, DER),
                        as the run printed it (openssl pkey -pubin -in public.pem -outform DER | sha256sum)
  --public-key <file>   or that public key itself (PEM, or a certificate)
  --help, -h            print this help

Without either, a valid signature proves only that the report is unchanged since the holder of the
key it names signed it.

${exitCodesText('verify')}`;

type Write = (text: string) => void;

const plain = (text: string): string => visible(redact(text));

class UsageError extends Error {}

/** The pinned key's fingerprint, from either option; a pin that cannot be read stops the command. */
function pinOf(fingerprint: string | undefined, publicKeyFile: string | undefined): string | undefined {
  if (fingerprint !== undefined && publicKeyFile !== undefined)
    throw new UsageError('give --fingerprint or --public-key, not both');
  if (fingerprint !== undefined) {
    const hex = normalFingerprint(fingerprint);
    if (hex === undefined)
      throw new UsageError(`--fingerprint: '${fingerprint}' is not a SHA-256 fingerprint (64 hex digits)`);
    return hex;
  }
  if (publicKeyFile === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(publicKeyFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UsageError(`--public-key: '${publicKeyFile}' cannot be read (${code})`);
  }
  const key = publicKeyOf(pem);
  if (key === undefined)
    throw new UsageError(`--public-key: '${publicKeyFile}' holds no PEM public key or certificate`);
  return fingerprintOf(key);
}

function parsed(argv: readonly string[]): { help: boolean; dir?: string; pin?: string } {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        fingerprint: { type: 'string' },
        'public-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) return { help: true };
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0)
    throw new UsageError(`give one report directory: ${suiteCommand('verify', '<report dir>')}`);
  const pin = pinOf(values.fingerprint, values['public-key']);
  return { help: false, dir, ...(pin === undefined ? {} : { pin }) };
}

/** Verifies the report directory the arguments name; returns the exit code. */
export function main(
  argv: readonly string[],
  out: Write = (text) => process.stdout.write(text),
  err: Write = (text) => process.stderr.write(text),
): 0 | 1 | 2 {
  let args: ReturnType<typeof parsed>;
  try {
    args = parsed(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(
      `${errorPrefix('verify')} ${plain(error.message)}. ${suiteCommand('verify', '--help')} shows the usage.\n`,
    );
    return 2;
  }
  if (args.help || args.dir === undefined) {
    out(`${USAGE}\n`);
    return 0;
  }
  let result: ReturnType<typeof verifyReportDir>;
  try {
    result = verifyReportDir(args.dir, args.pin);
  } catch (error) {
    // Never 1: that would say the report changed, which nothing has shown.
    err(
      `${errorPrefix('verify')} could not verify ${plain(args.dir)}: ${plain(error instanceof Error ? error.message : String(error))}\n`,
    );
    return 2;
  }
  const verdict =
    result.exitCode === 0
      ? `Valid: ${args.dir}`
      : `Not valid (exit ${result.exitCode}): ${args.dir}, ${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'}`;
  const lines = [...result.problems.map((p) => p.line), ...result.notes, verdict];
  out(`${lines.map(plain).join('\n')}\n`);
  return result.exitCode;
}

/** Run as a command (npm run verify), not imported by a dispatcher; through a link too, which must never exit 0 unchecked. */
function runAsCommand(): boolean {
  const script = process.argv[1];
  return (
    script !== undefined && existsSync(script) && import.meta.url === pathToFileURL(realpathSync(script)).href
  );
}

if (runAsCommand()) process.exitCode = main(process.argv.slice(2));
