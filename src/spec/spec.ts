/**
 * The OpenAPI document as the suite reads it: the single source of truth for operations, credential
 * headers, body fields, documented statuses and clause references. Negative cases and the Ajv
 * validators are derived from here, never written out by hand.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonValue } from '../base/json.ts';
import { SPEC_PATH } from '../base/paths.ts';
import { runState, shareRunState } from '../base/run-state.ts';

type Node = Record<string, unknown>;

export type OperationId = 'createToken' | 'createWithdraw';

/** How a credential header is judged when wrong: what the document names it in §2.2. */
export type CredentialKind = 'identifier' | 'secret' | 'certificate' | 'token';

export interface CredentialHeader {
  readonly header: string;
  readonly scheme: string;
  readonly kind: CredentialKind;
  readonly base64: boolean;
}

export interface PlainHeader {
  readonly header: string;
  readonly value: string;
  readonly clause: string;
}

export interface BodyField {
  readonly name: string;
  readonly type: 'string' | 'number' | 'boolean';
  readonly clause: string;
  /** The document speaks of a default (check_code), so leaving the field out is anticipated. */
  readonly mayBeOmitted: boolean;
}

export interface OperationModel {
  readonly id: OperationId;
  readonly method: 'POST';
  readonly path: string;
  readonly clause: string;
  readonly credentials: readonly CredentialHeader[];
  /** Required non-credential headers of the document's table (Accept). */
  readonly plainHeaders: readonly PlainHeader[];
  readonly statuses: readonly number[];
}

export interface SpecModel {
  readonly version: string;
  readonly hash: string;
  readonly clauses: Readonly<Record<string, string>>;
  readonly operations: Readonly<Record<OperationId, OperationModel>>;
  readonly bodyFields: readonly BodyField[];
  /** Validates a response body of an operation and status against the spec's schema. */
  responseValidator(operation: OperationId, status: number): ValidateFunction | undefined;
  /** The example of the operation's answer with that status, as the embedded mock answers it. */
  responseExample(operation: OperationId, status: number): JsonValue | undefined;
}

function asNode(value: unknown, where: string): Node {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`spec: ${where} is not an object`);
  return value as Node;
}

function text(node: Node, key: string, where: string): string {
  const value = node[key];
  if (typeof value !== 'string') throw new Error(`spec: ${where}.${key} is missing`);
  return value;
}

/** Follows a local `$ref` (`#/a/b`) once; the spec only uses local references. */
function deref(root: Node, value: unknown, where: string): Node {
  const node = asNode(value, where);
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Node>((acc, part) => asNode(acc[part], `${where} → ${ref}`), root);
}

/** The id under which the spec's schemas are known to Ajv; `.invalid` so that it can never be fetched. */
const SCHEMA_BASE = 'https://pix-withdrawal.invalid/openapi.json';

/** OpenAPI's own words that are not JSON Schema keywords: annotations for Ajv. */
const EXTENSION_KEYWORDS = [
  'x-doc-ref',
  'x-doc-unspecified',
  'x-doc-default',
  'x-suite-assumption',
  'components',
];

function buildOperation(root: Node, id: OperationId, path: string, operation: Node): OperationModel {
  const schemes = asNode(asNode(root.components, 'components').securitySchemes, 'securitySchemes');
  const requirement = asNode((operation.security as unknown[] | undefined)?.[0], `${path} security`);
  const docHeaders = (operation['x-doc-headers'] as Node[] | undefined) ?? [];
  const credentials = Object.keys(requirement).map((schemeName): CredentialHeader => {
    const scheme = asNode(schemes[schemeName], `securitySchemes.${schemeName}`);
    return {
      header: scheme.type === 'http' ? 'Authorization' : text(scheme, 'name', schemeName),
      scheme: schemeName,
      kind: text(scheme, 'x-credential', schemeName) as CredentialKind,
      base64: scheme['x-value-encoding'] === 'base64',
    };
  });
  const plainHeaders = docHeaders
    .filter((h) => h.scheme === undefined)
    .map((h) => ({
      header: text(h, 'name', path),
      value: text(h, 'value', path),
      clause: text(h, 'x-doc-ref', path),
    }));
  return {
    id,
    method: 'POST',
    path,
    clause: text(operation, 'x-doc-ref', path),
    credentials,
    plainHeaders,
    statuses: Object.keys(asNode(operation.responses, `${path} responses`)).map(Number),
  };
}

/**
 * Ajv holding the spec's component schemas under SCHEMA_BASE, strict: a keyword it does not know, or
 * of the wrong type, stops the compilation of the schema that holds it. Adding them is not checked
 * against JSON Schema 2020-12's meta-schema: that check saw only the wrapper (`components` is no
 * keyword, so the schemas inside went unchecked) and compiling the meta-schema took 74 ms of each
 * worker's first judgement, which at +100 ms per request stood between the first answers and the next
 * requests. The spec ships with the suite: selftest/spec.test.ts checks each schema against the
 * meta-schema, with this store.
 */
export function schemaStoreOf(schemas: object): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, validateSchema: false });
  addFormats.default(ajv);
  for (const keyword of EXTENSION_KEYWORDS) ajv.addKeyword(keyword);
  ajv.addSchema({ $id: SCHEMA_BASE, components: { schemas } });
  return ajv;
}

/** The validator of a schema reference (`#/components/schemas/…`) in a store that schemaStoreOf made. */
export function schemaValidator(store: Ajv2020, ref: string): ValidateFunction | undefined {
  return store.getSchema(`${SCHEMA_BASE}${ref}`);
}

function buildSpecModel(document: unknown, hash: string): SpecModel {
  const root = asNode(document, 'document');
  const info = asNode(root.info, 'info');
  const paths = asNode(root.paths, 'paths');
  const operations = {} as Record<OperationId, OperationModel>;
  for (const [path, item] of Object.entries(paths)) {
    const post = asNode(asNode(item, path).post, `${path}.post`);
    const id = text(post, 'operationId', path) as OperationId;
    operations[id] = buildOperation(root, id, path, post);
  }
  const components = asNode(root.components, 'components');
  const schemas = asNode(components.schemas, 'schemas');
  const withdraw = asNode(schemas.WithdrawRequest, 'WithdrawRequest');
  const bodyFields = Object.entries(asNode(withdraw.properties, 'WithdrawRequest.properties')).map(
    ([name, value]) => {
      const property = asNode(value, name);
      return {
        name,
        type: text(property, 'type', name) as BodyField['type'],
        clause: text(property, 'x-doc-ref', name),
        mayBeOmitted: property['x-doc-default'] !== undefined,
      };
    },
  );

  // Built on first use: the runner and the catalogue need the spec, not its validators.
  let ajv: Ajv2020 | undefined;
  const schemaStore = (): Ajv2020 => {
    ajv ??= schemaStoreOf(schemas);
    return ajv;
  };
  /** The JSON content of the operation's answer with that status, if the document has one. */
  const jsonContent = (operation: OperationId, status: number): Node | undefined => {
    const key = `${operation} ${status}`;
    const path = operations[operation].path;
    const responses = asNode(asNode(asNode(paths[path], path).post, path).responses, path);
    const response = responses[String(status)];
    return response === undefined
      ? undefined
      : deref(root, asNode(deref(root, response, key).content, key)['application/json'], key);
  };
  const validators = new Map<string, ValidateFunction | undefined>();
  const responseValidator = (operation: OperationId, status: number): ValidateFunction | undefined => {
    const key = `${operation} ${status}`;
    if (!validators.has(key)) {
      const schema = jsonContent(operation, status)?.schema;
      const ref = schema === undefined ? undefined : (asNode(schema, key).$ref as string | undefined);
      validators.set(key, ref === undefined ? undefined : schemaValidator(schemaStore(), ref));
    }
    return validators.get(key);
  };

  return {
    version: text(info, 'version', 'info'),
    hash,
    clauses: asNode(root['x-doc-clauses'], 'x-doc-clauses') as Record<string, string>,
    operations,
    bodyFields,
    responseValidator,
    responseExample: (operation, status) => jsonContent(operation, status)?.example as JsonValue | undefined,
  };
}

/** The document, if the process that started this one parsed this very text (its hash) and handed it on whole. */
function handedOn(hash: string): unknown {
  const carried = runState('specDocument');
  if (carried?.startsWith(`${hash}\n`) !== true) return undefined;
  try {
    return JSON.parse(carried.slice(hash.length + 1)) as unknown;
  } catch {
    return undefined;
  }
}

/** The YAML parsed, and handed on as JSON to the processes this one starts (each Playwright worker). */
function parseAndHandOn(source: string, hash: string): unknown {
  // Loaded only here: a worker handed the document never loads the YAML parser.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const json = JSON.stringify(parse(source));
  shareRunState({ specDocument: `${hash}\n${json}` });
  // From the JSON as the others get it, so that every process of the run builds the same model.
  return JSON.parse(json) as unknown;
}

let cached: SpecModel | undefined;

export function loadSpec(): SpecModel {
  if (cached === undefined) {
    const source = readFileSync(SPEC_PATH, 'utf8');
    const hash = createHash('sha256').update(source).digest('hex');
    cached = buildSpecModel(handedOn(hash) ?? parseAndHandOn(source, hash), hash);
  }
  return cached;
}

export const documentClauses = (): Readonly<Record<string, string>> => loadSpec().clauses;
