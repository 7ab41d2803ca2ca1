/** How a failed preflight is told: one line naming PIX_BASE_URL or the TLS variable that fixes it. */
import { TLS_VARIABLES } from '../config/tls-files.ts';
import { ConfigError } from '../config/errors.ts';
import { consoleLine, excerpt } from '../secrets/redact.ts';

/** How to make the suite trust a private certificate authority: said in one place only. */
export const TRUST_FIX = `If the environment uses a private certificate authority, set ${TLS_VARIABLES.ca} to its certificate (PEM): it is trusted beside the public ones, and certificates are always verified.`;

/** The environment at PIX_BASE_URL cannot be certified as configured. */
export class PreflightError extends ConfigError {
  override readonly name = 'PreflightError';
}

export function fail(problem: string, fix: string): PreflightError {
  return new PreflightError('PIX_BASE_URL', problem, fix);
}

/** Text from the environment, safe to print on one terminal line: masked, then cut, then escaped. */
export function printable(text: string | string[], max = 120): string {
  return consoleLine(excerpt([text].flat().join(', '), max, () => '…'));
}

/** A URL as the user may see it: no user-info, which could carry a credential. */
export function shown(url: URL): string {
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  return copy.toString();
}
