/**
 * npm run sandbox, pix-certify sandbox: the reference provider on this machine (sandbox/main.ts), told
 * how the user starts a certification where they are.
 */
import { suiteCommand } from '../src/base/invocation.ts';
import { serveSandbox } from '../sandbox/main.ts';

await serveSandbox(suiteCommand('certify'));
