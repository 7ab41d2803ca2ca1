/**
 * What pix-certify checks of the environment before a run, one after the other, each a configuration
 * mistake that stops it: a remote webhook receiver must answer and take the token before anything is
 * sent; then, live, the preflight's one harmless request; then the credentials, so that a provider
 * refusing ours stops the run naming the variables (our mistake or theirs) instead of failing a dozen
 * checks; last, a live run that may pay proves its public webhook address reaches its receiver
 * (webhook/address-probe.ts). They resolve to the token the credentials' request was issued, which the workers use, and
 * to when the last request was answered, which the run's rate limit counts.
 */
import type { Config } from '../config/config.ts';
import type { EnvironmentChecked } from './admission.ts';

/**
 * The turns of the event loop a live run gives the checks' first request before Playwright's runner
 * loads: in the first its connection is opened, in the second that opening is handled and, from a
 * near environment, the request leaves. Turns rather than time, so that a busy machine changes
 * nothing; a far environment's handshake goes on whenever the runner's loading yields.
 */
const HEAD_START_TURNS = 2;

type Checks = () => Promise<EnvironmentChecked>;

/** The checks, their modules loaded: only the receiver's for a mock run, which has nothing else to check. */
async function loadChecks(config: Config): Promise<Checks> {
  const { checkReceiver } = await import('../webhook/setup.ts');
  if (config.mode !== 'live')
    return async () => {
      await checkReceiver(config);
      return {};
    };
  const [{ preflight }, { apiTls }, { checkCredentials }, { proveWebhookAddress }] = await Promise.all([
    import('../preflight/preflight.ts'),
    import('../transport/tls.ts'),
    import('../preflight/credentials.ts'),
    import('../webhook/address-probe.ts'),
  ]);
  return async () => {
    await checkReceiver(config);
    await preflight(config.baseUrl ?? '', config.requestTimeoutMs, apiTls(config.tls));
    const token = await checkCredentials(config);
    const lastRequestAt = Date.now();
    // Last: a wrong webhook address stops the run before its first withdrawal, never after.
    const webhooksProven = await proveWebhookAddress(config);
    return {
      ...(token === undefined ? {} : { token }),
      lastRequestAt,
      ...(webhooksProven === undefined ? {} : { webhooksProven }),
    };
  };
}

export interface StartedChecks {
  /** Resolves once every check passed; a failure goes to the handler given when they started. */
  readonly checked: Promise<EnvironmentChecked>;
}

/**
 * Starts the checks, `onFailure` handling whichever stops the run. Playwright's runner loads next
 * in the same thread and holds it for about half a second without a turn of the event loop: a live
 * run therefore loads the checks and starts their first request before it resolves, so that their
 * round trips overlap that half second instead of following it (two round trips at a distance were
 * the run's start-up). A mock run loads its one check beside the runner instead, waiting for nothing.
 */
export async function startEnvironmentChecks(
  config: Config,
  onFailure: (error: unknown) => void,
): Promise<StartedChecks> {
  const loading = loadChecks(config);
  if (config.mode !== 'live')
    return {
      checked: handled(
        loading.then((check) => check()),
        onFailure,
      ),
    };
  const checked = handled((await loading)(), onFailure);
  for (let turn = 0; turn < HEAD_START_TURNS; turn += 1)
    await new Promise((resolve) => setImmediate(resolve));
  return { checked };
}

/** The same promise, its failure handed to `onFailure` at once: a refusal during the head start is handled. */
function handled<T>(promise: Promise<T>, onFailure: (error: unknown) => void): Promise<T> {
  promise.catch(onFailure);
  return promise;
}
