/**
 * The sandbox's one client, with fixed and documented credentials, and how a presented credential
 * header is judged under a scenario's rule.
 */
import { type Behaviour, type CredentialRule, sameCredential } from './behaviour.ts';
import { type Reply, refuse, serverError } from './reply.ts';

export interface SandboxCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** base64, exactly as sent in the cert_client header. */
  readonly certClient: string;
}

/** A real RSA public key (its private half was never kept), so that another of its kind can be made. */
const SANDBOX_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA1DZ8gEw1IurW8d1m1p0l
z9zkGaUlAHQMFEClr2kk7vQ+JqnA67K81OgiYgLEmU4cdgK8b9goKm7JsgZFhCAV
3L9I8Ftp+0D1YbgzsWT1hyRAqrLFObH/eX/nDdk6Wq31TRVLZzlXJ4J0KK+AW4yg
TFit7GD3sOrfXnruYYnoeFg4XQDcUzQlPN0MENxIg98kTzMiv9cNGvwFeBngYdig
TDB7yjaNjsNDFWiKhE0oR28/SIXKAan5q/A/OSvGvYkoyo27JZN5NT5x+jPR8CCw
8SB1YiY03+EnOllgr1VQhZsexXTFviHEE8su6fbi4KMNd66pFhaa/vw24sIoLWsS
7wIDAQAB
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
  if (sameCredential(value, expected, rule.compare) || rule.wrong === 'accept') return undefined;
  if (base64 && !isBase64(value)) {
    return refuse(400, 'malformed_credential', `The ${header} header is not base64.`);
  }
  return refuse(behaviour.credentialRefusal, 'invalid_credential', `The ${header} header is not valid.`);
}
