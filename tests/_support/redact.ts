/**
 * Secret masking for everything the suite writes: reports, console, ledger, attachments, errors.
 * Secrets are registered once (configured credentials, every token the run obtains) and then
 * masked wherever they appear, including inside larger strings such as curl lines or bodies.
 */

/** Header names whose values are credentials, compared case-insensitively. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'client_secret',
  'cert_client',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

const MIN_SECRET_LENGTH = 4;

const registered = new Map<string, string>();

/**
 * Masks a value so that two different secrets stay distinguishable without revealing either:
 * tokens keep their length and last four characters, other secrets only their length.
 */
export function mask(value: string, kind: 'token' | 'secret' = 'secret'): string {
  if (kind === 'token' && value.length >= 16) return `***(${value.length} chars, …${value.slice(-4)})`;
  return `***(${value.length} chars)`;
}

/** Registers a secret so that `redact` hides it everywhere from now on. */
export function registerSecret(value: string | undefined, kind: 'token' | 'secret' = 'secret'): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
  registered.set(value, mask(value, kind));
  // The Bearer form is what appears in headers and curl lines.
  if (kind === 'token') registered.set(`Bearer ${value}`, `Bearer ${mask(value, kind)}`);
}

/** Replaces every registered secret in a string; the longest first, so a secret inside another stays hidden. */
export function redact(text: string): string {
  let out = text;
  const secrets = [...registered.keys()].sort((a, b) => b.length - a.length);
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(registered.get(secret) ?? '***');
  }
  return out;
}

/** Masks secret headers by name and registered secrets by value. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') {
      const [scheme, ...rest] = value.split(' ');
      out[name] = rest.length > 0 ? `${scheme ?? ''} ${mask(rest.join(' '), 'token')}` : mask(value);
    } else {
      out[name] = SECRET_HEADERS.has(lower) ? mask(value) : redact(value);
    }
  }
  return out;
}

/** Deep-redacts any JSON-like value (strings are scanned for registered secrets). */
export function redactJson<T>(value: T): T {
  return JSON.parse(redact(JSON.stringify(value))) as T;
}
