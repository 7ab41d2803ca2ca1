/** The profiles and faults the sandbox knows, as `sandbox --profiles [--json]` lists them. */
import { RUN_SCENARIOS, SCENARIOS } from './scenarios.ts';

export interface ProfileEntry {
  readonly name: string;
  readonly kind: 'profile' | 'fault' | 'run';
  /** A fault's verdict in the suite: FAILED, WARNING or OBSERVED. */
  readonly level?: string;
  readonly clause?: string;
  readonly description: string;
  /** Suite variables a live run against it needs. */
  readonly suiteEnv: Readonly<Record<string, string>>;
}

export function profileList(): ProfileEntry[] {
  return [...SCENARIOS, ...RUN_SCENARIOS].map((scenario) => ({
    name: scenario.name,
    kind: scenario.kind,
    ...(scenario.kind === 'fault' ? { level: scenario.level, clause: scenario.clause } : {}),
    description: scenario.description,
    suiteEnv: scenario.suiteEnv,
  }));
}

export function profileLines(): string[] {
  const list = profileList();
  const width = Math.max(...list.map((entry) => entry.name.length));
  return list.map((entry) => {
    const needs = Object.entries(entry.suiteEnv).map(([key, value]) => ` [needs ${key}=${value}]`);
    return `${(entry.level ?? entry.kind).padEnd(8)} ${entry.name.padEnd(width)}  ${entry.description}${needs.join('')}`;
  });
}
