/**
 * The time a process's requests spend held at the run's gate: waiting for a slot, for the run's pace,
 * for a Retry-After pause or for a section. That time is the run's pacing, not the test's work, so a
 * test's time limit is extended by it (tests/_support/fixtures.ts): a rate limit never times a test out.
 */
import type { Gate } from './gate.ts';

export class WaitClock {
  private waiting = 0;
  private since = 0;
  private total = 0;
  private readonly listeners = new Set<() => void>();

  /** Whether a request of this process is held at the gate now. */
  get holding(): boolean {
    return this.waiting > 0;
  }

  /** The ms during which at least one request of this process was held, up to now. */
  heldMs(now = Date.now()): number {
    return this.total + (this.waiting > 0 ? now - this.since : 0);
  }

  /** Calls `listener` whenever the process starts or stops being held; returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs `wait` as held time; `released` ends the hold early (the gate let the request go). */
  async hold<T>(wait: (released: () => void) => Promise<T>): Promise<T> {
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.waiting -= 1;
      if (this.waiting === 0) {
        this.total += Date.now() - this.since;
        this.changed();
      }
    };
    this.waiting += 1;
    if (this.waiting === 1) {
      this.since = Date.now();
      this.changed();
    }
    try {
      return await wait(release);
    } finally {
      release();
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** `gate`, with the time each request waits before it leaves (and each pause) counted on `clock`. */
export function clocked(gate: Gate, clock: WaitClock): Gate {
  const section =
    (open: Gate['exclusive']) =>
    <T>(run: (inner: Gate) => Promise<T>, burst?: number): Promise<T> =>
      clock.hold((released) =>
        open((inner) => {
          released();
          return run(clocked(inner, clock));
        }, burst),
      );
  return {
    run: (send, kind) =>
      clock.hold((released) =>
        gate.run(() => {
          released();
          return send();
        }, kind),
      ),
    pause: (request) => clock.hold(() => gate.pause(request)),
    exclusive: section((run, burst) => gate.exclusive(run, burst)),
    holdingTokens: section((run) => gate.holdingTokens(run)),
  };
}
