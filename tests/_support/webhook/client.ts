/**
 * The workers' side of the webhook receiver: the receiver lives in Playwright's main process, so
 * workers register addresses and wait for deliveries through its loopback control API (control.ts).
 */
import type { Delivery, WebhookAddress } from './receiver.ts';

export interface DeliveryReport {
  /** Everything that arrived at the address, in arrival order. */
  readonly deliveries: Delivery[];
  /** Deliveries to unregistered paths since the address was registered: where it may have gone instead. */
  readonly strays: Delivery[];
}

/** Allowance for the round trip to the control API, on top of any wait the receiver does. */
const ROUND_TRIP_MS = 5_000;

/** fetch hides the network reason (refused, reset, timed out) in `cause`. */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

export class WebhookClient {
  readonly #controlUrl: string;

  constructor(controlUrl: string) {
    this.#controlUrl = controlUrl.replace(/\/+$/, '');
  }

  register(): Promise<WebhookAddress> {
    return this.#call('POST', '/addresses', ROUND_TRIP_MS);
  }

  /** Waits for the first delivery and `graceMs` more (for duplicates); empty deliveries after `timeoutMs`. */
  waitFor(
    path: string,
    { timeoutMs, graceMs }: { timeoutMs: number; graceMs: number },
  ): Promise<DeliveryReport> {
    const query = new URLSearchParams({ path, timeoutMs: String(timeoutMs), graceMs: String(graceMs) });
    return this.#call('GET', `/deliveries?${query.toString()}`, timeoutMs + graceMs + ROUND_TRIP_MS);
  }

  /** What arrived so far, without waiting. */
  snapshot(path: string): Promise<DeliveryReport> {
    return this.#call('GET', `/deliveries?${new URLSearchParams({ path }).toString()}`, ROUND_TRIP_MS);
  }

  async #call<T>(method: 'GET' | 'POST', route: string, timeoutMs: number): Promise<T> {
    // The route, never the control URL, goes into errors: the URL carries the control secret.
    const where = `${method} ${route.split('?', 1)[0] ?? route}`;
    const response = await fetch(`${this.#controlUrl}${route}`, {
      method,
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((error: unknown) => {
      throw new Error(
        `The webhook receiver's control API did not answer ${where} (${reasonOf(error)}). It runs in Playwright's global setup, which passes its address as PIX_WEBHOOK_CONTROL_URL; run the suite through Playwright.`,
        { cause: error },
      );
    });
    if (!response.ok) {
      throw new Error(
        `The webhook receiver's control API answered ${response.status} to ${where}: ${await response.text()}`,
      );
    }
    return (await response.json()) as T;
  }
}
