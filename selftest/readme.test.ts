/**
 * The README a user reads first: short and every link resolving. Its live example is run against the
 * sandbox by selftest/slow/readme-example.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..');
const README = join(ROOT, 'README.md');
const text = readFileSync(README, 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The Markdown outside fenced code blocks, where links are links. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

function anchorsOf(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((line) => slug(line.replace(/^#+ /, '').replace(/`/g, ''))));
}

/** Why a link of `from` does not resolve, or undefined when it does. */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z]+:/i.test(target)) return `${target}: the README links only to files of the repository`;
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? from : resolve(dirname(from), path);
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor !== undefined && !anchorsOf(file).has(anchor)) return `${target}: no heading #${anchor}`;
  return undefined;
}

describe('the README', () => {
  it('is read in five minutes: under 250 lines', () => {
    const lines = text.split('\n').length;
    assert.ok(lines < 250, `${lines} lines`);
  });

  it('links only to what exists: files of the repository and their headings', () => {
    const links = [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    assert.ok(links.length > 10, `${links.length} links found`);
    const broken = links.flatMap((target) => brokenLink(README, target) ?? []);
    assert.deepEqual(broken, []);
  });
});
