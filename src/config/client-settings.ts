/**
 * The settings of pix-certify client, read through the configuration's reader like certify's: every
 * problem told at once, naming the variable. A client gate fails closed: unset, PIX_REQUIRE_COMPLETE
 * makes an INCOMPLETE client run exit 1, as a live run does.
 */
import { join, resolve } from 'node:path';
import type { SigningKey } from '../secrets/signing.ts';
import type { Env } from './dotenv.ts';
import { collect } from './pem.ts';
import { Reader } from './reader.ts';
import { readSigningKey } from './signing-key.ts';

/** PIX_CLIENT_TIMEOUT_S's default, in seconds. */
export const DEFAULT_COMMAND_TIMEOUT_S = 600;
/** PIX_CLIENT_WEBHOOK_WAIT_S's default, in seconds. */
export const DEFAULT_WEBHOOK_WAIT_S = 10;
/** The longest a command may run or the webhooks be waited for: a day. */
const MAX_SECONDS = 86_400;

export interface ClientSettings {
  /** <PIX_REPORT_DIR>/client, or <PIX_REPORT_DIR>/handler for a handler alone (never the client's report). */
  readonly reportDir: string;
  readonly handlerReportDir: string;
  readonly signingKey: SigningKey | undefined;
  readonly strict: boolean;
  readonly requireComplete: boolean;
  /** PIX_CLIENT_TIMEOUT_S: the command is stopped after this many seconds (--timeout overrides it). */
  readonly commandTimeoutS: number;
  /** PIX_CLIENT_WEBHOOK_WAIT_S: the longest wait, after the command, for the simulator's webhooks. */
  readonly webhookWaitS: number;
  readonly webhookHosts: readonly string[];
  readonly environmentName: string | undefined;
}

/** The client settings of `env`; a ConfigError names every variable that is wrong. */
export function readClientSettings(env: Env): ClientSettings {
  const read = new Reader(env);
  const reports = resolve(read.text('PIX_REPORT_DIR') ?? 'reports');
  const keyFile = read.text('PIX_SIGNING_KEY_FILE');
  const settings: ClientSettings = {
    reportDir: join(reports, 'client'),
    handlerReportDir: join(reports, 'handler'),
    signingKey: keyFile === undefined ? undefined : collect(read.problems, () => readSigningKey(keyFile)),
    strict: read.flag('PIX_STRICT'),
    requireComplete: read.text('PIX_REQUIRE_COMPLETE') === undefined || read.flag('PIX_REQUIRE_COMPLETE'),
    commandTimeoutS: read.integer('PIX_CLIENT_TIMEOUT_S', DEFAULT_COMMAND_TIMEOUT_S, 1, MAX_SECONDS),
    webhookWaitS: read.integer('PIX_CLIENT_WEBHOOK_WAIT_S', DEFAULT_WEBHOOK_WAIT_S, 1, MAX_SECONDS),
    webhookHosts: (read.text('PIX_SANDBOX_WEBHOOK_HOSTS') ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter((host) => host !== ''),
    environmentName: read.text('PIX_ENV_NAME'),
  };
  read.throwIfAny();
  return settings;
}
