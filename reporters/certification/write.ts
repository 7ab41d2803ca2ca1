/**
 * A certification's artifacts written to its directory, for certify's reporter and for pix-certify
 * client alike: certification.html, summary.md and junit.xml (each whole, by a rename), then
 * certification.json with their hashes and, with a signing key, certification.sig; the summary
 * appended to GITHUB_STEP_SUMMARY when set, and the closing lines printed.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { suiteCommand } from '../../src/base/invocation.ts';
import { consoleLine } from '../../src/secrets/redact.ts';
import { writeSealedCertification } from '../../src/report/integrity.ts';
import type { Certification } from '../../src/report/model.ts';
import { REPORT_FILES, SIGNATURE_FILE, writeAtomically } from '../../src/run/report-dir.ts';
import type { SigningKey } from '../../src/secrets/signing.ts';
import { renderArtifacts } from './artifacts.ts';
import type { Layout } from './layout.ts';
import type { ReportPaths } from './text.ts';

/** Shown relative to the working directory when inside it, which is what a CI log reader needs. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

export interface Destination {
  readonly dir: string;
  readonly signingKey: SigningKey | undefined;
  readonly layout: Layout;
  /** Called once certification.json (and its signature) is written, before anything is printed. */
  readonly sealed?: () => void;
}

export async function writeCertification(report: Certification, destination: Destination): Promise<void> {
  const { dir, signingKey, layout } = destination;
  const files = {
    html: join(dir, REPORT_FILES.html),
    json: join(dir, REPORT_FILES.json),
    markdown: join(dir, REPORT_FILES.markdown),
    junit: join(dir, REPORT_FILES.junit),
  };
  const paths: ReportPaths = {
    html: shown(files.html),
    json: shown(files.json),
    markdown: shown(files.markdown),
    junit: shown(files.junit),
  };
  const artifacts = renderArtifacts(report, paths, layout);
  await mkdir(dir, { recursive: true });
  await writeAtomically(files.html, artifacts.html);
  await writeAtomically(files.markdown, artifacts.markdown);
  await writeAtomically(files.junit, artifacts.junit);
  // Last, with the hashes of the others (its signature follows within the same call).
  const signed = await writeSealedCertification(dir, report, signingKey);
  destination.sealed?.();
  if (process.env.GITHUB_STEP_SUMMARY)
    await appendFile(process.env.GITHUB_STEP_SUMMARY, `${artifacts.markdown}\n`);
  process.stdout.write(artifacts.console);
  if (signed !== undefined)
    process.stdout.write(
      `${consoleLine(`Signed: ${shown(join(dir, SIGNATURE_FILE))} (${signed.algorithm}, key ${signed.publicKeyFingerprint}); ${suiteCommand('verify', shown(dir))} checks the report.`)}\n`,
    );
}
