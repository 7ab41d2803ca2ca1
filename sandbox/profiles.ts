/**
 * The profiles, readings and faults the sandbox knows, as `sandbox --profiles [--json]` lists them,
 * and the provider a namespace plays: a profile or a reading with faults laid on top (POST
 * /_sim/namespaces).
 */
import type { Behaviour } from './behaviour.ts';
import { consoleLine } from './console-line.ts';
import type { Provider } from './namespace.ts';
import { READINGS, type ReadingScenario } from './readings.ts';
import { type FaultScenario, NAMESPACE_DEFAULT, RUN_SCENARIOS, SCENARIOS } from './scenarios.ts';

export interface ProfileEntry {
  readonly name: string;
  readonly kind: 'profile' | 'reading' | 'fault' | 'run';
  /** A fault's verdict in the suite: FAILED, WARNING or OBSERVED. */
  readonly level?: string;
  readonly clause?: string;
  readonly description: string;
  /** Suite variables a live run against it needs. */
  readonly suiteEnv: Readonly<Record<string, string>>;
  /** A reading's: why a real provider does it. */
  readonly why?: string;
  /** A reading's switches that differ from the namespaces' default, with their values. */
  readonly differs?: Partial<Behaviour>;
  /** A reading's: client variables a run against it needs. */
  readonly clientEnv?: Readonly<Record<string, string>>;
}

/** A reading as `client --readings` and the reading-matrix report take it. */
export interface ReadingEntry {
  readonly name: string;
  readonly description: string;
  readonly why: string;
  readonly differs: Partial<Behaviour>;
  readonly clientEnv: Readonly<Record<string, string>>;
}

/** Profiles a namespace may play: the namespaces' default, the conforming profiles, the readings and the run scenarios. */
const PROFILES = [
  NAMESPACE_DEFAULT,
  ...SCENARIOS.filter((s) => s.kind === 'profile'),
  ...READINGS,
  ...RUN_SCENARIOS,
];
const FAULTS = SCENARIOS.filter((s): s is FaultScenario => s.kind === 'fault');

/** The switches of `behaviour` whose value is not the namespaces' default's, read from the code itself. */
function differsFromDefault(behaviour: Behaviour): Partial<Behaviour> {
  const base = NAMESPACE_DEFAULT.behaviour;
  return Object.fromEntries(
    Object.entries(behaviour).filter(
      ([key, value]) => JSON.stringify(value) !== JSON.stringify(base[key as keyof Behaviour]),
    ),
  );
}

function readingEntry({ name, description, why, clientEnv, behaviour }: ReadingScenario): ReadingEntry {
  return { name, description, why, differs: differsFromDefault(behaviour), clientEnv };
}

export function readingList(): ReadingEntry[] {
  return READINGS.map(readingEntry);
}

export function profileList(): ProfileEntry[] {
  const entryOf = (scenario: (typeof PROFILES)[number] | FaultScenario): ProfileEntry =>
    scenario.kind === 'reading'
      ? { kind: 'reading', suiteEnv: {}, ...readingEntry(scenario) }
      : {
          name: scenario.name,
          kind: scenario.kind,
          ...(scenario.kind === 'fault' ? { level: scenario.level, clause: scenario.clause } : {}),
          description: scenario.description,
          suiteEnv: scenario.suiteEnv,
        };
  return [...PROFILES.filter((p) => p.kind !== 'run'), ...FAULTS, ...RUN_SCENARIOS].map(entryOf);
}

export function profileLines(): string[] {
  const list = profileList();
  const width = Math.max(...list.map((entry) => entry.name.length));
  return list.map((entry) => {
    const needs = Object.entries({ ...entry.suiteEnv, ...entry.clientEnv }).map(
      ([key, value]) => ` [needs ${key}=${value}]`,
    );
    const differs = Object.entries(entry.differs ?? {}).map(
      ([key, value]) => ` [${key}: ${JSON.stringify(value)}]`,
    );
    return `${(entry.level ?? entry.kind).padEnd(8)} ${entry.name.padEnd(width)}  ${entry.description}${differs.join('')}${needs.join('')}`;
  });
}

/** The provider of that profile with those faults on top, or why there is none (an unknown name). */
export function providerOf(profile: string | undefined, faults: readonly string[]): Provider | string {
  const base = profile === undefined ? NAMESPACE_DEFAULT : PROFILES.find((p) => p.name === profile);
  if (base === undefined)
    return `No profile ${consoleLine(profile?.slice(0, 64) ?? '')}; pix-certify sandbox --profiles lists them.`;
  let behaviour = base.behaviour;
  for (const name of faults) {
    const fault = FAULTS.find((f) => f.name === name);
    if (fault === undefined)
      return `No fault ${consoleLine(name.slice(0, 64))}; pix-certify sandbox --profiles lists them.`;
    behaviour = { ...behaviour, ...fault.breaks };
  }
  return { profile: base.name, faults, behaviour };
}
