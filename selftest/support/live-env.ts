/** The variables of a live run that the self-tests share: one payee, and the sandbox's credentials. */
import { scenarioUrl, type RunningSandbox } from '../../sandbox/server.ts';
import { inventPayee } from './data.ts';

const payee = inventPayee();

/** The integrator's own payee, with payouts allowed: every self-test run sends withdrawals to it. */
export const TEST_PAYEE = {
  PIX_ALLOW_PAYOUTS: '1',
  PIX_PAYEE_KEY_TYPE: 'EVP',
  PIX_PAYEE_KEY: payee.key,
  PIX_PAYEE_DOCUMENT: payee.document,
  PIX_PAYEE_NAME: payee.name,
} as const;

/** A live run against one sandbox scenario; a short webhook wait keeps the "no webhook" faults quick. */
export function sandboxEnv(
  sandbox: RunningSandbox,
  scenario: string,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    PIX_BASE_URL: scenarioUrl(sandbox, scenario),
    PIX_CLIENT_ID: sandbox.credentials.clientId,
    PIX_CLIENT_SECRET: sandbox.credentials.clientSecret,
    PIX_CERT_CLIENT: sandbox.credentials.certClient,
    PIX_WEBHOOK_TIMEOUT_MS: '1500',
    ...TEST_PAYEE,
    ...extra,
  };
}
