/**
 * npm run sandbox, pix-certify sandbox: the reference provider on this machine (sandbox/main.ts), told
 * how the user starts a certification where they are.
 */
import { INSTALLED, suiteCommand } from '../src/base/invocation.ts';
import { serveSandbox } from '../sandbox/main.ts';
import { commandHelp, helpAsked } from './command-help.ts';

if (helpAsked(process.argv.slice(2))) {
  process.stdout.write(
    `${commandHelp('sandbox', 'Serves the reference profile behind the bare paths and every scenario behind /s/<scenario>, and\nprints the variables of a live run against it (PIX_SANDBOX_HOST, PIX_SANDBOX_PORT, PIX_SANDBOX_DELAY_MS,\nPIX_SANDBOX_TLS_CERT_FILE: .env.example).')}\n`,
  );
  process.exit(0);
}

// Installed, the command is run through npx: a bare pix-certify is not on the PATH of a project.
await serveSandbox(INSTALLED ? 'npx pix-certify' : suiteCommand('certify'));
