/**
 * A sandbox in a process of its own, for self-tests that measure its memory: it prints its URL and
 * control token as one JSON line, then answers each line "rss" on stdin with its resident bytes once
 * garbage is collected (run with --expose-gc), so what is measured is what it keeps.
 */
import { createInterface } from 'node:readline';
import { startSandbox } from '../../sandbox/server.ts';

const sandbox = await startSandbox();
process.stdout.write(`${JSON.stringify({ url: sandbox.url, controlToken: sandbox.controlToken })}\n`);
const collect = (globalThis as { gc?: () => void }).gc;
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'rss') continue;
  collect?.();
  process.stdout.write(`${process.memoryUsage().rss}\n`);
}
await sandbox.close();
