/**
 * A tiny provider double for the safety tests: it answers the token operation, and on every
 * withdrawal it looks in the ledger for the request's intent line before answering, so a request
 * that left before its ledger line was on disk is caught in the act.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const DOUBLE_CREDENTIALS = {
  PIX_CLIENT_ID: 'double-client',
  PIX_CLIENT_SECRET: 'double-secret-canary-7f3a9c',
  PIX_CERT_CLIENT: Buffer.from('double public key canary').toString('base64'),
} as const;

export interface ProviderDouble {
  readonly url: string;
  /** Codes of the withdrawals received, in arrival order (duplicates included). */
  readonly withdrawals: string[];
  /** Withdrawals whose intent line was not in the ledger when they arrived. */
  readonly unledgered: string[];
  readonly issuedTokens: string[];
  /** The bearer token of each withdrawal, in arrival order. */
  readonly bearers: string[];
  close(): Promise<void>;
}

export interface DoubleOptions {
  readonly reportDir: string;
  /** Never answer withdrawals, to provoke the client's time-out. */
  readonly hangWithdrawals?: boolean;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function ledgerHasIntent(reportDir: string, code: string): boolean {
  const path = join(reportDir, 'ledger.jsonl');
  if (!existsSync(path)) return false;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .some((line) => {
      const entry = JSON.parse(line) as { type?: string; code?: string };
      return entry.type === 'intent' && entry.code === code;
    });
}

function codeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

export async function startProviderDouble(options: DoubleOptions): Promise<ProviderDouble> {
  const withdrawals: string[] = [];
  const unledgered: string[] = [];
  const issuedTokens: string[] = [];
  const bearers: string[] = [];
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  /** The status and body to answer, or no status to leave the request hanging. */
  const answer = (req: IncomingMessage, text: string): [number | undefined, unknown] => {
    if (req.url?.endsWith('/auth/token')) {
      const known =
        req.headers.client_id === DOUBLE_CREDENTIALS.PIX_CLIENT_ID &&
        req.headers.cert_client === DOUBLE_CREDENTIALS.PIX_CERT_CLIENT;
      if (!known) return [403, { error: 'forbidden' }];
      const token = `double-token-${issuedTokens.length}-canary-5b1e77d2`;
      issuedTokens.push(token);
      return [200, { access_token: token }];
    }
    if (req.url?.endsWith('/pix/payment')) {
      const code = codeOf(text);
      withdrawals.push(code ?? '(no code)');
      bearers.push(req.headers.authorization?.replace(/^Bearer /, '') ?? '');
      // Bodies without a string code (not JSON, wrong type) are matched to the ledger by count instead.
      if (code !== undefined && !ledgerHasIntent(options.reportDir, code)) unledgered.push(code);
      if (options.hangWithdrawals === true) return [undefined, undefined];
      // The run's first withdrawal is taken, so that the run goes on (a refused one stops it naming
      // PIX_CLIENT_SECRET); every other one is refused.
      if (code?.endsWith('-0-0-FIRST') === true) return [200, {}];
      return [403, { error: 'refused by the double' }];
    }
    return [404, { error: 'not found' }];
  };
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const [status, body] = answer(req, text);
      if (status !== undefined) json(res, status, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    withdrawals,
    unledgered,
    issuedTokens,
    bearers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
