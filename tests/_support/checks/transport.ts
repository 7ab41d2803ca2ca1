/** How the suite reaches the environment; the document names no transport, common sense does. */
import { isLoopbackHost } from '../config.ts';
import { defineCheck, violation } from './check.ts';

export const transportEncrypted = defineCheck<{ readonly baseUrl: string }>(
  {
    id: 'TRANSPORT-ENCRYPTED',
    title: 'Credentials travel over https (or stay on this machine)',
    clause: '§2.2 (not shown)',
    level: 'should',
    reason:
      'client_secret and the access token are sent on every request (§5.2); over plain http to another host anyone on the path can read them.',
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
