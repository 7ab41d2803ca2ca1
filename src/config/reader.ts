/** Reads one variable at a time, collecting every problem so that a run is told all of them at once. */
import { ConfigError, type ConfigProblem } from './errors.ts';
import type { Env } from './dotenv.ts';
import type { VariableName } from './variables.ts';

export class Reader {
  /** Every problem found so far: loadConfig reports them all at once. */
  readonly problems: ConfigProblem[] = [];

  private readonly env: Env;

  constructor(env: Env) {
    this.env = env;
  }

  /** Runs one validation; a ConfigError is kept and the fallback stands in, so that reading goes on. */
  check<T>(validate: () => T, fallback: T): T {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.problems.push(...error.problems);
      return fallback;
    }
  }

  text(name: VariableName): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  flag(name: VariableName): boolean {
    const value = this.text(name);
    if (value === undefined || value === '0') return false;
    if (value !== '1')
      this.report(name, `is '${value}'`, 'Set it to 1 to enable or 0 (or leave it unset) to disable.');
    return value === '1';
  }

  integer(name: VariableName, fallback: number, min: number, max: number): number {
    const value = this.text(name);
    if (value === undefined) return fallback;
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(parsed) && parsed >= min && parsed <= max) return parsed;
    this.report(name, `is '${value}'`, `Use a whole number from ${min} to ${max}.`);
    return fallback;
  }

  /** The value, or undefined with the problem recorded. */
  required(name: VariableName, why: string): string | undefined {
    const value = this.text(name);
    if (value === undefined) this.report(name, this.absence(name), why);
    return value;
  }

  /** How an unset variable is missing: an empty one is often a CI secret that does not exist. */
  absence(name: VariableName): string {
    return this.env[name] === undefined ? 'is not set' : 'is empty';
  }

  report(name: VariableName, problem: string, fix: string): void {
    this.problems.push(...new ConfigError(name, problem, fix).problems);
  }

  throwIfAny(): void {
    const [first, ...rest] = this.problems;
    if (first !== undefined) throw new ConfigError([first, ...rest]);
  }
}
