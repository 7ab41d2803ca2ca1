/**
 * The Spectral ruleset holds the spec to interface.md. The real spec passes it, and each of our rules is
 * shown to fail on a copy of the spec broken in exactly the way the rule exists to catch. Redocly's
 * recommended rules pass too, with the exceptions redocly.yaml and .redocly.lint-ignore.yaml give for
 * the webhook only: a copy without security on an operation of the interface still fails.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { CONTROL_SPEC_PATH, SPEC_PATH } from '../src/base/paths.ts';
import { temporaryDir } from './support/temporary.ts';

const ROOT = join(import.meta.dirname, '..');
const SPECTRAL = join(ROOT, 'node_modules', '.bin', 'spectral');
const RULESET = join(ROOT, 'openapi', '.spectral.yaml');
const CONTROL_RULESET = join(ROOT, 'openapi', '.spectral-control.yaml');
// A cold Spectral start takes a second or two; a minute means it is stuck, not slow.
const SPECTRAL_TIMEOUT_MS = 60_000;
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');
// No usage report and no update check: the self-tests reach no network.
const REDOCLY_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

interface RedoclyRun {
  readonly totals: { readonly errors: number; readonly warnings: number; readonly ignored: number };
  readonly problems: readonly {
    readonly ruleId: string;
    readonly message: string;
    readonly location: readonly { readonly pointer: string }[];
  }[];
}

interface LintResult {
  readonly code: string;
  readonly path: readonly string[];
  readonly message: string;
  readonly severity: number;
  readonly source: string;
}

/** Spectral's severities run 0 (error) to 3 (hint): under --fail-severity=warn, 1 or less fails the lint. */
const FAILS_THE_LINT = 1;

interface LintRun {
  readonly exitCode: number;
  readonly results: readonly LintResult[];
}

type YamlMap = Record<string, unknown>;

interface Mutation {
  readonly title: string;
  readonly rule: string;
  readonly path: readonly string[];
  readonly mutate: (spec: YamlMap) => void;
}

/** Lints files with the same flags as `npm run lint:openapi`, JSON output; each result names its file. */
function lint(files: readonly string[], ruleset = RULESET): Promise<LintRun> {
  const args = ['lint', '--quiet', '--format=json', '--fail-severity=warn', '--ruleset', ruleset, ...files];
  return new Promise((resolve, reject) => {
    execFile(SPECTRAL, args, { cwd: ROOT, timeout: SPECTRAL_TIMEOUT_MS }, (error, stdout, stderr) => {
      let exitCode = 0;
      if (error !== null) {
        if (typeof error.code !== 'number') {
          const why = error.killed ? `timed out after ${SPECTRAL_TIMEOUT_MS} ms` : error.message;
          reject(
            new Error(`Could not run Spectral (${SPECTRAL}): ${why}. Is @stoplight/spectral-cli installed?`),
          );
          return;
        }
        exitCode = error.code;
      }
      try {
        resolve({ exitCode, results: JSON.parse(stdout) as LintResult[] });
      } catch {
        reject(
          new Error(
            `Spectral exited ${exitCode} without JSON results.\nstdout: ${stdout}\nstderr: ${stderr}`,
          ),
        );
      }
    });
  });
}

/** Lints one file with Redocly's recommended rules and the repository's redocly.yaml, JSON output. */
function redocly(file: string): Promise<RedoclyRun> {
  const args = ['lint', '--format=json', file];
  return new Promise((resolve, reject) => {
    execFile(
      REDOCLY,
      args,
      { cwd: ROOT, timeout: SPECTRAL_TIMEOUT_MS, env: REDOCLY_ENV },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(
            new Error(`Could not run Redocly (${REDOCLY}): ${error.message}. Is @redocly/cli installed?`),
          );
          return;
        }
        try {
          resolve(JSON.parse(stdout) as RedoclyRun);
        } catch {
          reject(new Error(`Redocly wrote no JSON results.\nstdout: ${stdout}\nstderr: ${stderr}`));
        }
      },
    );
  });
}

function isMap(value: unknown): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The mapping at `path` in the spec; throws if the spec no longer has it, so a mutation never silently misses. */
function at(spec: YamlMap, ...path: string[]): YamlMap {
  let current: unknown = spec;
  for (const key of path) {
    current = isMap(current) ? current[key] : undefined;
  }
  if (!isMap(current)) {
    throw new Error(`The spec has no mapping at ${path.join(' > ')}; update this self-test to the spec.`);
  }
  return current;
}

/** Deletes `key` from `map`, insisting it was there. */
function remove(map: YamlMap, key: string): void {
  assert.ok(key in map, `expected "${key}" to be present before removing it`);
  Reflect.deleteProperty(map, key);
}

const mutations: readonly Mutation[] = [
  {
    title: 'an operation without x-doc-ref (/pix/payment post)',
    rule: 'doc-ref-operation',
    path: ['paths', '/pix/payment', 'post'],
    mutate: (spec) => {
      remove(at(spec, 'paths', '/pix/payment', 'post'), 'x-doc-ref');
    },
  },
  {
    title: 'a schema property without x-doc-ref (WithdrawRequest.amount)',
    rule: 'doc-ref-property',
    path: ['components', 'schemas', 'WithdrawRequest', 'properties', 'amount'],
    mutate: (spec) => {
      remove(at(spec, 'components', 'schemas', 'WithdrawRequest', 'properties', 'amount'), 'x-doc-ref');
    },
  },
  {
    title: 'a status that §7 does not list (422 on /pix/payment)',
    rule: 'documented-statuses-only',
    path: ['paths', '/pix/payment', 'post', 'responses', '422'],
    mutate: (spec) => {
      at(spec, 'paths', '/pix/payment', 'post', 'responses')['422'] = {
        $ref: '#/components/responses/BadRequest',
      };
    },
  },
  {
    title: 'a required list on a schema the document leaves unspecified (WithdrawRequest)',
    rule: 'unspecified-has-assumption-or-permissive',
    path: ['components', 'schemas', 'WithdrawRequest', 'required'],
    mutate: (spec) => {
      const schema = at(spec, 'components', 'schemas', 'WithdrawRequest');
      assert.equal(schema['x-doc-unspecified'], true);
      schema.required = ['amount'];
    },
  },
];

describe('the OpenAPI ruleset', { concurrency: 2 }, () => {
  let source = '';
  let workDir = '';
  // Every mutated copy in one Spectral run: each start costs about 2 s of processor time.
  let mutated: LintRun;
  const copyBroken = (rule: string): string => join(workDir, `${rule}.yaml`);

  before(async () => {
    source = await readFile(SPEC_PATH, 'utf8');
    workDir = temporaryDir('pix-openapi-lint-');
    for (const { rule, mutate } of mutations) {
      const spec = parse(source) as unknown;
      assert.ok(isMap(spec), 'the spec parses to a mapping');
      mutate(spec);
      await writeFile(copyBroken(rule), stringify(spec), 'utf8');
    }
    mutated = await lint(mutations.map(({ rule }) => copyBroken(rule)));
  });

  after(async () => {
    if (workDir !== '') await rm(workDir, { recursive: true, force: true });
  });

  it('passes the real spec with no warnings or errors', async () => {
    const run = await lint([SPEC_PATH]);
    assert.deepEqual(run.results, []);
    assert.equal(run.exitCode, 0);
  });

  it("passes Redocly's recommended rules, the webhook's unshown security and refusals set aside", async () => {
    const run = await redocly(SPEC_PATH);
    assert.deepEqual(run.problems, []);
    assert.deepEqual(run.totals, { errors: 0, warnings: 0, ignored: 1 });
  });

  it('still fails, with Redocly, an operation of the interface without security (/pix/payment)', async () => {
    const spec = parse(source) as unknown;
    assert.ok(isMap(spec), 'the spec parses to a mapping');
    remove(at(spec, 'paths', '/pix/payment', 'post'), 'security');
    // Beside the spec, so that redocly.yaml and the ignore file apply to it as to the real one.
    const file = join(ROOT, 'openapi', `.redocly-selftest-${process.pid}.yaml`);
    await writeFile(file, stringify(spec), 'utf8');
    try {
      const run = await redocly(file);
      // The ignore file names the real spec's path, so the copy shows the webhook's other problems too.
      assert.deepEqual(
        run.problems.filter((p) => p.ruleId === 'security-defined').map((p) => p.location[0]?.pointer),
        ['#/paths/~1pix~1payment/post'],
      );
    } finally {
      await rm(file, { force: true });
    }
  });

  it("passes the control API contract, with its own rules and Redocly's recommended ones", async () => {
    const [run, recommended] = await Promise.all([
      lint([CONTROL_SPEC_PATH], CONTROL_RULESET),
      redocly(CONTROL_SPEC_PATH),
    ]);
    assert.deepEqual(run.results, []);
    assert.equal(run.exitCode, 0);
    assert.deepEqual(recommended.problems, []);
  });

  it('rejects a control API element that does not say what it is for, with described', async () => {
    const spec = parse(await readFile(CONTROL_SPEC_PATH, 'utf8')) as unknown;
    assert.ok(isMap(spec), 'the contract parses to a mapping');
    const path = ['components', 'schemas', 'DueDelivery', 'properties', 'dueInMs'];
    remove(at(spec, ...path), 'description');
    const file = join(workDir, 'described.yaml');
    await writeFile(file, stringify(spec), 'utf8');
    const run = await lint([file], CONTROL_RULESET);
    assert.notEqual(run.exitCode, 0, 'Spectral must fail the mutated contract');
    assert.deepEqual(
      run.results.map((r) => ({ code: r.code, path: r.path })),
      [{ code: 'described', path }],
    );
  });

  for (const { title, rule, path } of mutations) {
    it(`rejects ${title} with ${rule}`, () => {
      const results = mutated.results.filter((r) => r.source === copyBroken(rule));

      assert.notEqual(mutated.exitCode, 0, 'Spectral must fail the mutated specs');
      assert.deepEqual(
        results.map((r) => ({ code: r.code, path: r.path })),
        [{ code: rule, path }],
        'exactly the one rule must fire, at the mutated element',
      );
      assert.ok(
        results.every((r) => r.severity <= FAILS_THE_LINT),
        'the rule alone fails the lint (--fail-severity=warn)',
      );
    });
  }
});
