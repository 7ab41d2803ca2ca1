/**
 * pix-certify client --readings: the integrator's command run once per reading of the document's
 * silences (a simulator profile: 401 for credentials, a token named otherwise, slow answers, a webhook
 * before the answer…), each in a namespace of its own, a few at a time, so that a client that only
 * works against one provider's reading is found before go-live. The evidence of every reading is
 * handed over together, to be judged as one matrix.
 */
import type { ClientSettings } from '../config/client-settings.ts';
import {
  exerciseNamespace,
  withSimulator,
  type ClientEvidence,
  type ClientInvocation,
  type ClientRunParts,
} from './client-run.ts';

/** A reading as the simulator lists it (sandbox --profiles): what it does, and what its client also needs. */
export interface Reading {
  readonly name: string;
  readonly description: string;
  /** Variables a client needs to work against it at all (PIX_TOKEN_FIELD where the token is named otherwise). */
  readonly clientEnv: Readonly<Record<string, string>>;
}

/** The namespace default's name: the reading of a namespace made without a profile. */
export const DEFAULT_READING = 'simulator';

export interface ReadingEvidence {
  readonly reading: Reading;
  readonly evidence: ClientEvidence;
}

/** Readings exercised at once: each is mostly waiting (slow answers, webhooks), and every one adds a command's processes. */
const READINGS_AT_ONCE = 6;

export interface ClientReadingsParts extends Omit<ClientRunParts, 'certify'> {
  /** Judges every reading's evidence as one matrix and writes it; resolves with the exit code. */
  readonly certify: (runs: readonly ReadingEvidence[]) => Promise<number>;
}

/**
 * The readings chosen by `--readings`: `all`, or names separated by commas; for an unknown name, what
 * to give instead.
 */
export function chooseReadings(text: string, known: readonly Reading[]): Reading[] | string {
  if (text.trim() === 'all') return [...known];
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !known.some((r) => r.name === name));
  if (names.length === 0 || unknown.length > 0)
    return `--readings ${text}: ${unknown.length > 0 ? `no reading ${unknown.join(', ')}` : 'no reading named'}; give all or some of ${known.map((r) => r.name).join(', ')}`;
  return known.filter((r) => names.includes(r.name));
}

/** `work` on every item, at most `limit` at once, results in the items' order. */
async function atMost<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export function runClientReadings(
  invocation: ClientInvocation,
  settings: ClientSettings,
  readings: readonly Reading[],
  parts: ClientReadingsParts,
): Promise<number> {
  return withSimulator(invocation, settings, parts, async (control) => {
    const runs = await atMost(readings, READINGS_AT_ONCE, async (reading) => {
      const evidence = await exerciseNamespace(
        control,
        invocation,
        settings,
        {
          ...(reading.name === DEFAULT_READING ? {} : { profile: reading.name }),
          extraEnv: reading.clientEnv,
        },
        (line) => parts.tell(`${reading.name}: ${line}`),
      );
      return { reading, evidence };
    });
    return parts.certify(runs);
  });
}
