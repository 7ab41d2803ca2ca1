/**
 * The sandbox's one client, with fixed and documented credentials, and how a presented credential
 * header is judged under a scenario's rule.
 */
import type { Behaviour, CredentialRule } from './behaviour.ts';
import { type Reply, refuse, serverError } from './reply.ts';

export interface SandboxCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** base64, exactly as sent in the cert_client header. */
  readonly certClient: string;
}

/** Looks like an RSA public key so the header looks like a real one; nothing is ever verified with it. */
const SANDBOX_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAzxsGWn2ms4f4M1wyHFiW
Zh6sLPCqezXjt9NTOSTzq6zUeUGZQ7Egf3wnmP5vtvYSFprpojRjiChSTVf3APsP
jxETQnFO1PZhuJaFldfid4ajcZnTM5LCjBqDIZUYPYOQmCGTD1ktkwMp927IeUwj
Pjg3jfMogiN2cEtqvgRtX0rZVxd95nuFv8bNMLdmaODhKoocM7f86jQfHv67CFji
CfEk7uChrFCDQCgdKStG2tiVIeEjB1lGOofwQcKS9zF3ZNadBQPs99MHdPi9HwSm
GWKiTAek2tDbq6vVYBNlP15b1woAlnfslOe8qc399ZfmjRJCCpRTgWHtkpEIYifo
gnIDAQAB
-----END PUBLIC KEY-----
`;

export const SANDBOX_CREDENTIALS: SandboxCredentials = {
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret-0123456789abcdef',
  certClient: Buffer.from(SANDBOX_PUBLIC_KEY).toString('base64'),
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function isBase64(value: string): boolean {
  return value.length % 4 === 0 && BASE64.test(value);
}

export interface PresentedCredential {
  readonly header: string;
  readonly value: string | undefined;
  readonly expected: string;
  /** cert_client is base64 (§2.2): a value that is not is malformed (400), not merely wrong. */
  readonly base64?: boolean;
}

/** The refusal a credential earns under the rule, or undefined when the request may go on. */
export function judgeCredential(
  credential: PresentedCredential,
  rule: CredentialRule,
  behaviour: Behaviour,
): Reply | undefined {
  const { header, value, expected, base64 = false } = credential;
  if (value === undefined || value === '') {
    if (rule.missing === 'accept') return undefined;
    if (rule.missing === 'server-error') return serverError(`failed to read ${header}`);
    return refuse(behaviour.credentialRefusal, 'missing_credential', `The ${header} header is required.`);
  }
  if (value === expected || rule.wrong === 'accept') return undefined;
  if (base64 && !isBase64(value)) {
    return refuse(400, 'malformed_credential', `The ${header} header is not base64.`);
  }
  return refuse(behaviour.credentialRefusal, 'invalid_credential', `The ${header} header is not valid.`);
}
