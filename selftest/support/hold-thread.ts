/**
 * Holds this thread without a turn of its event loop, as Playwright's runner does while it loads in
 * pix-certify's thread: what arrives meanwhile waits, unread, for the loop's next turn.
 */
export function holdThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
