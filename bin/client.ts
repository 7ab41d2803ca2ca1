/**
 * pix-certify client (npm run client -- -- <command…>): certifies an integrator's own client and
 * webhook handler against the simulator (src/run/client-run.ts). This file parses the
 * arguments and joins the parts src/ may not import: sandbox/'s simulator and reporters/' writer.
 */
import { readingList } from '../sandbox/profiles.ts';
import { startSandbox } from '../sandbox/server.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { clientChecks } from '../src/checks/catalogue.ts';
import { readClientSettings, type ClientSettings } from '../src/config/client-settings.ts';
import { ConfigError } from '../src/config/errors.ts';
import { buildClientCertification } from '../src/report/client-certification.ts';
import type { Certification } from '../src/report/model.ts';
import { readingMatrix } from '../src/report/reading-matrix.ts';
import {
  chooseReadings,
  DEFAULT_READING,
  runClientReadings,
  type Reading,
  type ReadingEvidence,
} from '../src/run/client-readings.ts';
import { runClientCertification, type ClientEvidence, type ClientInvocation } from '../src/run/client-run.ts';
import { consoleLine } from '../src/secrets/redact.ts';
import { layoutFor } from '../reporters/certification/layout.ts';
import { writeCertification } from '../reporters/certification/write.ts';
import { parseInvocation, UsageError } from './client-arguments.ts';
import { USAGE } from './client-usage.ts';
import { errorPrefix } from './command-help.ts';

const EXIT_ERROR = 2;
const SIMULATOR_BASE = 'the simulator on loopback (pix-certify client)';
const DEFAULT_READING_TEXT = "the simulator's default: the document read strictly where it is silent";

/** Every line starts with the command as typed, secrets masked and controls escaped. */
function tell(line: string): void {
  process.stderr.write(`${consoleLine(`${errorPrefix('client')} ${line}`)}\n`);
}

/** The evidence judged by the client and handler checks, as certify's model. */
function reportOf(
  evidence: ClientEvidence,
  settings: ClientSettings,
  invocation: ClientInvocation,
): Certification {
  return buildClientCertification({
    ...evidence,
    checks: clientChecks(evidence.subject),
    // Stable from run to run (the port and the namespace are new each time), so that compare and history line runs up.
    baseUrl: invocation.handler ?? SIMULATOR_BASE,
    ...(settings.environmentName === undefined ? {} : { environmentName: settings.environmentName }),
    durationMs: Date.now() - evidence.startTime.getTime(),
    strict: settings.strict,
    requireComplete: settings.requireComplete,
  });
}

/** Written by certify's writer; resolves with the report's exit code. */
async function write(report: Certification, dir: string, settings: ClientSettings): Promise<number> {
  await writeCertification(report, {
    dir,
    signingKey: settings.signingKey,
    layout: layoutFor(process.stdout, process.env),
  });
  return report.exitCode;
}

/** One matrix of checks by readings, each column one reading's certification. */
function matrixOf(
  runs: readonly ReadingEvidence[],
  settings: ClientSettings,
  invocation: ClientInvocation,
  startTime: Date,
): Certification {
  return readingMatrix(
    runs.map(({ reading, evidence }) => ({
      reading: reading.name,
      description: reading.description,
      certification: reportOf(evidence, settings, invocation),
    })),
    clientChecks('client'),
    {
      startTime,
      durationMs: Date.now() - startTime.getTime(),
      baseUrl: SIMULATOR_BASE,
      ...(settings.environmentName === undefined ? {} : { environmentName: settings.environmentName }),
      strict: settings.strict,
      requireComplete: settings.requireComplete,
    },
  );
}

/** The readings the simulator plays, its default first. */
function knownReadings(): Reading[] {
  const listed = readingList().map(({ name, description, clientEnv }) => ({ name, description, clientEnv }));
  return listed.some((r) => r.name === DEFAULT_READING)
    ? listed
    : [{ name: DEFAULT_READING, description: DEFAULT_READING_TEXT, clientEnv: {} }, ...listed];
}

async function main(): Promise<number> {
  let invocation: ClientInvocation | 'help';
  let settings: ClientSettings;
  let readings: Reading[] | undefined;
  try {
    invocation = parseInvocation(process.argv.slice(2));
    if (invocation === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    settings = readClientSettings(process.env);
    const picked =
      invocation.readings === undefined ? undefined : chooseReadings(invocation.readings, knownReadings());
    if (typeof picked === 'string') throw new UsageError(picked);
    readings = picked;
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error;
    for (const line of error.message.split('\n')) tell(line);
    if (error instanceof UsageError) tell(`${suiteCommand('client', '--help')} tells how to use it`);
    return EXIT_ERROR;
  }
  const chosen = invocation;
  const chosenSettings = settings;
  const startTime = new Date();
  const parts = { startSimulator: startSandbox, tell };
  if (readings !== undefined)
    return runClientReadings(chosen, chosenSettings, readings, {
      ...parts,
      certify: (runs) =>
        write(matrixOf(runs, chosenSettings, chosen, startTime), chosenSettings.reportDir, chosenSettings),
    });
  return runClientCertification(chosen, chosenSettings, {
    ...parts,
    certify: (evidence) =>
      write(
        reportOf(evidence, chosenSettings, chosen),
        evidence.subject === 'handler' ? chosenSettings.handlerReportDir : chosenSettings.reportDir,
        chosenSettings,
      ),
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    tell(`suite error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT_ERROR);
  },
);
