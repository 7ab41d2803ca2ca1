/**
 * The simulator's control API (docs/simulator.md), typed: what pix-certify client asks of the
 * simulator it started (a namespace of its own, the outcome table, the namespace's journal). Any
 * answer but the expected one is a suite error naming the call.
 */
import type { Journal, OutcomeRow } from '../evidence/journal.ts';

/** A namespace as the control API creates it: its base URL and the credentials the client gets. */
export interface SimulatorNamespace {
  readonly name: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
  readonly certPem: string;
}

/** `realistic` doubles and disorders some webhooks as real senders do; `none` delivers each once, in order. */
export type NamespaceFaults = 'realistic' | 'none';

const CONTROL_TIMEOUT_MS = 30_000;
/** How much of an unexpected answer a suite error quotes. */
const QUOTED_CHARS = 300;

export class SimulatorControl {
  private readonly url: string;
  private readonly token: string;

  constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
  }

  /** `profile`: the provider the namespace plays (a reading); undefined, the simulator's default. */
  createNamespace(name: string, faults: NamespaceFaults, profile?: string): Promise<SimulatorNamespace> {
    return this.call<SimulatorNamespace>('POST', '/_sim/namespaces', {
      name,
      faults,
      ...(profile === undefined ? {} : { profile }),
    });
  }

  outcomes(): Promise<OutcomeRow[]> {
    return this.call<OutcomeRow[]>('GET', '/_sim/outcomes');
  }

  journal(namespace: string): Promise<Journal> {
    return this.call<Journal>('GET', `/_sim/namespaces/${encodeURIComponent(namespace)}/journal`);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
    if (!response.ok) {
      const text = (await response.text()).slice(0, QUOTED_CHARS);
      throw new Error(
        `the simulator's control API answered ${method} ${path} with ${response.status}: ${text}`,
      );
    }
    return (await response.json()) as T;
  }
}
