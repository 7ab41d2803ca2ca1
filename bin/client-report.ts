/**
 * The judging half of pix-certify client (bin/client.ts), loaded while the command runs: the client
 * and handler checks on the journal, the certification through certify's builder, and its artifacts
 * through certify's renderers, written to <PIX_REPORT_DIR>/client/.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { suiteCommand } from '../src/base/invocation.ts';
import { consoleLine } from '../src/secrets/redact.ts';
import { CLIENT_CHECKS, type ClientRun } from '../src/checks/client.ts';
import { HANDLER_CHECKS } from '../src/checks/handler.ts';
import { buildClientCertification, type ClientCertificationInput } from '../src/report/client.ts';
import { writeSealedCertification } from '../src/report/integrity.ts';
import type { Certification } from '../src/report/model.ts';
import { REPORT_FILES, SIGNATURE_FILE, writeAtomically } from '../src/run/report-dir.ts';
import type { SigningKey } from '../src/secrets/signing.ts';
import { loadSpec } from '../src/spec/spec.ts';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';
import { layoutFor } from '../reporters/certification/layout.ts';

export type { CommandRun } from '../src/report/client.ts';

export interface Settings {
  readonly reportDir: string;
  readonly signingKey: SigningKey | undefined;
  readonly strict: boolean;
  readonly requireComplete: boolean;
  readonly webhookWaitMs: number;
  readonly webhookHosts: readonly string[];
  readonly environmentName: string | undefined;
}

/** This module, with the document already parsed. */
export function warmed(): { judgeAndWrite: typeof judgeAndWrite } {
  loadSpec();
  return { judgeAndWrite };
}

const shown = (path: string): string => {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
};

async function writeReports(report: Certification, settings: Settings): Promise<void> {
  const dir = settings.reportDir;
  const files = {
    html: join(dir, REPORT_FILES.html),
    json: join(dir, REPORT_FILES.json),
    markdown: join(dir, REPORT_FILES.markdown),
    junit: join(dir, REPORT_FILES.junit),
  };
  const paths = { html: shown(files.html), json: shown(files.json), markdown: shown(files.markdown), junit: shown(files.junit) };
  const artifacts = renderArtifacts(report, paths, layoutFor(process.stdout, process.env));
  await mkdir(dir, { recursive: true });
  await writeAtomically(files.html, artifacts.html);
  await writeAtomically(files.markdown, artifacts.markdown);
  await writeAtomically(files.junit, artifacts.junit);
  const signed = await writeSealedCertification(dir, report, settings.signingKey);
  if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${artifacts.markdown}\n`);
  process.stdout.write(artifacts.console);
  if (signed !== undefined)
    process.stdout.write(`${consoleLine(`Signed: ${shown(join(dir, SIGNATURE_FILE))} (${signed.algorithm}, key ${signed.publicKeyFingerprint}); ${suiteCommand('verify', shown(dir))} checks the report.`)}\n`);
} // prettier-ignore

/** The run judged (the handler checks alone for --handler), its reports written and its closing lines printed. */
export async function judgeAndWrite(
  run: ClientRun,
  settings: Settings,
  input: Omit<ClientCertificationInput, 'run' | 'checks'>,
): Promise<Certification> {
  const checks = input.subject === 'handler' ? HANDLER_CHECKS : [...CLIENT_CHECKS, ...HANDLER_CHECKS];
  const report = buildClientCertification({ ...input, run, checks });
  await writeReports(report, settings);
  return report;
}
