/** Transport family: how the suite reaches the environment; the document names no transport, common sense does. */
import { isLoopbackHost } from '../config/config.ts';
import { defineCheck, violation } from './check.ts';
import { familyFile, type Family } from './family.ts';

export const transportEncrypted = defineCheck<{ readonly baseUrl: string }>(
  {
    id: 'TRANSPORT-ENCRYPTED',
    title: 'Credentials travel over https (or stay on this machine)',
    clause: '§2.2 (not shown)',
    level: 'should',
    reason:
      'client_secret and the access token are sent on every request (§5.2); over plain http to another host anyone on the path can read them.',
    remedy:
      'Serve the API over https with a certificate the client can verify, and stop answering plain http outside this machine.',
  },
  ({ baseUrl }) => {
    const url = new URL(baseUrl);
    if (url.protocol === 'https:' || isLoopbackHost(url.hostname)) return [];
    return [
      violation(
        'should',
        'an https:// base address',
        `${url.protocol}//${url.host} (allowed by PIX_ALLOW_INSECURE=1)`,
      ),
    ];
  },
);

export const transportFamily: Family = {
  name: 'transport',
  file: familyFile(import.meta.url),
  checks: () => [transportEncrypted],
  withdrawals: () => 0,
};
