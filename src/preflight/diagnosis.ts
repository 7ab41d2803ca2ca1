/**
 * Why a connection or a TLS handshake failed, in the words of the variable that fixes it: DNS, TCP,
 * plain HTTP where TLS was expected, an untrusted server certificate, a client certificate wanted or refused.
 */
import { type PeerCertificate, type TLSSocket } from 'node:tls';
import { presentsCertificate, type TlsSettings } from '../transport/tls.ts';
import { CLIENT_CERT_FIX, TLS_VARIABLES } from '../config/tls-files.ts';
import type { VariableName } from '../config/variables.ts';
import { fail, printable, PreflightError, TRUST_FIX } from './errors.ts';

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
export function certificateVariable(tls: TlsSettings): VariableName {
  return tls.pfx === undefined ? TLS_VARIABLES.cert : TLS_VARIABLES.pfx;
}

/** The server wants a client certificate, or refused the one presented: told in either case. */
export function clientCertificateRefusal(
  url: URL,
  tls: TlsSettings,
  why: string,
  certain: boolean,
): PreflightError {
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
export function alertProblem(
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

export function connectionProblem(url: URL, tls: TlsSettings, error: NodeJS.ErrnoException): PreflightError {
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
    // The same base with http: its path (/api/v2) is part of the address to give.
    const plain = `http://${url.host}${url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')}${url.search}`;
    return fail(
      `${url.host} answers in plain HTTP, not TLS, so https:// cannot work there`,
      `Use the port that serves https, or ${plain} if the environment really serves plain http (accepted on this machine, elsewhere only with PIX_ALLOW_INSECURE=1).`,
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
export function certificateProblem(
  url: URL,
  tls: TlsSettings,
  socket: TLSSocket,
): PreflightError | undefined {
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
