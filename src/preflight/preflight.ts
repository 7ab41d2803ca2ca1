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
import { randomBytes } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import {
  connect as tlsConnect,
  type ConnectionOptions,
  type PeerCertificate,
  type SecureContext,
  type TLSSocket,
} from 'node:tls';
import { ConfigError, type VariableName } from '../config/config.ts';
import {
  CLIENT_CERT_FIX,
  describeClientCertificateError,
  presentsCertificate,
  secureContextOf,
  TLS_VARIABLES,
} from '../transport/tls.ts';

/** How to make the suite trust a private certificate authority: said in one place only. */
export const TRUST_FIX = `If the environment uses a private certificate authority, set ${TLS_VARIABLES.ca} to its certificate (PEM): it is trusted beside the public ones, and certificates are always verified.`;

/** The environment at PIX_BASE_URL cannot be certified as configured. */
export class PreflightError extends ConfigError {
  override readonly name = 'PreflightError';
}

/** TLS settings of the connection beyond the system's trust store (a private CA, a client certificate). */
export type TlsSettings = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase'>;

interface Answer {
  readonly status: number;
  /** The media type without parameters, lower case; '' when absent. */
  readonly mediaType: string;
  readonly location: string | undefined;
  /** The start of the body, enough to tell what it is. */
  readonly body: string;
}

const BODY_SAMPLE_BYTES = 16 * 1024;
const TOKEN_PATH = 'auth/token';

function fail(problem: string, fix: string): PreflightError {
  return new PreflightError('PIX_BASE_URL', problem, fix);
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Text from the environment, safe to print on one terminal line. */
function printable(text: string | string[], max = 120): string {
  const escaped = [text]
    .flat()
    .join(', ')
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped;
}

/** A URL as the user may see it: no user-info, which could carry a credential. */
function shown(url: URL): string {
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  return copy.toString();
}

function under(base: URL, path: string): URL {
  return new URL(`${base.pathname.replace(/\/*$/, '/')}${path}`, base);
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function timeOut(url: URL, timeoutMs: number): PreflightError {
  return fail(
    `${url.host} did not answer within ${timeoutMs} ms (time-out)`,
    'Check PIX_BASE_URL, a VPN or firewall, or raise PIX_REQUEST_TIMEOUT_MS.',
  );
}

const DNS_ERRORS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
/** What OpenSSL says when the other side answers the TLS hello in plain HTTP. */
const PLAIN_HTTP_ERRORS = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
]);

/** The TLS alerts by which a server refuses a client certificate, or its absence, as node names them. */
const CLIENT_CERTIFICATE_ALERTS: ReadonlyMap<string, string> = new Map([
  ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'certificate required'],
  ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'handshake failure'],
  ['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'bad certificate'],
  ['ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE', 'unsupported certificate'],
  ['ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED', 'certificate revoked'],
  ['ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED', 'certificate expired'],
  ['ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN', 'certificate unknown'],
  ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'unknown CA'],
  ['ERR_SSL_TLSV1_ALERT_ACCESS_DENIED', 'access denied'],
]);

/** Where the client certificate came from, to name in a line about it. */
function certificateVariable(tls: TlsSettings): VariableName {
  return tls.pfx === undefined ? TLS_VARIABLES.cert : TLS_VARIABLES.pfx;
}

/** The server wants a client certificate, or refused the one presented: told in either case. */
function clientCertificateRefusal(url: URL, tls: TlsSettings, why: string, certain: boolean): PreflightError {
  if (!presentsCertificate(tls))
    return new PreflightError(
      TLS_VARIABLES.cert,
      `is not set, but ${url.host} wants a client certificate (${why}${certain ? '' : ', most likely for want of one'})`,
      CLIENT_CERT_FIX,
    );
  return new PreflightError(
    certificateVariable(tls),
    `${url.host} refused the client certificate presented (${why})`,
    'Give the certificate the provider issued for this client, signed by a CA it trusts and not expired, with its key (ask the provider which CA it accepts).',
  );
}

/**
 * A TLS alert about the client certificate: in the handshake under TLS 1.2, on the first read under
 * TLS 1.3, where the server judges the certificate after the client has finished. A server that
 * instead just closes the connection after a handshake with a certificate (node's own does) is told
 * the same way, since nothing was answered.
 */
function alertProblem(
  url: URL,
  tls: TlsSettings,
  code: string,
  afterHandshake: boolean,
): PreflightError | undefined {
  const alert = CLIENT_CERTIFICATE_ALERTS.get(code);
  if (alert !== undefined)
    return clientCertificateRefusal(
      url,
      tls,
      `TLS alert: ${alert}`,
      code !== 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
    );
  if (afterHandshake && presentsCertificate(tls) && (code === 'ECONNRESET' || code === 'EPIPE'))
    return clientCertificateRefusal(
      url,
      tls,
      'it closed the connection after the TLS handshake without answering, as servers do with a certificate they refuse',
      true,
    );
  return undefined;
}

function connectionProblem(url: URL, tls: TlsSettings, error: NodeJS.ErrnoException): PreflightError {
  const code = error.code ?? 'error';
  const refusal = url.protocol === 'https:' ? alertProblem(url, tls, code, false) : undefined;
  if (refusal !== undefined) return refusal;
  if (DNS_ERRORS.has(code)) {
    return fail(
      `the host ${url.hostname} does not resolve (DNS: ${code})`,
      'Check the host name in PIX_BASE_URL.',
    );
  }
  if (url.protocol === 'https:' && PLAIN_HTTP_ERRORS.has(code)) {
    return fail(
      `${url.host} answers in plain HTTP, not TLS, so https:// cannot work there`,
      `Use the port that serves https, or http://${url.host} if the environment really serves plain http (accepted on this machine, elsewhere only with PIX_ALLOW_INSECURE=1).`,
    );
  }
  if (url.protocol === 'https:' && code.startsWith('ERR_SSL')) {
    return fail(`TLS with ${url.host} failed (${code})`, `Check that ${url.host} serves https. ${TRUST_FIX}`);
  }
  if (url.protocol === 'https:' && code === 'ECONNRESET') {
    return fail(
      `${url.host} closed the connection during the TLS handshake`,
      `Check that this port serves https (a plain-http port may do this), and that PIX_BASE_URL is right${
        presentsCertificate(tls)
          ? `; a server that refuses the client certificate in ${certificateVariable(tls)} does it too`
          : ''
      }.`,
    );
  }
  return fail(
    `could not connect to ${url.host}: ${code}`,
    'Check that the environment is up and PIX_BASE_URL is right.',
  );
}

const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** Why the server's certificate is refused, or undefined when it is verified for this host. */
function certificateProblem(url: URL, tls: TlsSettings, socket: TLSSocket): PreflightError | undefined {
  if (socket.authorized) return undefined;
  const code = String(socket.authorizationError);
  // Empty when the server sent no certificate at all.
  const cert: Partial<PeerCertificate> = socket.getPeerCertificate();
  const host = url.hostname;
  if (UNTRUSTED.has(code)) {
    // A chain that ends in an unknown root is SELF_SIGNED_CERT_IN_CHAIN: its issuer says more than that.
    const kind =
      code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
        ? 'self-signed'
        : `issued by ${printable(cert.issuer?.CN ?? 'an unknown authority')}`;
    return tls.ca === undefined
      ? new PreflightError(
          TLS_VARIABLES.ca,
          `the certificate of ${host} is not trusted (${kind}, ${code})`,
          TRUST_FIX,
        )
      : new PreflightError(
          TLS_VARIABLES.ca,
          `the certificate of ${host} is not trusted (${kind}, ${code}), not even with the CA in ${TLS_VARIABLES.ca}`,
          `Give in ${TLS_VARIABLES.ca} the certificate of the authority that issued it, or of its root; certificates are always verified.`,
        );
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = printable(cert.subjectaltname ?? `CN=${printable(cert.subject?.CN ?? '?')}`);
    return fail(
      `the certificate of ${host} is for ${names}, not for ${host}`,
      'Use in PIX_BASE_URL a host name the certificate names, or have the environment serve a certificate for this one.',
    );
  }
  if (code === 'CERT_HAS_EXPIRED') {
    return fail(
      `the certificate of ${host} expired on ${printable(cert.valid_to ?? '?')}`,
      'The environment must renew it; the suite never accepts an expired certificate.',
    );
  }
  if (code === 'CERT_NOT_YET_VALID') {
    return fail(
      `the certificate of ${host} is valid only from ${printable(cert.valid_from ?? '?')}`,
      "Check this machine's clock, or have the environment serve a certificate valid now.",
    );
  }
  return fail(`the certificate of ${host} is refused (${printable(code)})`, TRUST_FIX);
}

/** One preflight: where, and within what time, over which TLS settings. */
interface Attempt {
  readonly base: URL;
  readonly timeoutMs: number;
  readonly deadline: number;
  readonly tls: TlsSettings;
  /** Built from `tls` once, before any connection; undefined for the default trust. */
  readonly context: SecureContext | undefined;
}

/**
 * Connects without sending anything. TLS is verified here rather than by OpenSSL refusing the
 * handshake, so the certificate can be described; nothing is sent unless it is verified.
 */
function connect({ base, deadline, tls, context, timeoutMs }: Attempt): Promise<Socket> {
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const secure = base.protocol === 'https:';
  const port = Number(base.port || (secure ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tlsConnect({
          ...(context === undefined ? {} : { secureContext: context }),
          host,
          port,
          ...(isIP(host) === 0 && { servername: host }),
          rejectUnauthorized: false,
        })
      : netConnect({ host, port });
    const timer = setTimeout(() => {
      stop(timeOut(base, timeoutMs));
    }, remaining(deadline));
    function stop(error: PreflightError): void {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    }
    socket.once('error', (error: NodeJS.ErrnoException) => {
      stop(connectionProblem(base, tls, error));
    });
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      const problem = secure ? certificateProblem(base, tls, socket as TLSSocket) : undefined;
      if (problem !== undefined) {
        stop(problem);
        return;
      }
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

function mediaTypeOf(response: IncomingMessage): string {
  const type = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : type === '' ? '' : 'an unusual content type';
}

/**
 * POST `target` with no credentials and no body, and read the status, the headers and the start of the
 * body; at the deadline an answer already begun is judged on what has arrived.
 */
async function ask(attempt: Attempt, target: URL): Promise<Answer> {
  const socket = await connect(attempt);
  return new Promise((resolve, reject) => {
    const req = request({
      createConnection: () => socket,
      method: 'POST',
      path: target.pathname,
      headers: { host: target.host, accept: 'application/json', 'content-length': '0', connection: 'close' },
    });
    let atDeadline = (): void => {
      reject(timeOut(attempt.base, attempt.timeoutMs));
    };
    const timer = setTimeout(() => {
      socket.destroy();
      atDeadline();
    }, remaining(attempt.deadline));
    // Also after the answer, when the sample is taken and the rest dropped: then rejecting is a no-op.
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const code = error.code ?? 'error';
      reject(
        (target.protocol === 'https:' ? alertProblem(attempt.base, attempt.tls, code, true) : undefined) ??
          fail(
            `POST ${shown(target)} got no HTTP answer (${code})`,
            'Check that PIX_BASE_URL is right (https:// for a TLS port) and that the environment is up.',
          ),
      );
    });
    req.once('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve({
          status: response.statusCode ?? 0,
          mediaType: mediaTypeOf(response),
          location: response.headers.location,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      };
      atDeadline = done;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= BODY_SAMPLE_BYTES) done();
      });
      response.once('end', done);
      response.once('error', done);
    });
    req.end();
  });
}

function looksLikeHtml(answer: Answer): boolean {
  return (
    answer.mediaType === 'text/html' ||
    answer.mediaType === 'application/xhtml+xml' ||
    /^\s*<(!doctype\s+html|html)[\s>]/i.test(answer.body)
  );
}

function looksLikeJson(answer: Answer): boolean {
  if (/^application\/([\w.-]+\+)?json$/.test(answer.mediaType)) return true;
  try {
    JSON.parse(answer.body);
    return answer.body.trim() !== '';
  } catch {
    return false;
  }
}

/** The refusals the document names for a token request (§4.1, §5.4, §7). */
const REFUSALS = new Set([400, 401, 403]);

/** What the token path's answer shows when it shows by itself that nothing of this interface is there. */
function notAnInterfaceAnswer(answer: Answer, tokenUrl: URL): string | undefined {
  const { status, location, mediaType } = answer;
  if (status >= 300 && status < 400) {
    const to =
      location !== undefined && URL.canParse(location, tokenUrl.href)
        ? printable(shown(new URL(location, tokenUrl)), 200)
        : 'nowhere';
    return `a redirect (${status}) to ${to}`;
  }
  if (status === 405) return '405: nothing there takes POST';
  if (status === 404) return looksLikeJson(answer) ? undefined : `404 (${mediaType || 'no content type'})`;
  if (REFUSALS.has(status) || status >= 500) return undefined;
  return looksLikeHtml(answer) ? `a web page (${status}, HTML)` : undefined;
}

/** Every echo of the path (or of its end, after the base a router strips) becomes one placeholder. */
function withoutPath(body: string, path: string): string {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const suffix = `/${segments.slice(i).join('/')}`;
    if (body.includes(suffix)) return body.replaceAll(suffix, '<path>');
  }
  return body;
}

/** What stays of an answer once the path it echoes, numbers, times and ids are set aside. */
function normalised(answer: Answer, path: string): string {
  const body = withoutPath(answer.body, path).replace(/[A-Za-z0-9]*\d[A-Za-z0-9]*/g, '#');
  return `${answer.status} ${answer.mediaType} ${body}`;
}

/**
 * A JSON 404 is a router's when a made-up path under the same base gets the same answer; any failure
 * to ask counts as different, so that only a proven mistake stops the run.
 */
async function sameAsMadeUpPath(attempt: Attempt, tokenUrl: URL, answer: Answer): Promise<boolean> {
  const madeUp = under(attempt.base, `pix-certify-preflight-${randomBytes(6).toString('hex')}`);
  try {
    const other = await ask(attempt, madeUp);
    return normalised(other, madeUp.pathname) === normalised(answer, tokenUrl.pathname);
  } catch {
    return false;
  }
}

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
