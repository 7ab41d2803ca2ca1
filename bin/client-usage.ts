/** pix-certify client --help. */
import { suiteCommand } from '../src/base/invocation.ts';
import { DEFAULT_COMMAND_TIMEOUT_S, DEFAULT_WEBHOOK_WAIT_S } from '../src/config/client-settings.ts';
import { exitCodesText } from './command-help.ts';

export const USAGE = `Usage: ${suiteCommand('client', '[--timeout <duration>] [--readings <all|name,…>] -- <command…>')}
       ${suiteCommand('client', '--serve [--duration 15m] [--host 127.0.0.1] [--port 0]')}
       ${suiteCommand('client', '--handler <url>')}

Certifies your own client and webhook handler against the simulator (docs/integrators.md). The
simulator starts on loopback in a namespace of its own; the command runs with

  PIX_BASE_URL  PIX_CLIENT_ID  PIX_CLIENT_SECRET  PIX_CERT_CLIENT  PIX_CERT_FILE

set to the namespace's, and the rest of your environment without the suite's own PIX_* variables
(never PIX_SIGNING_KEY_FILE). Every request it sends and every answer its webhook handler gives are
judged when it ends (the CLIENT-… and HANDLER-… checks of docs/checks.md); every process it started
that is still running then is ended, and named in the report, before the report is written. Make at
least two withdrawals and wait for their webhooks; the amounts of \`${suiteCommand('sandbox', '--outcomes')}\`
choose what the simulator does (a 500, no answer, a 429, a 401, a malformed webhook…), which
exercises the rest.

Options:
  --timeout <duration>  stop the command after this long (PIX_CLIENT_TIMEOUT_S, default ${DEFAULT_COMMAND_TIMEOUT_S} s; 90s, 15m, 1h)
  --readings <list>     run the command once per reading of the document's silences (all, or names:
                        ${suiteCommand('sandbox', '--profiles')} lists them: 401 for credentials, a token
                        named otherwise, short tokens, slow answers, a webhook before its answer…), each
                        in a namespace of its own, several at once; one report, a matrix of checks by
                        readings, its verdict the worst cell's
  --serve               for an application started separately: print the variables, judge on Ctrl-C,
                        SIGTERM or at the end of --duration (default 15m)
  --host, --port        where --serve listens (default 127.0.0.1, a free port); webhooks go to loopback
                        and to the hosts of PIX_SANDBOX_WEBHOOK_HOSTS only
  --handler <url>       certify a webhook handler alone: the simulator sends it each kind of delivery
                        (valid, duplicate, out of order, malformed, extra fields)
  --help, -h            print this help

After the command ends, the simulator's webhooks get at most PIX_CLIENT_WEBHOOK_WAIT_S (default
${DEFAULT_WEBHOOK_WAIT_S}) to settle. The journal keeps the newest 10,000 requests and deliveries.

A gate fails closed: a finding that can pay twice or lose a payout (CLIENT-UNKNOWN-OUTCOME,
HANDLER-VALID-2XX) exits 1 whatever its level; an INCOMPLETE run exits 1 unless
PIX_REQUIRE_COMPLETE=0; a command after which the simulator received no request exits 2.

Reports: <PIX_REPORT_DIR>/client/ (certification.json, certification.html, summary.md, junit.xml;
certification.sig with PIX_SIGNING_KEY_FILE); --handler writes to <PIX_REPORT_DIR>/handler/.

${exitCodesText('client')}`;
