/**
 * The secrets the sandbox knows (the control token, each namespace's client_secret, the tokens it
 * issued) masked out of any text it keeps or prints, before the text is cut: a secret cut first would
 * no longer be recognised. Every cut of request text in sandbox/ goes through Secrets.cut.
 */

/** A run of this many characters shared with a secret is masked: a near miss (one character short or changed) too. */
const GRAM = 8;
/** Tokens the sandbox issues: 64 hex characters. */
const TOKEN_SHAPE = /[0-9a-f]{64}/g;
/** Credential-named query parameters and URL user-info, masked in any URL a log line shows. */
const QUERY_CREDENTIAL =
  /([?&](?:client[-_]?id|client[-_]?secret|cert[-_]?client|access[-_]?token|token|secret|password|key|auth\w*)=)[^&#\s]*/gi;
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s?#]*@/gi;

export class Secrets {
  private readonly grams = new Set<string>();
  private readonly issued: (token: string) => boolean;

  /** `issued` tells a token this sandbox issued, whichever namespace it belongs to. */
  constructor(issued: (token: string) => boolean = () => false) {
    this.issued = issued;
  }

  add(secret: string): void {
    for (let i = 0; i + GRAM <= secret.length; i++) this.grams.add(secret.slice(i, i + GRAM));
  }

  /**
   * The text's first `max` characters, every secret (and every run sharing 8 characters with one)
   * first written `***`, credentials in URLs too; `…` marks a cut.
   */
  readonly cut = (text: string, max: number): string => {
    const kept = Math.min(text.length, max);
    const masked: [number, number][] = [];
    const mark = (from: number, to: number): void => {
      const last = masked.at(-1);
      if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
      else masked.push([from, to]);
    };
    // A window starting before the cut is read in the whole text: a secret across the cut is still seen.
    if (this.grams.size > 0) {
      for (let i = 0; i < kept && i + GRAM <= text.length; i++) {
        if (this.grams.has(text.slice(i, i + GRAM))) mark(i, i + GRAM);
      }
    }
    const tokens = [...text.slice(0, kept + 63).matchAll(TOKEN_SHAPE)].filter((m) => this.issued(m[0]));
    const all =
      tokens.length === 0
        ? masked
        : mergeRanges([...masked, ...tokens.map((m): [number, number] => [m.index, m.index + 64])]);
    let shown = '';
    let at = 0;
    for (const [from, to] of all) {
      shown += `${text.slice(at, Math.min(from, kept))}***`;
      at = to;
      if (at >= kept) break;
    }
    if (at < kept) shown += text.slice(at, kept);
    if (text.length <= max) return maskUrlCredentials(shown);
    // A copy: a slice of a string keeps the whole of it alive (a 1 MB code journaled as 256 characters).
    return maskUrlCredentials(Buffer.from(`${shown}…`).toString());
  };
}

function mergeRanges(ranges: [number, number][]): [number, number][] {
  const merged: [number, number][] = [];
  for (const [from, to] of ranges.sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** Credential-named query parameters and the user-info of every URL in the text written `***`. */
export function maskUrlCredentials(text: string): string {
  return text.replace(QUERY_CREDENTIAL, '$1***').replace(USERINFO, '$1***@');
}
