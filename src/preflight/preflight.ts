/**
 * Before any check, one look at PIX_BASE_URL: can it be reached (DNS, TCP, TLS), and does anything of
 * this interface answer there? A wrong address is the user's mistake to fix (exit 2, one line naming the
 * variable), never a list of FAILED checks that blames the provider.
 *
 * The look is one harmless request, POST {base}/auth/token with no credentials and no body: it can
 * obtain no token and move no money. Nothing of this interface answers there when it gets
 * - a redirect (3xx): the address is not where the API is, or not with this scheme;
 * - 405: nothing there takes POST, and the token operation is a POST;
 * - a 404 that is not JSON, or a JSON 404 that is the same answer a made-up path under the same base
 *   gets (same status, same content type, same body once the echoed path, numbers, times and ids are
 *   set aside): a router that knows no /auth/token;
 * - a web page (HTML) with any other status, except a refusal the document names (400, 401, 403) and
 *   a 5xx: a portal, a documentation site, a catch-all front end.
 * Everything else goes on to the checks, which judge it: 400, 401 and 403 whatever their body (the
 * refusals §4.1 and §5.4 expect; a body that is not JSON is the checks' to fail), any 5xx (a broken
 * environment is the provider's to fix), a 2xx that is not a page (a token without credentials fails a
 * check), and a JSON 404 unlike the made-up path's (the provider's own refusal, with a status outside §7).
 *
 * TLS is judged on the way, each in the words of the variable that fixes it: a server certificate
 * this machine does not trust (PIX_CA_FILE), a server that wants a client certificate none was given
 * for (PIX_TLS_CERT_FILE) or refuses the one presented, and, before any connection, a client key that
 * does not match its certificate or a passphrase that does not open it. Under TLS 1.3 a server judges
 * the client certificate after the handshake, so its refusal arrives on the first read: the harmless
 * request, never anything with a credential.
 */
import { type SecureContext } from 'node:tls';
import { secureContextOf, type TlsSettings } from '../transport/tls.ts';
import { describeClientCertificateError } from '../config/tls-files.ts';
import { clientCertificateRefusal } from './diagnosis.ts';
import { fail, PreflightError, shown } from './errors.ts';
import { ask, under, type Answer, type Attempt } from './probe.ts';
import { notAnInterfaceAnswer, sameAsMadeUpPath } from './sniff.ts';

const TOKEN_PATH = 'auth/token';

/** A key that does not match its certificate, a wrong passphrase: found here, before any connection. */
function localContext(tls: TlsSettings): SecureContext | undefined {
  try {
    return secureContextOf(tls);
  } catch (error) {
    const { variable, problem, fix } = describeClientCertificateError(error);
    throw new PreflightError(variable, problem, fix);
  }
}

/**
 * The page a TLS-terminating proxy answers (nginx's wording) when its client-certificate check
 * fails after the handshake: a 400 the checks would otherwise take for the provider's refusal.
 */
function proxyCertificateRefusal(attempt: Attempt, answer: Answer): PreflightError | undefined {
  if (answer.status !== 400) return undefined;
  const page = /No required SSL certificate was sent|The SSL certificate error/i.exec(answer.body)?.[0];
  return page === undefined
    ? undefined
    : clientCertificateRefusal(attempt.base, attempt.tls, `400: ${page}`, true);
}

/** Resolves when the interface may answer at `baseUrl`; throws PreflightError naming the mistake. */
export async function preflight(baseUrl: string, timeoutMs: number, tls: TlsSettings = {}): Promise<void> {
  const context = localContext(tls);
  const attempt: Attempt = {
    base: new URL(baseUrl),
    timeoutMs,
    deadline: Date.now() + timeoutMs,
    tls,
    context,
  };
  const tokenUrl = under(attempt.base, TOKEN_PATH);
  const answer = await ask(attempt, tokenUrl);
  const refused = proxyCertificateRefusal(attempt, answer);
  if (refused !== undefined) throw refused;
  const why =
    notAnInterfaceAnswer(answer, tokenUrl) ??
    (answer.status === 404 && (await sameAsMadeUpPath(attempt, tokenUrl, answer))
      ? '404, the same answer as a made-up path'
      : undefined);
  if (why === undefined) return;
  throw fail(
    `nothing of this interface answers at ${shown(attempt.base).replace(/\/$/, '')}: POST ${shown(tokenUrl)} got ${why}`,
    "Give the provider's base address, the part before /auth/token (e.g. https://api.example.com/v1).",
  );
}
