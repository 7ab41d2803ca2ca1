/**
 * What pix-certify checks of the environment before a run, one after the other, each a configuration
 * mistake that stops it: a remote webhook receiver must answer and take the token before anything is
 * sent; then, live, the preflight's one harmless request; then the credentials, so that a provider
 * refusing ours stops the run naming the variables (our mistake or theirs) instead of failing a dozen
 * checks. They resolve to the token the credentials' request was issued, which the workers use, and
 * to when the last request was answered, which the run's rate limit counts.
 */
import type { Config } from '../config/config.ts';
import type { EnvironmentChecked } from './admission.ts';

type Checks = () => Promise<EnvironmentChecked>;

/** The checks, their modules loaded: only the receiver's for a mock run, which has nothing else to check. */
async function loadChecks(config: Config): Promise<Checks> {
  const { checkReceiver } = await import('../webhook/setup.ts');
  if (config.mode !== 'live')
    return async () => {
      await checkReceiver(config);
      return {};
    };
  const [{ preflight }, { apiTls }, { checkCredentials }] = await Promise.all([
    import('../preflight/preflight.ts'),
    import('../transport/tls.ts'),
    import('../preflight/credentials.ts'),
  ]);
  return async () => {
    await checkReceiver(config);
    await preflight(config.baseUrl ?? '', config.requestTimeoutMs, apiTls(config.tls));
    const token = await checkCredentials(config);
    return { ...(token === undefined ? {} : { token }), lastRequestAt: Date.now() };
  };
}

export interface StartedChecks {
  /** Resolves once every check passed; a failure goes to the handler given when they started. */
  readonly checked: Promise<EnvironmentChecked>;
}

/**
 * Starts the checks, `onFailure` handling whichever stops the run. pix-certify starts Playwright's
 * runner beside them, in its own process, so that their round trips overlap its start-up.
 */
export async function startEnvironmentChecks(
  config: Config,
  onFailure: (error: unknown) => void,
): Promise<StartedChecks> {
  const check = await loadChecks(config);
  return { checked: handled(check(), onFailure) };
}

/** The same promise, its failure handed to `onFailure` at once. */
function handled<T>(promise: Promise<T>, onFailure: (error: unknown) => void): Promise<T> {
  promise.catch(onFailure);
  return promise;
}
