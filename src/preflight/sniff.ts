/** Whether an answer shows by itself that nothing of this interface answers at the address: a page, a router's 404. */
import { randomBytes } from 'node:crypto';
import { printable, shown } from './errors.ts';
import { ask, under, type Answer, type Attempt } from './probe.ts';

export function looksLikeHtml(answer: Answer): boolean {
  return (
    answer.mediaType === 'text/html' ||
    answer.mediaType === 'application/xhtml+xml' ||
    /^\s*<(!doctype\s+html|html)[\s>]/i.test(answer.body)
  );
}

export function looksLikeJson(answer: Answer): boolean {
  if (/^application\/([\w.-]+\+)?json$/.test(answer.mediaType)) return true;
  try {
    JSON.parse(answer.body);
    return answer.body.trim() !== '';
  } catch {
    return false;
  }
}

/** The refusals the document names for a token request (§4.1, §5.4, §7). */
const REFUSALS = new Set([400, 401, 403]);

/** What the token path's answer shows when it shows by itself that nothing of this interface is there. */
export function notAnInterfaceAnswer(answer: Answer, tokenUrl: URL): string | undefined {
  const { status, location, mediaType } = answer;
  if (status >= 300 && status < 400) {
    const to =
      location !== undefined && URL.canParse(location, tokenUrl.href)
        ? printable(shown(new URL(location, tokenUrl)), 200)
        : 'nowhere';
    return `a redirect (${status}) to ${to}`;
  }
  if (status === 405) return '405: nothing there takes POST';
  if (status === 404) return looksLikeJson(answer) ? undefined : `404 (${mediaType || 'no content type'})`;
  if (REFUSALS.has(status) || status >= 500) return undefined;
  return looksLikeHtml(answer) ? `a web page (${status}, HTML)` : undefined;
}

/** Every echo of the path (or of its end, after the base a router strips) becomes one placeholder. */
function withoutPath(body: string, path: string): string {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const suffix = `/${segments.slice(i).join('/')}`;
    if (body.includes(suffix)) return body.replaceAll(suffix, '<path>');
  }
  return body;
}

/** What stays of an answer once the path it echoes, numbers, times and ids are set aside. */
function normalised(answer: Answer, path: string): string {
  const body = withoutPath(answer.body, path).replace(/[A-Za-z0-9]*\d[A-Za-z0-9]*/g, '#');
  return `${answer.status} ${answer.mediaType} ${body}`;
}

/**
 * A JSON 404 is a router's when a made-up path under the same base gets the same answer; any failure
 * to ask counts as different, so that only a proven mistake stops the run. The made-up path gets a
 * time-out of its own: left the first answer's remainder, a slow router would pass for a provider.
 */
export async function sameAsMadeUpPath(attempt: Attempt, tokenUrl: URL, answer: Answer): Promise<boolean> {
  const madeUp = under(attempt.base, `pix-certify-preflight-${randomBytes(6).toString('hex')}`);
  try {
    const other = await ask({ ...attempt, deadline: Date.now() + attempt.timeoutMs }, madeUp);
    return normalised(other, madeUp.pathname) === normalised(answer, tokenUrl.pathname);
  } catch {
    return false;
  }
}
