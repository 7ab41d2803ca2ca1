/** The shape of a JSON value without its values, so observations never carry data or secrets. */
import type { JsonValue } from './checks/types.ts';

export function shapeOf(value: JsonValue | undefined, depth = 0): JsonValue {
  if (value === undefined) return 'not JSON';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 || depth > 3 ? 'array' : [shapeOf(value[0], depth + 1)];
  if (typeof value === 'object') {
    if (depth > 3) return 'object';
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shapeOf(v, depth + 1)]));
  }
  return typeof value;
}
