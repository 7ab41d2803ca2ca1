/** The sandbox's one client, with fixed and documented credentials: every scenario's. */
import type { Credentials } from './namespace.ts';

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

export const SANDBOX_CREDENTIALS: SandboxCredentials & Credentials = {
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret-0123456789abcdef',
  certClient: Buffer.from(SANDBOX_PUBLIC_KEY).toString('base64'),
  certPem: SANDBOX_PUBLIC_KEY,
};
