/**
 * Reading the PEM files the configuration names (a CA, a client certificate and its key, the key that
 * signs the certification). No message here ever quotes a file's contents, only its path and what is
 * wrong with it: a key file's contents are a secret.
 */
import { readFileSync } from 'node:fs';
import type { ConfigProblem } from './errors.ts';
import type { VariableName } from './variables.ts';

/** One problem with one variable; thrown by a file's reader and collected with the others. */
export class FileProblem extends Error {
  readonly problem: ConfigProblem;

  constructor(problem: ConfigProblem) {
    super(problem.line);
    this.problem = problem;
  }
}

export function fileProblem(variable: VariableName, what: string, fix: string): FileProblem {
  return new FileProblem({ variable, line: `${variable}: ${what}. ${fix}` });
}

/** Runs one reader; its problem joins the others and undefined stands in, so that reading goes on. */
export function collect<T>(problems: ConfigProblem[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    problems.push(error.problem);
    return undefined;
  }
}

/** A file's bytes; a problem names the path, never the contents. */
export function readNamedFile(variable: VariableName, path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw code === 'ENOENT'
      ? fileProblem(variable, `'${path}' does not exist`, `Give the path of ${what}.`)
      : fileProblem(
          variable,
          `'${path}' cannot be read (${code})`,
          `Give the path of ${what}, readable by this user.`,
        );
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

/** The PEM blocks of a text whose label matches, e.g. /^CERTIFICATE$/. */
export function pemBlocks(text: string, label: RegExp): string[] {
  return [...text.matchAll(PEM_BLOCK)].filter((m) => label.test(m[1] ?? '')).map((m) => m[0]);
}

/** PKCS#8 and the traditional OpenSSL form of an encrypted key. */
export const ENCRYPTED_KEY = /^-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type: 4,ENCRYPTED/m;
