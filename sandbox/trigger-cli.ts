/**
 * pix-certify sandbox trigger: sends a withdrawal's webhook again through the control API of a running
 * sandbox (PIX_SANDBOX_URL, PIX_SANDBOX_CONTROL_TOKEN, or --sandbox and --token), and prints each
 * attempt with the handler's answer. Exit 0: every copy reached a 2xx; 1: one did not; 2: a usage or
 * configuration mistake, or the sandbox refused the call.
 */
import { parseArgs } from 'node:util';
import { consoleLine } from './console-line.ts';
import { type Attempt, attemptLine } from './deliveries.ts';
import { maskUrlCredentials } from './secrets.ts';
import { httpUrl } from './webhook.ts';

export const triggerUsage = (commandLine: (args: string) => string): string[] => [
  commandLine('trigger <withdrawal id or client code> --namespace <name> [options]'),
  '  --status PAID|PROCESSING|FAILED  the event to send (default PAID)',
  '  --copies N                       send it N times, the same webhook-id (1 to 10; default 1)',
  '  --delay S                        wait S seconds first (0 to 60)',
  '  --malformed                      JSON cut short',
  '  --extra-fields                   fields the handler does not know',
  '  --url URL                        to this URL instead of the PostBackUrl',
  '  --sandbox URL, --token TOKEN     the sandbox and its control token (PIX_SANDBOX_URL, PIX_SANDBOX_CONTROL_TOKEN)',
];

/** Every line trigger prints: URL credentials masked, then escaped, one line per line. */
function print(stream: NodeJS.WriteStream, text: string): void {
  for (const line of text.split('\n')) stream.write(`${consoleLine(maskUrlCredentials(line))}\n`);
}

/** 2xx, or for a malformed webhook a 4xx: the handler's right answer to JSON it cannot read. */
const rightAnswer = (attempt: Attempt, malformed: boolean): boolean =>
  attempt.status !== null && attempt.status >= 200 && attempt.status < (malformed ? 500 : 300);

const env = (name: string): string | undefined => {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

export async function trigger(
  args: readonly string[],
  commandLine: (args: string) => string,
): Promise<number> {
  // Errors name the command as the user typed it.
  const usage = (problem: string): number => {
    print(process.stderr, `${commandLine('trigger')}: ${problem}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        namespace: { type: 'string' },
        status: { type: 'string' },
        copies: { type: 'string' },
        delay: { type: 'string' },
        malformed: { type: 'boolean' },
        'extra-fields': { type: 'boolean' },
        url: { type: 'string' },
        sandbox: { type: 'string' },
        token: { type: 'string' },
      },
    });
  } catch (error) {
    return usage(
      `${error instanceof Error ? error.message : String(error)}\n${triggerUsage(commandLine).join('\n')}`,
    );
  }
  const { values, positionals } = parsed;
  const [withdrawal] = positionals;
  if (withdrawal === undefined || positionals.length > 1)
    return usage('give one withdrawal: its id or its client code.');
  if (values.namespace === undefined)
    return usage('--namespace is required: the namespace the withdrawal was made in.');
  const token = values.token ?? env('PIX_SANDBOX_CONTROL_TOKEN');
  if (token === undefined)
    return usage(
      'PIX_SANDBOX_CONTROL_TOKEN (or --token) is required: the control token the sandbox printed.',
    );
  const base = (values.sandbox ?? env('PIX_SANDBOX_URL') ?? 'http://127.0.0.1:4020').replace(/\/+$/, '');
  if (httpUrl(base) === undefined)
    return usage(
      `${values.sandbox === undefined ? 'PIX_SANDBOX_URL' : '--sandbox'} must be the sandbox's http(s) URL; this is ${base}.`,
    );
  if (values.url !== undefined && httpUrl(values.url) === undefined)
    return usage(`--url must be an absolute http(s) URL; this is ${values.url}.`);
  const number = (text: string | undefined): number | undefined =>
    text === undefined ? undefined : Number(text);
  const body = {
    withdrawal,
    ...(values.status === undefined ? {} : { status: values.status.toUpperCase() }),
    ...(values.copies === undefined ? {} : { copies: number(values.copies) }),
    ...(values.delay === undefined ? {} : { delaySeconds: number(values.delay) }),
    ...(values.malformed === true ? { malformed: true } : {}),
    ...(values['extra-fields'] === true ? { extraFields: true } : {}),
    ...(values.url === undefined ? {} : { url: values.url }),
  };
  let response: Response;
  try {
    response = await fetch(`${base}/_sim/namespaces/${encodeURIComponent(values.namespace)}/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return usage(`no sandbox at ${base} (${reason}); start ${commandLine('')}, or set PIX_SANDBOX_URL.`);
  }
  const answer = (await response.json().catch(() => ({}))) as { attempts?: Attempt[]; message?: string };
  if (response.status === 401)
    return usage(
      'the sandbox refused the control token: give the one it printed (PIX_SANDBOX_CONTROL_TOKEN).',
    );
  if (response.status !== 200 || answer.attempts === undefined)
    return usage(`the sandbox answered ${response.status}: ${answer.message ?? 'no reason given'}`);
  for (const attempt of answer.attempts) print(process.stdout, attemptLine(attempt));
  // A copy starts at its attempt 1; it succeeded when one of its attempts got the right answer.
  const copies: Attempt[][] = [];
  for (const attempt of answer.attempts) {
    if (attempt.attempt === 1) copies.push([]);
    copies.at(-1)?.push(attempt);
  }
  const right = copies.filter((tries) => tries.some((a) => rightAnswer(a, values.malformed === true)));
  return right.length === copies.length && copies.length > 0 ? 0 : 1;
}
