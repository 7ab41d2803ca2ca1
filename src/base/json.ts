/** Reading JSON values the environment sent: what checks, the client and the ledger share. */

/** Any value JSON can hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reads a dotted path (`data.access_token`) from a JSON value. */
export function readPath(value: JsonValue | undefined, path: string): JsonValue | undefined {
  return path
    .split('.')
    .reduce<JsonValue | undefined>((node, part) => (isJsonObject(node) ? node[part] : undefined), value);
}

/** The names of the top-level fields whose values are strings. */
export function stringFields(value: JsonValue | undefined): string[] {
  if (!isJsonObject(value)) return [];
  return Object.entries(value)
    .filter(([, v]) => typeof v === 'string')
    .map(([k]) => k);
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** application/json and its +json relatives (problem+json), whatever the parameters. */
export function isJsonContentType(contentType: string): boolean {
  return JSON_MEDIA_TYPE.test(contentType);
}
