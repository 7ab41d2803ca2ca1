/**
 * Runs a composite action's `run:` steps on this machine the way a GitHub runner does: in order, with bash,
 * each with its env and working directory, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and the `${{ }}`
 * expressions the action uses evaluated. `uses:` steps (setup-node, upload-artifact) need GitHub and are
 * only recorded. An expression this runner does not know fails the run: the self-test then says which.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { temporaryDir } from './temporary.ts';

const run = promisify(execFile);

export interface ActionInput {
  readonly description?: string;
  readonly default?: string;
}

export interface ActionStep {
  readonly id?: string;
  readonly name?: string;
  readonly uses?: string;
  readonly if?: string;
  readonly shell?: string;
  readonly run?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly with?: Readonly<Record<string, string>>;
  readonly 'working-directory'?: string;
}

export interface CompositeAction {
  readonly inputs: Readonly<Record<string, ActionInput>>;
  readonly outputs: Readonly<Record<string, { readonly value: string }>>;
  readonly runs: { readonly using: string; readonly steps: readonly ActionStep[] };
}

export function readAction(path: string): CompositeAction {
  return parse(readFileSync(path, 'utf8')) as CompositeAction;
}

export interface ActionRun {
  /** Exit code of the first run step that failed, or 0. */
  readonly code: number;
  readonly outputs: Readonly<Record<string, string>>;
  readonly stepOutputs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly skippedUses: readonly string[];
  readonly summary: string;
  readonly log: string;
}

interface Context {
  readonly inputs: Readonly<Record<string, string>>;
  readonly actionPath: string;
  readonly runnerTemp: string;
  readonly steps: Record<string, Record<string, string>>;
}

function evaluate(expression: string, context: Context): string {
  const path = expression.trim();
  if (path === 'toJSON(inputs)') return JSON.stringify(context.inputs, null, 2);
  if (path === 'github.action_path') return context.actionPath;
  if (path === 'runner.temp') return context.runnerTemp;
  const input = /^inputs\.([\w-]+)$/.exec(path);
  if (input?.[1] !== undefined) return context.inputs[input[1]] ?? '';
  const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(path);
  if (output?.[1] !== undefined && output[2] !== undefined)
    return context.steps[output[1]]?.[output[2]] ?? '';
  throw new Error(`expression not supported by the self-test's runner: \${{ ${path} }}`);
}

function interpolate(text: string, context: Context): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => evaluate(expression, context));
}

/** GITHUB_OUTPUT's `name=value` lines; the action writes no multi-line values. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return outputs;
}

/**
 * Runs every step whose `if` is unset (GitHub's success()), stopping at the first failing one as a runner
 * does. `env` is the calling step's environment (where a workflow puts its secrets).
 */
export async function runComposite(
  action: CompositeAction,
  options: {
    readonly actionPath: string;
    readonly inputs: Readonly<Record<string, string>>;
    readonly env: Readonly<Record<string, string>>;
    readonly cwd: string;
  },
): Promise<ActionRun> {
  const runnerTemp = temporaryDir('pix-action-runner-');
  const summaryFile = join(runnerTemp, 'step-summary.md');
  writeFileSync(summaryFile, '');
  const defaults = Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? '']),
  );
  const context: Context = {
    inputs: { ...defaults, ...options.inputs },
    actionPath: options.actionPath,
    runnerTemp,
    steps: {},
  };
  const skippedUses: string[] = [];
  const log: string[] = [];
  let code = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    if (step.uses !== undefined) {
      skippedUses.push(step.uses);
      continue;
    }
    if (step.run === undefined || step.if !== undefined || code !== 0) continue;
    const outputFile = join(runnerTemp, `output-${index}`);
    writeFileSync(outputFile, '');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, interpolate(value, context)]),
    );
    const cwd = resolve(options.cwd, interpolate(step['working-directory'] ?? '.', context));
    const ran = await run('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step.run], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 240_000,
      env: {
        ...options.env,
        ...stepEnv,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        RUNNER_TEMP: runnerTemp,
      },
    }).then(
      (done) => ({ ...done, status: 0 }),
      (error: unknown) => {
        // execFile's error carries the step's output and exit code (a string code means it never ran).
        const failed = error as { stdout?: string; stderr?: string; code?: unknown };
        return {
          stdout: failed.stdout ?? '',
          stderr: failed.stderr ?? String(error),
          status: typeof failed.code === 'number' ? failed.code : 128,
        };
      },
    );
    log.push(`--- ${step.name ?? step.id ?? `step ${index}`}\n${ran.stdout}${ran.stderr}`);
    if (step.id !== undefined) context.steps[step.id] = readOutputs(outputFile);
    code = ran.status;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [name, interpolate(output.value, context)]),
  );
  return {
    code,
    outputs,
    stepOutputs: context.steps,
    skippedUses,
    summary: readFileSync(summaryFile, 'utf8'),
    log: log.join('\n'),
  };
}
