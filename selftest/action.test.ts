/**
 * action.yml, the GitHub Action: its structure (composite, inputs that name real PIX_* variables, no secret
 * as an input, no expression spliced into a script, outputs from the certify step, reports kept even on
 * failure). Its `run:` steps are executed on this machine against the packed tool in slow/package.test.ts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { readAction, type ActionStep } from './support/composite-action.ts';
import { VARIABLES } from '../src/config/variables.ts';

const ROOT = join(import.meta.dirname, '..');
const action = readAction(join(ROOT, 'action.yml'));
const steps = action.runs.steps;

/** The steps of every job of an example workflow. */
function exampleSteps(file: string): ActionStep[] {
  const workflow = parse(readFileSync(join(ROOT, file), 'utf8')) as {
    jobs: Record<string, { steps: ActionStep[] }>;
  };
  return Object.values(workflow.jobs).flatMap((job) => job.steps);
}

const isTheAction = (step: ActionStep): boolean =>
  step.uses?.endsWith('/pix-withdrawal-conformance@v1') === true;

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
      assert.ok((VARIABLES as readonly string[]).includes(named), `${named} is not a variable of the suite`);
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
    assert.ok(last !== undefined);
    assert.equal(last.env?.CODE, '${{ steps.certify.outputs.exit-code }}');
    assert.match(last.run ?? '', /exit "\$CODE"/);
  });

  for (const example of ['examples/github-actions.yml', 'examples/github-actions-client.yml'])
    it(`is what ${example} uses, with inputs it has and secrets in the env`, () => {
      const uses = exampleSteps(example).filter(isTheAction);
      assert.equal(uses.length, 1);
      for (const name of Object.keys(uses[0]?.with ?? {})) assert.ok(name in action.inputs, name);
      for (const value of Object.values(uses[0]?.with ?? {})) assert.doesNotMatch(value, /secrets\./);
    });

  it("the client workflow checks out the application, sets up its Node and installs it before the suite's client mode", () => {
    const example = exampleSteps('examples/github-actions-client.yml');
    const at = (found: (step: ActionStep) => boolean): number => example.findIndex(found);
    const checkout = at((s) => s.uses?.startsWith('actions/checkout@') === true);
    const node = at((s) => s.uses?.startsWith('actions/setup-node@') === true);
    const install = at((s) => /\bnpm ci\b/.test(s.run ?? ''));
    const suite = at(isTheAction);
    assert.ok(checkout === 0 && checkout < node && node < install && install < suite, `${checkout} ${node} ${install} ${suite}`);
    const inputs = example[suite]?.with ?? {};
    assert.equal(inputs.mode, 'client');
    assert.ok((inputs.command ?? '').length > 0, 'the command that runs the tests');
    assert.equal(inputs['require-complete'], undefined, 'a gate fails closed: INCOMPLETE fails by default');
    assert.equal(action.inputs['require-complete']?.default, '1');
    assert.equal(inputs['node-version'], String(example[node]?.with?.['node-version']), "the suite runs on the application's Node");
  }); // prettier-ignore
});
