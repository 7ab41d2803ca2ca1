/**
 * A timer for a deadline the environment must meet. When it fires, what had already arrived is read
 * first, one turn of the event loop later: timers run before the loop reads its sockets, so a process
 * held busy past the deadline (Playwright's runner loading beside a request, a loaded machine) would
 * otherwise call an answer that came in time a time-out, and blame the environment for our delay.
 */
export interface Deadline {
  /** Cancels the deadline, also in the turn between its timer and its expiry. */
  clear(): void;
}

export function deadline(ms: number, onExpiry: () => void): Deadline {
  let expiry: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => {
    expiry = setImmediate(onExpiry);
  }, ms);
  return {
    clear: () => {
      clearTimeout(timer);
      if (expiry !== undefined) clearImmediate(expiry);
    },
  };
}
