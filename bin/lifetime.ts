/**
 * pix-certify lifetime --max <duration>: how long the environment accepts a token, measured alone
 * (src/run/lifetime.ts), with a progress line per use, in a report directory of its own
 * (PIX_REPORT_DIR/lifetime-<run id>: lifetime.json and the ledger); it never touches a
 * certification's reports. Ctrl-C reports what was measured. Exits 0 when measured, 1 when
 * interrupted or not measurable here, 2 on a configuration or command-line mistake.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runIdOfThisRun } from '../src/base/run-state.ts';
import { suiteCommand } from '../src/base/invocation.ts';
import { configOfThisProcess } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';
import { registerConfigSecrets } from '../src/config/register-secrets.ts';
import { checkCredentials } from '../src/preflight/credentials.ts';
import { preflight } from '../src/preflight/preflight.ts';
import { describeLifetime, lifetimeRequests, measureLifetime } from '../src/run/lifetime.ts';
import { redact } from '../src/secrets/redact.ts';
import { apiTls } from '../src/transport/tls.ts';
import { commandHelp, errorPrefix } from './command-help.ts';
import { parseDuration } from '../src/base/duration.ts';

const USAGE = commandHelp(
  'lifetime',
  `Uses tokens once each at ages halving down from the maximum (2h, 90m, 600s or seconds), with a
withdrawal the provider must refuse for its body (live mode, PIX_ALLOW_PAYOUTS=1: each counts against
PIX_MAX_PAYOUTS), and reports the age at which a token stops being accepted, in
PIX_REPORT_DIR/lifetime-<run id>/, where the next certification leaves it be.`,
);

function stop(message: string): never {
  for (const line of redact(message).split('\n'))
    process.stderr.write(`${errorPrefix('lifetime')} ${line}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { max: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const maxSeconds = values.max === undefined ? undefined : parseDuration(values.max);
  if (maxSeconds === undefined)
    stop(`--max needs a duration from 1s to 24h. ${suiteCommand('lifetime', '--help')} shows the usage.`);
  let config;
  try {
    config = configOfThisProcess();
    if (config.mode !== 'live' || !config.allowPayouts)
      throw new ConfigError(
        config.mode === 'live' ? 'PIX_ALLOW_PAYOUTS' : 'PIX_BASE_URL',
        config.mode === 'live' ? 'is not 1' : 'is not set',
        'The probe sends withdrawals to the environment (with a body it must refuse, yet a lax one could pay): set PIX_BASE_URL and PIX_ALLOW_PAYOUTS=1.',
      );
    const requests = lifetimeRequests(maxSeconds);
    if (requests > config.maxPayouts)
      throw new ConfigError(
        'PIX_MAX_PAYOUTS',
        `is ${config.maxPayouts}, and the probe sends up to ${requests} withdrawal requests`,
        'Raise PIX_MAX_PAYOUTS.',
      );
    registerConfigSecrets(config);
    await preflight(config.baseUrl ?? '', config.requestTimeoutMs, apiTls(config.tls));
    await checkCredentials(config);
  } catch (error) {
    if (error instanceof ConfigError) stop(error.message);
    throw error;
  }
  const runId = runIdOfThisRun();
  const dir = join(config.reportDir, `lifetime-${runId}`);
  mkdirSync(dir, { recursive: true });
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    process.stdout.write('\nInterrupted: reporting what was measured.\n');
    interrupt.abort();
  });
  process.stdout.write(`Token lifetime probe against ${config.baseUrl ?? ''}, up to ${maxSeconds} s.\n`);
  const result = await measureLifetime(config, {
    maxSeconds,
    runId,
    dir,
    progress: (line) => process.stdout.write(`${redact(line)}\n`),
    signal: interrupt.signal,
  });
  writeFileSync(join(dir, 'lifetime.json'), `${redact(JSON.stringify({ runId, ...result }, null, 2))}\n`);
  const { line } = describeLifetime(result);
  process.stdout.write(`${redact(line)}\nReport: ${join(dir, 'lifetime.json')}\n`);
  process.exitCode = result.interrupted || result.unmeasurable !== undefined ? 1 : 0;
}

await main();
