/**
 * How the suite reaches the environment: credentials must not cross a network in clear text.
 */
import { transportEncrypted } from '../../src/checks/connection.ts';
import { judging } from '../../src/checks/declare.ts';
import { test } from '../_support/fixtures.ts';

test(
  'credentials travel over https or stay on this machine (§2.2, §5.2)',
  judging({ checks: [transportEncrypted], tags: ['@smoke'], sendsRequests: false }),
  ({ target, verify }) => {
    verify.check(transportEncrypted, { baseUrl: target.baseUrl });
  },
);
