/**
 * JSON values small enough for a report, whatever the environment answered: the shape of a value
 * without its data, and bounded copies of values. Both are capped in depth and in members per object
 * or array, bounded copies also in characters per string; a cap says what it left out, so the
 * report shows that it was capped. Secrets are masked before anything is cut, so a cut never leaves
 * part of one in clear.
 */
import { excerpt, redactJson } from '../secrets/redact.ts';
import type { JsonValue } from '../base/json.ts';

/**
 * Enough for any real response; a token response with 200,000 fields stays a few kilobytes. Width
 * counts the members of an object or the items of an array; text, the characters of a string or a
 * member name.
 */
const LIMITS = { depth: 4, width: 100, text: 300 } as const;

/** The member that stands for those left out. */
const MORE = '…';

/** The first `width` members, each mapped, and one that counts the rest; reads no further than it keeps. */
function within(
  value: JsonValue[] | { [key: string]: JsonValue },
  width: number,
  each: (member: JsonValue) => JsonValue,
): JsonValue {
  if (Array.isArray(value)) {
    const items = value.slice(0, width).map(each);
    const left = value.length - items.length;
    return left > 0 ? [...items, `${left} more items not shown (capped at ${width})`] : items;
  }
  const shown: { [key: string]: JsonValue } = {};
  let count = 0;
  for (const name in value) {
    if (count++ < width) shown[name] = each(value[name] ?? null);
  }
  if (count > width) shown[MORE] = `${count - width} more fields not shown (capped at ${width})`;
  return shown;
}

/** The value with its data replaced by type names; an array is shown by its first item. */
export function shapeOf(value: JsonValue | undefined, depth = 0): JsonValue {
  if (value === undefined) return 'not JSON';
  if (value === null) return 'null';
  if (Array.isArray(value))
    return value.length === 0 || depth >= LIMITS.depth ? 'array' : [shapeOf(value[0], depth + 1)];
  if (typeof value === 'object')
    return depth >= LIMITS.depth
      ? 'object'
      : within(value, LIMITS.width, (member) => shapeOf(member, depth + 1));
  return typeof value;
}

/** Drops what lies beyond the caps; strings stay whole, so that masking sees every secret entire. */
function prune(value: JsonValue, depth: number): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= LIMITS.depth) return Array.isArray(value) ? 'array' : 'object';
  return within(value, LIMITS.width, (member) => prune(member, depth + 1));
}

function cut(value: JsonValue): JsonValue {
  if (typeof value === 'string') return excerpt(value, LIMITS.text);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cut);
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [excerpt(name, LIMITS.text), cut(member)]),
  );
}

/** A redacted copy of a value within the limits: pruned, then masked, then its strings cut. */
export function boundedJson(value: JsonValue): JsonValue {
  return cut(redactJson(prune(value, 0)));
}
