/**
 * pix-certify client, the run: the simulator started in a namespace of its own, the integrator's
 * command run against it (or an application served, or a handler exercised alone), the journal once
 * the webhooks settled, then, only once every process the command started has ended, the evidence
 * handed over to be judged and written. A command after which the simulator received no request
 * proves nothing: the run says so as a suite error naming the command and its exit code (exit 2).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientRun } from '../checks/client-requests.ts';
import type { ClientSettings } from '../config/client-settings.ts';
import { consoleLine } from '../secrets/redact.ts';
import { registerSecret } from '../secrets/registry.ts';
import { commandEnvironment, runCommand, type CommandRun } from './command-under-test.ts';
import { exerciseHandler } from './handler-exercise.ts';
import { settledJournal } from './settled-journal.ts';
import { SimulatorControl, type SimulatorNamespace } from './simulator-control.ts';

export interface ClientInvocation {
  /** The command to certify; empty with --serve or --handler. */
  readonly command: readonly string[];
  readonly serve: boolean;
  readonly serveMs: number;
  readonly handler: string | undefined;
  readonly host: string;
  readonly port: number;
  /** --timeout, in place of PIX_CLIENT_TIMEOUT_S. */
  readonly timeoutS: number | undefined;
  /** --readings: `all` or names, to run the command once per reading. */
  readonly readings: string | undefined;
}

/** The simulator as the run needs it (bin/ starts sandbox/'s, which src/ never imports). */
export interface StartedSimulator {
  readonly url: string;
  readonly controlToken: string;
  close(): Promise<void>;
}

export type StartSimulator = (options: {
  readonly host: string;
  readonly port: number;
  readonly webhookHosts: readonly string[];
  /** Told every token as the simulator issues it. */
  readonly onTokenIssued: (token: string) => void;
}) => Promise<StartedSimulator>;

/** Everything the certification is built from. */
export interface ClientEvidence {
  readonly run: ClientRun;
  /** `client`: a command's client and handler; `handler`: a handler alone (--handler). */
  readonly subject: 'client' | 'handler';
  readonly command?: CommandRun;
  readonly startTime: Date;
  readonly suiteErrors: readonly { readonly test: string; readonly message: string }[];
  /** The settings the run used, each named by its variable or option. */
  readonly options: Readonly<Record<string, string | number | boolean>>;
}

export interface ClientRunParts {
  readonly startSimulator: StartSimulator;
  /** One line for the person at the terminal. */
  readonly tell: (line: string) => void;
  /** Judges the evidence and writes the reports; resolves with the exit code. */
  readonly certify: (evidence: ClientEvidence) => Promise<number>;
}

/** The five variables of the interface, set to the namespace's. */
function clientVariables(ns: SimulatorNamespace, certFile: string): Record<string, string> {
  return {
    PIX_BASE_URL: ns.baseUrl,
    PIX_CLIENT_ID: ns.clientId,
    PIX_CLIENT_SECRET: ns.clientSecret,
    PIX_CERT_CLIENT: ns.certClient,
    PIX_CERT_FILE: certFile,
  };
}

/** Until Ctrl-C, SIGTERM or the end of the duration. */
function serveUntilStopped(ms: number): Promise<string> {
  return new Promise((done) => {
    const end = (why: string): void => {
      clearTimeout(timer);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      done(why);
    };
    const onInt = (): void => end('Ctrl-C');
    const onTerm = (): void => end('SIGTERM');
    const timer = setTimeout(() => end(`the end of --duration (${ms / 1000} s)`), ms);
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

const endedText = (command: CommandRun): string =>
  command.timedOut
    ? 'was stopped at the time limit'
    : command.exitCode !== null
      ? `exited ${command.exitCode}`
      : `ended by ${command.signal ?? 'an error'}`;

/** The suite error of a run that proves nothing: no request of the client reached the simulator. */
function nothingSent(command: CommandRun | undefined): { test: string; message: string } {
  const what =
    command === undefined
      ? 'the application served'
      : `the command \`${command.line}\` ${endedText(command)}, and it`;
  return {
    test: 'client',
    message: `${what} sent no request to the simulator (PIX_BASE_URL): nothing was certified. Make sure it runs its tests against PIX_BASE_URL with the credentials it is given (run it alone to see why it sent nothing).`,
  };
}

async function serve(
  ns: SimulatorNamespace,
  variables: Record<string, string>,
  dir: string,
  ms: number,
  tell: (line: string) => void,
): Promise<void> {
  const envFile = join(dir, 'simulator.env');
  const lines = Object.entries(variables).map(([name, value]) => `${name}=${value}`);
  await writeFile(envFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  process.stdout.write(
    [
      `The simulator serves namespace ${ns.name} at ${ns.baseUrl}.`,
      `Give your application the variables of ${envFile} (docker compose --env-file, or: set -a; . ${envFile}; set +a):`,
      `  PIX_BASE_URL=${ns.baseUrl}`,
      `  PIX_CLIENT_ID=${ns.clientId}`,
      `  PIX_CLIENT_SECRET, PIX_CERT_CLIENT, PIX_CERT_FILE: in that file (PIX_CERT_FILE=${variables.PIX_CERT_FILE ?? ''})`,
      `Judged on Ctrl-C, SIGTERM or in ${ms / 1000} s.`,
    ]
      .map((line) => `${consoleLine(line)}\n`)
      .join(''),
  );
  tell(`stopped by ${await serveUntilStopped(ms)}; judging`);
}

/** What one namespace is made as: the provider it plays (a reading), and variables its command also gets. */
export interface NamespacePlan {
  /** The simulator profile the namespace plays; undefined: the simulator's default. */
  readonly profile?: string;
  /** Variables the command gets beside the five, where the reading needs them (PIX_TOKEN_FIELD). */
  readonly extraEnv?: Readonly<Record<string, string>>;
}

/** The client's run in one namespace of a started simulator: made, exercised, and its evidence once settled. */
export async function exerciseNamespace(
  control: SimulatorControl,
  invocation: ClientInvocation,
  settings: ClientSettings,
  plan: NamespacePlan,
  tell: (line: string) => void,
): Promise<ClientEvidence> {
  const startTime = new Date();
  const subject = invocation.handler === undefined ? 'client' : 'handler';
  const dir = await mkdtemp(join(tmpdir(), 'pix-client-'));
  try {
    const ns = await control.createNamespace(
      `client-${randomBytes(6).toString('hex')}`,
      subject === 'client' ? 'realistic' : 'none',
      plan.profile,
    );
    registerSecret(ns.clientSecret);
    const certFile = join(dir, 'cert_client.pem');
    await writeFile(certFile, ns.certPem, { mode: 0o600 });
    const variables = { ...clientVariables(ns, certFile), ...plan.extraEnv };
    const outcomes = await control.outcomes();
    const timeoutS = invocation.timeoutS ?? settings.commandTimeoutS;
    let command: CommandRun | undefined;
    if (invocation.handler !== undefined) await exerciseHandler(ns, outcomes, invocation.handler);
    else if (invocation.serve) await serve(ns, variables, dir, invocation.serveMs, tell);
    else {
      command = await runCommand({
        words: invocation.command,
        env: commandEnvironment(process.env, variables),
        timeoutS,
        marker: `PIX_CLIENT_SECRET=${ns.clientSecret}`,
        tell,
        output: { stdout: process.stdout, stderr: process.stderr },
      });
      tell(`the command ${endedText(command)} (shown in the report, never taken for this exit code)`);
      for (const { pid, command: line } of command.leftovers)
        tell(`ended process ${pid} the command left running: ${line}`);
    }
    const journal = await settledJournal(() => control.journal(ns.name), settings.webhookWaitS * 1000);
    const silent = subject === 'client' && journal.requests.length === 0;
    return {
      run: { journal, outcomes },
      subject,
      ...(command === undefined ? {} : { command }),
      startTime,
      suiteErrors: silent ? [nothingSent(command)] : [],
      options: {
        handlerTimeoutMs: journal.limits.webhookTimeoutMs,
        ...(subject === 'client' ? { PIX_CLIENT_WEBHOOK_WAIT_S: settings.webhookWaitS } : {}),
        ...(command === undefined ? {} : { PIX_CLIENT_TIMEOUT_S: timeoutS }),
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Tokens masked in the command's output at most: the simulator keeps as many per namespace, each costs the registry about 2 KB. */
const MASKED_TOKENS = 10_000;

/** Registers each token the simulator issues, so that no output of the command shows it, up to MASKED_TOKENS. */
function maskingTokens(tell: (line: string) => void): (token: string) => void {
  let issued = 0;
  return (token) => {
    issued += 1;
    if (issued <= MASKED_TOKENS) registerSecret(token, 'token');
    else if (issued === MASKED_TOKENS + 1)
      tell(
        `the simulator issued more than ${MASKED_TOKENS} tokens: those after are not masked in the command's output`,
      );
  };
}

/**
 * The simulator started for the run, its control token a secret and every token it issues one too,
 * closed whatever happens in `use`.
 */
export async function withSimulator<T>(
  invocation: ClientInvocation,
  settings: ClientSettings,
  parts: Pick<ClientRunParts, 'startSimulator' | 'tell'>,
  use: (control: SimulatorControl) => Promise<T>,
): Promise<T> {
  const simulator = await parts.startSimulator({
    host: invocation.serve ? invocation.host : '127.0.0.1',
    port: invocation.serve ? invocation.port : 0,
    webhookHosts: [
      ...settings.webhookHosts,
      ...(invocation.handler === undefined ? [] : [new URL(invocation.handler).hostname]),
    ],
    onTokenIssued: maskingTokens(parts.tell),
  });
  registerSecret(simulator.controlToken);
  try {
    return await use(new SimulatorControl(simulator.url, simulator.controlToken));
  } finally {
    await simulator.close();
  }
}

export function runClientCertification(
  invocation: ClientInvocation,
  settings: ClientSettings,
  parts: ClientRunParts,
): Promise<number> {
  return withSimulator(invocation, settings, parts, async (control) =>
    parts.certify(await exerciseNamespace(control, invocation, settings, {}, parts.tell)),
  );
}
