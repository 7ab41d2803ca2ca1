/** The OpenAPI document drives everything: its examples must be realistic and its cases complete. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { plainHeaderCases } from '../src/checks/accept.ts';
import { bodyCases } from '../src/checks/bodies.ts';
import { catalogue } from '../src/checks/catalogue.ts';
import { credentialCases } from '../src/checks/credentials.ts';
import { silentValueCases } from '../src/checks/silent-values.ts';
import { isValidDocument, keyKindOf, keyProblem } from '../src/config/pix-keys.ts';
import { CONTROL_SPEC_PATH, ROOT, SPEC_PATH } from '../src/base/paths.ts';
import { loadSpec, schemaStoreOf } from '../src/spec/spec.ts';
import { inFreshProcess } from './support/fresh-process.ts';
import { temporaryDir } from './support/temporary.ts';

interface Example {
  value: { amount: number; key_type: string; key_pix: string; document: string };
}

const document = parse(readFileSync(SPEC_PATH, 'utf8')) as {
  info: { version: string };
  components: {
    schemas: Record<string, object>;
    requestBodies: {
      WithdrawRequest: { content: { 'application/json': { examples: Record<string, Example> } } };
    };
  };
};
const examples = document.components.requestBodies.WithdrawRequest.content['application/json'].examples;

describe('the spec', () => {
  it('gives an example for each of the five Pix key types', () => {
    const kinds = new Set(Object.values(examples).map((e) => keyKindOf(e.value.key_type)));
    assert.deepEqual([...kinds].sort(), ['CNPJ', 'CPF', 'EMAIL', 'EVP', 'PHONE']);
  });

  for (const [name, { value }] of Object.entries(examples)) {
    it(`example ${name} has a key that fits its type, a valid document and a two-decimal amount`, () => {
      const kind = keyKindOf(value.key_type);
      assert.ok(kind !== undefined);
      assert.equal(keyProblem(kind, value.key_pix), undefined);
      assert.ok(isValidDocument(value.document), value.document);
      assert.match(String(value.amount), /^\d+(\.\d{1,2})?$/);
    });
  }

  it('derives one credential case per header and way of being wrong', () => {
    const spec = loadSpec();
    assert.deepEqual(
      credentialCases(spec, 'createToken').map((c) => `${c.credential.header}:${c.variant}`),
      [
        'client_id:missing',
        'client_id:wrong',
        'cert_client:missing',
        'cert_client:wrong',
        'cert_client:malformed',
      ],
    );
    assert.deepEqual(
      credentialCases(spec, 'createWithdraw').map((c) => `${c.credential.header}:${c.variant}`),
      [
        'client_id:missing',
        'client_id:wrong',
        'client_secret:missing',
        'client_secret:wrong',
        'Authorization:missing',
        'Authorization:not-bearer',
        'Authorization:forged',
        'Authorization:random',
      ],
    );
    assert.deepEqual(
      plainHeaderCases(spec, 'createWithdraw').map((c) => c.check.id),
      ['PAYMENT-ACCEPT-MISSING', 'PAYMENT-ACCEPT-NOT-JSON'],
    );
  });

  it('derives a wrong-type case for every body field and a missing-field case for every field without a documented default', () => {
    const ids = [...bodyCases(loadSpec()), ...silentValueCases(loadSpec())].map((c) => c.check.id);
    for (const field of loadSpec().bodyFields) {
      const slug = field.name.toUpperCase().replace(/_/g, '-');
      assert.ok(ids.includes(`PAYMENT-BODY-WRONG-TYPE-${slug}`), field.name);
      assert.equal(ids.includes(`PAYMENT-BODY-MISSING-${slug}`), !field.mayBeOmitted, field.name);
    }
  });

  it('names a clause of the document for every check, and ids are unique', () => {
    const clauses = Object.keys(loadSpec().clauses);
    const checks = catalogue('provider');
    assert.equal(new Set(checks.map((c) => c.id)).size, checks.length);
    for (const check of checks) {
      assert.ok(
        clauses.some((clause) => check.clause.includes(clause)),
        `${check.id}: ${check.clause}`,
      );
      assert.ok(check.reason.length > 20, check.id);
      assert.ok(check.remedy.length > 20, `${check.id} says what to do`);
    }
  });

  it('holds component schemas that JSON Schema 2020-12 accepts (a run does not check, src/spec/spec.ts)', () => {
    const store = schemaStoreOf({});
    const schemas = Object.entries(document.components.schemas);
    assert.ok(schemas.length >= 3);
    for (const [name, schema] of schemas)
      assert.ok(store.validateSchema(schema), `${name}: ${store.errorsText(store.errors)}`);
    // What only the meta-schema finds (strict compilation takes a negative minLength): the check can fail.
    assert.equal(store.validateSchema({ type: 'string', minLength: -1 }), false);
  });

  const generated = [
    [SPEC_PATH, join(ROOT, 'src', 'spec', 'generated', 'pix-withdrawal.ts')],
    [CONTROL_SPEC_PATH, join(ROOT, 'src', 'spec', 'generated', 'simulator-control.ts')],
    [CONTROL_SPEC_PATH, join(ROOT, 'sandbox', 'generated', 'simulator-control.ts')],
  ] as const;
  // Each document's types generated once (about 2.5 s of processor time), however many copies are held to them.
  const freshTypes = new Map<string, string>();
  const typesOf = (spec: string): string => {
    const known = freshTypes.get(spec);
    if (known !== undefined) return known;
    const fresh = join(temporaryDir('pix-types-'), `${basename(spec, '.yaml')}.ts`);
    execFileSync(join(ROOT, 'node_modules', '.bin', 'openapi-typescript'), [spec, '-o', fresh], {
      stdio: 'ignore',
    });
    const types = readFileSync(fresh, 'utf8');
    freshTypes.set(spec, types);
    return types;
  };
  for (const [spec, committed] of generated) {
    it(`has ${relative(ROOT, committed)} generated from the current ${basename(spec)} (npm run generate:types)`, () => {
      assert.equal(
        readFileSync(committed, 'utf8'),
        typesOf(spec),
        'the spec changed: run npm run generate:types',
      );
    });
  }
});

describe('the document handed on to the processes a run starts (PIX_SPEC_DOCUMENT)', () => {
  const source = readFileSync(SPEC_PATH, 'utf8');
  const hash = createHash('sha256').update(source).digest('hex');
  /** The version a fresh process reads, and the run state it would hand on, given PIX_SPEC_DOCUMENT. */
  const readIn = (carried: string | undefined): { version: string; handsOn: string | undefined } => {
    const script = `import { loadSpec } from './src/spec/spec.ts';
      process.stdout.write(JSON.stringify({ version: loadSpec().version, handsOn: process.env.PIX_SPEC_DOCUMENT }));`;
    const out = inFreshProcess(script, { env: { ...process.env, PIX_SPEC_DOCUMENT: carried ?? '' } });
    assert.ok(out !== undefined, 'the process that loads the spec failed');
    return JSON.parse(out) as { version: string; handsOn: string | undefined };
  };
  const handed = (version: string, withHash: string): string =>
    `${withHash}\n${JSON.stringify({ ...(parse(source) as object), info: { ...document.info, version } })}`;

  it('the first process parses the YAML and hands on its hash and the document as JSON', () => {
    const { version, handsOn } = readIn(undefined);
    assert.equal(version, document.info.version);
    assert.ok(handsOn !== undefined && handsOn.startsWith(`${hash}\n`));
    assert.deepEqual(JSON.parse(handsOn.slice(hash.length + 1)), parse(source));
  });

  it('a process handed the document of this very text builds from it, without parsing the YAML', () => {
    assert.equal(readIn(handed('handed-on', hash)).version, 'handed-on');
  });

  it('a document of another text (the file changed since) is not used: the YAML is parsed again', () => {
    assert.equal(readIn(handed('handed-on', 'f'.repeat(64))).version, document.info.version);
  });

  it('a document cut short on its way is not used either: the YAML is parsed again', () => {
    assert.equal(readIn(handed('handed-on', hash).slice(0, 200)).version, document.info.version);
  });
});
