/**
 * pix-certify client (npm run client -- -- <command…>): certifies an integrator's own client and
 * webhook handler. Starts the simulator on loopback in a namespace of its own, runs the command with
 * PIX_BASE_URL, PIX_CLIENT_ID, PIX_CLIENT_SECRET, PIX_CERT_CLIENT and PIX_CERT_FILE set to the
 * namespace's, waits (bounded) for the webhooks to settle, judges the journal and writes the report
 * to <PIX_REPORT_DIR>/client/. `--serve` does the same for an application started separately;
 * `--handler <url>` certifies a handler alone. Exits 0 (no FAILED), 1 (FAILED; WARNING under
 * PIX_STRICT=1; INCOMPLETE under PIX_REQUIRE_COMPLETE=1 or PIX_STRICT=1) or 2 (usage or suite error);
 * the command's own exit code is shown, never taken for ours.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { readSigningKey, SIGNING_KEY_VARIABLE } from '../src/config/signing-key.ts';
import type { Journal, OutcomeRow } from '../src/evidence/journal.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { consoleLine } from '../src/secrets/redact.ts';
import type { CommandRun, Settings } from './client-report.ts';
import { settledJournal } from './client-wait.ts';
import { exitCodesText } from './command-help.ts';

const EXIT_ERROR = 2;
const DEFAULT_TIMEOUT_S = 600;
const DEFAULT_WEBHOOK_WAIT_S = 10;
/** After SIGTERM, the command's process group has this long before SIGKILL. */
const KILL_GRACE_MS = 2000;

export const USAGE = `Usage: ${suiteCommand('client', '[--timeout <s>] -- <command…>')}
       ${suiteCommand('client', '--serve [--duration 15m] [--host 127.0.0.1] [--port 0]')}
       ${suiteCommand('client', '--handler <url>')}

Certifies your own client and webhook handler against the simulator (docs/integrators.md). The
simulator starts on loopback in a namespace of its own; the command runs with

  PIX_BASE_URL  PIX_CLIENT_ID  PIX_CLIENT_SECRET  PIX_CERT_CLIENT  PIX_CERT_FILE

set to the namespace's, and every request it sends and every answer its webhook handler gives are
judged when it ends (the CLIENT-… and HANDLER-… checks of docs/checks.md). Make at least two
withdrawals and wait for their webhooks; the amounts of \`${suiteCommand('sandbox', '--outcomes')}\` choose
what the simulator does (a 500, no answer, a 429, a malformed webhook…), which exercises the rest.

Options:
  --timeout <s>         stop the command after this many seconds (PIX_CLIENT_TIMEOUT_S, default ${DEFAULT_TIMEOUT_S})
  --serve               for an application started separately: print the variables, judge on Ctrl-C,
                        SIGTERM or at the end of --duration (default 15m; 90s, 15m, 1h)
  --host, --port        where --serve listens (default 127.0.0.1, a free port); webhooks go to loopback
                        and to the hosts of PIX_SANDBOX_WEBHOOK_HOSTS only
  --handler <url>       certify a webhook handler alone: the simulator sends it each kind of delivery
                        (valid, duplicate, out of order, malformed, extra fields)
  --help, -h            print this help

After the command ends, the simulator's webhooks get at most PIX_CLIENT_WEBHOOK_WAIT_S (default
${DEFAULT_WEBHOOK_WAIT_S}) to settle. The journal keeps the newest 10,000 requests and deliveries.

Reports: <PIX_REPORT_DIR>/client/ (certification.json, certification.html, summary.md, junit.xml;
certification.sig with PIX_SIGNING_KEY_FILE).

${exitCodesText('client')}`;

class UsageError extends Error {}

function tell(line: string): void {
  process.stderr.write(`${consoleLine(`pix-certify client: ${line}`)}\n`);
}

/** `90s`, `15m`, `1h` or plain seconds, in ms. */
export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text.trim());
  if (match === null) throw new UsageError(`--duration ${text}: give a duration such as 90s, 15m or 1h`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h' | undefined ?? 's'];
  return Number(match[1]) * unit;
} // prettier-ignore

function positiveSeconds(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${name} ${text}: give a number of seconds above 0`);
  return value;
} // prettier-ignore

interface Invocation {
  readonly command: readonly string[];
  readonly serve: boolean;
  readonly durationMs: number;
  readonly handler: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly timeoutS: number;
}

export function parseInvocation(args: readonly string[], env: NodeJS.ProcessEnv): Invocation | 'help' {
  const dashes = args.indexOf('--');
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? [] : args.slice(dashes + 1);
  const { values, positionals } = parseArgs({
    args: [...own],
    allowPositionals: true,
    strict: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      serve: { type: 'boolean' },
      duration: { type: 'string' },
      handler: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      timeout: { type: 'string' },
    },
  });
  if (values.help === true) return 'help';
  const unknown = own.filter((a) => a.startsWith('--') && !/^--(help|serve|duration|handler|host|port|timeout)(=|$)/.test(a));
  if (unknown.length > 0) throw new UsageError(`unknown option ${unknown.join(' ')}; the command to certify goes after --`);
  // npm run client -- node app.js: npm drops the first --, so words before any -- are the command.
  const words = command.length > 0 ? command : positionals;
  const modes = [words.length > 0, values.serve === true, typeof values.handler === 'string'].filter(Boolean).length;
  if (modes !== 1) throw new UsageError('give exactly one of: -- <command…>, --serve, --handler <url>');
  return {
    command: words,
    serve: values.serve === true,
    durationMs: durationMs(typeof values.duration === 'string' ? values.duration : '15m'),
    handler: typeof values.handler === 'string' ? values.handler : undefined,
    host: typeof values.host === 'string' ? values.host : '127.0.0.1',
    port: Math.trunc(positiveSeconds(typeof values.port === 'string' ? values.port : undefined, '--port', 0) || 0),
    timeoutS: positiveSeconds(typeof values.timeout === 'string' ? values.timeout : env.PIX_CLIENT_TIMEOUT_S, '--timeout', DEFAULT_TIMEOUT_S),
  };
} // prettier-ignore

interface NamespaceInfo {
  readonly name: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
  readonly certPem: string;
}

/** One call of the simulator's control API; anything but the expected status is a suite error. */
async function controlCall<T>(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.controlToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`the simulator's control API answered ${method} ${path} with ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return (await response.json()) as T;
} // prettier-ignore

/** The five variables of the interface, set to the namespace's. */
function clientEnvironment(ns: NamespaceInfo, certFile: string): Record<string, string> {
  return {
    PIX_BASE_URL: ns.baseUrl,
    PIX_CLIENT_ID: ns.clientId,
    PIX_CLIENT_SECRET: ns.clientSecret,
    PIX_CERT_CLIENT: ns.certClient,
    PIX_CERT_FILE: certFile,
  };
}

/** Runs the command in a process group of its own, stopped (group and all) at the time limit. */
function runCommand(words: readonly string[], env: Record<string, string>, timeoutS: number): Promise<CommandRun> {
  const [file, ...rest] = words;
  const line = words.join(' ');
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(file ?? '', rest, { stdio: 'inherit', env: { ...process.env, ...env }, detached: process.platform !== 'win32' });
    let timedOut = false;
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(process.platform === 'win32' ? child.pid : -child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      tell(`the command ran past ${timeoutS} s (--timeout, PIX_CLIENT_TIMEOUT_S): stopping it`);
      signalGroup('SIGTERM');
      setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS).unref();
    }, timeoutS * 1000);
    const forward = (signal: NodeJS.Signals): void => signalGroup(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const finish = (exitCode: number | null, signal: string | null): void => {
      clearTimeout(timer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      // What the command left behind in its group goes with it.
      signalGroup('SIGKILL');
      done({ line, exitCode, signal, timedOut, durationMs: Math.round(performance.now() - started) });
    };
    child.once('error', (error) => {
      tell(`the command could not start: ${error.message}`);
      finish(null, null);
    });
    child.once('exit', finish);
  });
} // prettier-ignore

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

/** The handler alone: one withdrawal per kind of delivery, each to the handler's URL. */
async function exerciseHandler(ns: NamespaceInfo, outcomes: readonly OutcomeRow[], url: string): Promise<void> {
  const token = await fetch(`${ns.baseUrl}/auth/token`, {
    method: 'POST',
    headers: { accept: 'application/json', client_id: ns.clientId, cert_client: ns.certClient },
    signal: AbortSignal.timeout(10_000),
  });
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const kinds = ['paid', 'webhook-twice', 'out-of-order', 'webhook-extra-fields', 'webhook-malformed'];
  for (const [index, name] of kinds.entries()) {
    const row = outcomes.find((o) => o.name === name);
    if (row === undefined) throw new Error(`the simulator's outcome table has no ${name}`);
    await fetch(`${ns.baseUrl}/pix/payment`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', client_id: ns.clientId, client_secret: ns.clientSecret, authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ amount: row.amount, code: `handler-${index}-${randomBytes(4).toString('hex')}`, name: 'Handler Check', key_type: 'EMAIL', document: '12345678909', key_pix: 'handler@example.com', PostBackUrl: url, check_code: true }),
      signal: AbortSignal.timeout(10_000),
    });
  }
} // prettier-ignore

function settingsOf(env: NodeJS.ProcessEnv): Settings {
  const keyFile = env[SIGNING_KEY_VARIABLE]?.trim();
  return {
    reportDir: join(resolve(env.PIX_REPORT_DIR?.trim() || 'reports'), 'client'),
    signingKey: keyFile === undefined || keyFile === '' ? undefined : readSigningKey(keyFile),
    strict: env.PIX_STRICT === '1',
    requireComplete: env.PIX_REQUIRE_COMPLETE === '1',
    webhookWaitMs: positiveSeconds(env.PIX_CLIENT_WEBHOOK_WAIT_S, 'PIX_CLIENT_WEBHOOK_WAIT_S', DEFAULT_WEBHOOK_WAIT_S) * 1000,
    environmentName: env.PIX_ENV_NAME?.trim() || undefined,
    webhookHosts: (env.PIX_SANDBOX_WEBHOOK_HOSTS ?? '').split(',').map((h) => h.trim()).filter((h) => h !== ''),
  };
} // prettier-ignore

async function certify(invocation: Invocation, settings: Settings): Promise<number> {
  const startTime = new Date();
  const handlerHost = invocation.handler === undefined ? [] : [new URL(invocation.handler).hostname];
  const sandbox = await startSandbox({
    host: invocation.serve ? invocation.host : '127.0.0.1',
    port: invocation.serve ? invocation.port : 0,
    webhookHosts: [...settings.webhookHosts, ...handlerHost],
  });
  registerSecret(sandbox.controlToken);
  const certDir = await mkdtemp(join(tmpdir(), 'pix-client-'));
  try {
    const ns = await controlCall<NamespaceInfo>(sandbox, 'POST', '/_sim/namespaces', {
      name: `client-${randomBytes(6).toString('hex')}`,
      faults: invocation.handler === undefined ? 'realistic' : 'none',
    });
    registerSecret(ns.clientSecret);
    const certFile = join(certDir, 'cert_client.pem');
    await writeFile(certFile, ns.certPem, { mode: 0o600 });
    const env = clientEnvironment(ns, certFile);
    const outcomes = await controlCall<OutcomeRow[]>(sandbox, 'GET', '/_sim/outcomes');
    // The judge and the renderers load while the command runs, on the core it leaves idle: the run adds less to its wall time.
    const reporting = import('./client-report.ts').then((module) => module.warmed());
    let command: CommandRun | undefined;
    if (invocation.handler !== undefined) {
      await exerciseHandler(ns, outcomes, invocation.handler);
    } else if (invocation.serve) {
      const envFile = join(certDir, 'simulator.env');
      await writeFile(envFile, `${Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n')}\n`, { mode: 0o600 });
      const serving = [`The simulator serves namespace ${ns.name} at ${ns.baseUrl}.`, `Give your application the variables of ${envFile} (docker compose --env-file, or: set -a; . ${envFile}; set +a):`, `  PIX_BASE_URL=${ns.baseUrl}`, `  PIX_CLIENT_ID=${ns.clientId}`, `  PIX_CLIENT_SECRET, PIX_CERT_CLIENT, PIX_CERT_FILE: in that file (PIX_CERT_FILE=${certFile})`, `Judged on Ctrl-C, SIGTERM or in ${invocation.durationMs / 1000} s.`];
      process.stdout.write(`${serving.map(consoleLine).join('\n')}\n`);
      tell(`stopped by ${await serveUntilStopped(invocation.durationMs)}; judging`);
    } else {
      command = await runCommand(invocation.command, env, invocation.timeoutS);
      tell(`the command ${command.timedOut ? 'was stopped at the time limit' : command.exitCode !== null ? `exited ${command.exitCode}` : `ended by ${command.signal ?? 'an error'}`} (shown in the report, never taken for this exit code)`);
    }
    const journal = await settledJournal(() => controlCall<Journal>(sandbox, 'GET', `/_sim/namespaces/${ns.name}/journal`), settings.webhookWaitMs);
    const { judgeAndWrite } = await reporting;
    const report = await judgeAndWrite({ journal, outcomes }, settings, {
      subject: invocation.handler === undefined ? 'client' : 'handler',
      // Stable from run to run (the port and the namespace are new each time), so that compare and history line runs up.
      baseUrl: invocation.handler ?? 'the simulator on loopback (pix-certify client)',
      ...(command === undefined ? {} : { command }),
      ...(settings.environmentName === undefined ? {} : { environmentName: settings.environmentName }),
      startTime,
      durationMs: Date.now() - startTime.getTime(),
      strict: settings.strict,
      requireComplete: settings.requireComplete,
      options: { webhookTimeoutMs: journal.limits.webhookTimeoutMs, webhookWaitMs: settings.webhookWaitMs, ...(command === undefined ? {} : { commandTimeoutS: invocation.timeoutS }) },
      suiteErrors: [],
    });
    return report.exitCode;
  } finally {
    await sandbox.close();
    await rm(certDir, { recursive: true, force: true });
  }
} // prettier-ignore

async function main(): Promise<number> {
  let invocation: Invocation | 'help';
  let settings: Settings;
  try {
    invocation = parseInvocation(process.argv.slice(2), process.env);
    if (invocation === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    settings = settingsOf(process.env);
  } catch (error) {
    tell(error instanceof Error ? error.message : String(error));
    if (error instanceof UsageError) tell(`${suiteCommand('client', '--help')} tells how to use it`);
    return EXIT_ERROR;
  }
  return certify(invocation, settings);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    tell(`suite error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT_ERROR);
  },
);
