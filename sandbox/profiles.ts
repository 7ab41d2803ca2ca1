/**
 * The profiles and faults the sandbox knows, as `sandbox --profiles [--json]` lists them, and the
 * provider a namespace plays: a profile with faults laid on top (POST /_sim/namespaces).
 */
import { consoleLine } from './console-line.ts';
import type { Provider } from './namespace.ts';
import { type FaultScenario, NAMESPACE_DEFAULT, RUN_SCENARIOS, SCENARIOS } from './scenarios.ts';

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

/** Profiles a namespace may play: the namespaces' default, the conforming profiles and the run scenarios. */
const PROFILES = [NAMESPACE_DEFAULT, ...SCENARIOS.filter((s) => s.kind === 'profile'), ...RUN_SCENARIOS];
const FAULTS = SCENARIOS.filter((s): s is FaultScenario => s.kind === 'fault');

export function profileList(): ProfileEntry[] {
  return [NAMESPACE_DEFAULT, ...SCENARIOS, ...RUN_SCENARIOS].map((scenario) => ({
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
