/**
 * action.yml, the GitHub Action: its structure (composite, inputs that name real PIX_* variables, no secret
 * as an input, no expression spliced into a script, outputs from the certify step, reports kept even on
 * failure), then its `run:` steps executed on this machine against the packed tool.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VARIABLES } from '../tests/_support/config.ts';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parse } from 'yaml';
import { readAction, runComposite, type ActionStep } from './support/composite-action.ts';

const ROOT = join(import.meta.dirname, '..');
const action = readAction(join(ROOT, 'action.yml'));
const steps = action.runs.steps;

/** base-url is PIX_BASE_URL: the rule the certify step applies to every input named like a variable. */
const variableOf = (input: string): string => `PIX_${input.toUpperCase().replaceAll('-', '_')}`;

describe('action.yml', () => {
  it('is a composite action whose run steps use bash', () => {
    assert.equal(action.runs.using, 'composite');
    for (const step of steps.filter((s) => s.run !== undefined)) assert.equal(step.shell, 'bash', step.name);
  });

  it('describes every input; those described as a PIX_* variable map to it by name, and it exists', () => {
    const certify = steps.find((s) => s.id === 'certify')?.run ?? '';
    const notVariables = /notVariables = new Set\(\[(.*?)\]\)/.exec(certify)?.[1] ?? '';
    for (const [name, input] of Object.entries(action.inputs)) {
      assert.ok((input.description ?? '').length > 0, `${name} has no description`);
      const named = /^(PIX_[A-Z_]+),/.exec(input.description ?? '')?.[1];
      if (named === undefined) {
        assert.ok(notVariables.includes(`"${name}"`), `${name} is neither a PIX_* variable nor left out`);
        continue;
      }
      assert.equal(variableOf(name), named, name);
      assert.ok(VARIABLES.includes(named), `${named} is not a variable of the suite`);
    }
  });

  it('takes no secret as an input: secrets go in the env, where GitHub masks them', () => {
    for (const name of Object.keys(action.inputs))
      assert.doesNotMatch(name, /secret|token|password|passphrase|cert-client|client-id|key-file|pfx/, name);
  });

  it('never splices an expression into a script: inputs reach it as environment variables', () => {
    for (const step of steps.filter((s) => s.run !== undefined))
      assert.doesNotMatch(step.run ?? '', /\$\{\{/);
  });

  it('gives the verdict, the exit code and the report directory from the certify step', () => {
    for (const name of ['verdict', 'exit-code', 'report-dir'])
      assert.equal(action.outputs[name]?.value, `\${{ steps.certify.outputs.${name} }}`, name);
  });

  it('keeps the reports also when the run fails, and ends with the exit code of pix-certify', () => {
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@') === true);
    assert.match(upload?.if ?? '', /always\(\)/);
    assert.equal(upload?.with?.path, '${{ steps.certify.outputs.report-dir }}');
    const last = steps.at(-1);
    assert.equal(last?.env?.CODE, '${{ steps.certify.outputs.exit-code }}');
    assert.match(last?.run ?? '', /exit "\$CODE"/);
  });

  it('is what the example workflow uses, with inputs it has and secrets in the env', () => {
    const workflow = parse(readFileSync(join(ROOT, 'examples/github-actions.yml'), 'utf8')) as {
      jobs: Record<string, { steps: ActionStep[] }>;
    };
    const uses = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .filter((step) => step.uses?.endsWith('/pix-withdrawal-conformance@v1') === true);
    assert.equal(uses.length, 1);
    for (const name of Object.keys(uses[0]?.with ?? {})) assert.ok(name in action.inputs, name);
    for (const value of Object.values(uses[0]?.with ?? {})) assert.doesNotMatch(value, /secrets\./);
  });
});

/** The tool as a release ships it: packed (prepack builds dist/) into a temporary directory. */
function packTool(): string {
  const into = mkdtempSync(join(tmpdir(), 'pix-action-pack-'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', into], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1);
  return join(into, name ?? '');
}

/** The job's environment without this machine's PIX_* settings: only what a workflow would give. */
const jobEnv = (extra: Record<string, string>): Record<string, string> => ({
  ...(Object.fromEntries(
    Object.entries(process.env).filter(([key, value]) => !key.startsWith('PIX_') && value !== undefined),
  ) as Record<string, string>),
  CI: '1',
  ...extra,
});

describe('action.yml, its run steps on this machine', () => {
  const tarball = packTool();
  const run = (inputs: Record<string, string>, env: Record<string, string> = {}) => {
    const cwd = mkdtempSync(join(tmpdir(), 'pix-action-job-'));
    return {
      cwd,
      ran: runComposite(action, {
        actionPath: ROOT,
        inputs: { package: tarball, ...inputs },
        env: jobEnv(env),
        cwd,
      }),
    };
  };

  it('installs the packed tool, certifies the mock: INCOMPLETE, exit 0, reports kept, summary written', () => {
    // An input is a value, never code: the label reaches the report as typed.
    const label = 'UAT $(touch pwned) `touch pwned2` "; exit 7';
    const { cwd, ran } = run({ 'env-name': label });
    assert.equal(ran.code, 0, ran.log);
    assert.deepEqual(ran.skippedUses, ['actions/setup-node@v4', 'actions/upload-artifact@v4']);
    assert.equal(ran.outputs.verdict, 'INCOMPLETE');
    assert.equal(ran.outputs['exit-code'], '0');
    assert.equal(ran.outputs['report-dir'], join(cwd, 'reports'));
    const report = JSON.parse(readFileSync(join(cwd, 'reports', 'certification.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(report.verdict, 'INCOMPLETE');
    assert.ok(JSON.stringify(report).includes(JSON.stringify(label).slice(1, -1)), 'the label as typed');
    assert.ok(!existsSync(join(cwd, 'pwned')) && !existsSync(join(cwd, 'pwned2')));
    assert.match(ran.summary, /INCOMPLETE/);
    assert.match(ran.log, /pix-certify: verdict INCOMPLETE, exit 0/);
  });

  it('an empty input leaves the env alone; a configuration error gives verdict ERROR and exit 2', () => {
    // Payouts allowed in the env, as a secret store would set it, with no base URL anywhere.
    const { ran } = run({ 'base-url': '' }, { PIX_ALLOW_PAYOUTS: '1' });
    assert.equal(ran.code, 2, ran.log);
    assert.equal(ran.outputs.verdict, 'ERROR');
    assert.equal(ran.outputs['exit-code'], '2');
    assert.match(ran.log, /PIX_BASE_URL/);
    assert.match(ran.summary, /stopped with exit 2/);
  });
});
