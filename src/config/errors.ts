/** Configuration mistakes: each one line naming the variable, what is wrong and what to do. */

/** One mistake in the configuration, told in one line. */
export interface ConfigProblem {
  readonly variable: string;
  /** The whole line: the variable, what is wrong with it, and what to do. */
  readonly line: string;
}

/**
 * The configuration cannot run: the run stops with exit code 2 and one line per problem. Thrown with
 * one problem (`new ConfigError(variable, problem, fix)`) or, by loadConfig, with every problem found.
 */
export class ConfigError extends Error {
  /** At least one, in the order the variables were read. */
  readonly problems: readonly ConfigProblem[];
  /** The variable of the first problem. */
  readonly variable: string;

  constructor(variable: string, problem: string, fix: string);
  constructor(problems: readonly [ConfigProblem, ...ConfigProblem[]]);
  constructor(first: string | readonly [ConfigProblem, ...ConfigProblem[]], problem = '', fix = '') {
    const problems =
      typeof first === 'string' ? [{ variable: first, line: `${first}: ${problem}. ${fix}` }] : first;
    super(problems.map((p) => p.line).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
    this.variable = problems[0].variable;
  }
}
