/** Where a run could have written a secret, and the forms a leak would take there. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SuiteRun } from './run-suite.ts';

/** The runs of 8 characters of the secret that the text holds: none means no part of it survived a cut. */
export function secretRunsIn(text: string, secret: string): string[] {
  const runs: string[] = [];
  for (let at = 0; at + 8 <= secret.length; at++) {
    const run = secret.slice(at, at + 8);
    if (text.includes(run)) runs.push(run);
  }
  return runs;
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The forms a leak would take: raw, base64 (the part that does not depend on padding), URL-encoded,
 * and either half of it, which is what a secret cut in two before it was masked leaves.
 */
function leakForms(secret: string): string[] {
  const base64 = Buffer.from(secret).toString('base64');
  const half = Math.floor(secret.length / 2);
  return [
    secret,
    base64.slice(0, Math.floor((secret.length * 4) / 3)),
    encodeURIComponent(secret),
    secret.slice(0, half),
    secret.slice(half),
  ];
}

/** Every place a run wrote: each file of its report directory, its stdout and its stderr. */
export function artifactsOf(run: SuiteRun): { where: string; text: string }[] {
  return [
    ...filesUnder(run.reportDir).map((f) => ({ where: f, text: readFileSync(f, 'utf8') })),
    { where: 'stdout', text: run.stdout },
    { where: 'stderr', text: run.stderr },
  ];
}

/** `where: the start of the form` for each form of each secret found in the run's artifacts. */
export function leaksOf(run: SuiteRun, secrets: readonly string[]): string[] {
  return artifactsOf(run).flatMap(({ where, text }) =>
    secrets.flatMap((secret) =>
      leakForms(secret)
        .filter((form) => text.includes(form))
        .map((form) => `${where}: ${form.slice(0, 12)}…`),
    ),
  );
}
