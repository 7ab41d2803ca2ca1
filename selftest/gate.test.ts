/**
 * The run's request gate, in process: the cap on requests in flight, the exclusive section (nothing
 * else in flight while it runs, nothing let out until it ends), and the same across processes through
 * the shared gate, with the run's token desk.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localGate, type Gate, type GateSettings } from '../src/transport/gate.ts';
import { remoteGate, serveGate } from '../src/transport/shared-gate.ts';
import { localDesk } from '../src/transport/token-desk.ts';
import { localBound } from '../src/transport/withdrawal-bound.ts';
import { runDesk } from '../src/run/session.ts';

const SETTINGS: GateSettings = {
  concurrency: 2,
  ratePerSecond: undefined,
  maxWaitMs: 1_000,
  totalWaitMs: 5_000,
};
const quiet = (): void => undefined;
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** What ran through a gate: each request's start and end, in ms since the trace began. */
function tracer() {
  const t0 = Date.now();
  const spans: { name: string; start: number; end: number }[] = [];
  let inFlight = 0;
  let most = 0;
  return {
    spans,
    most: () => most,
    request: (name: string, ms: number) => async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      const start = Date.now() - t0;
      await sleep(ms);
      spans.push({ name, start, end: Date.now() - t0 });
      inFlight -= 1;
    },
  };
}

/** Two requests in flight, then a section of two, then one more request: the order an exclusive section owes. */
async function exerciseExclusive(outer: Gate, other: Gate): Promise<ReturnType<typeof tracer>> {
  const trace = tracer();
  const before = [outer.run(trace.request('before-1', 120)), other.run(trace.request('before-2', 160))];
  await sleep(20);
  const section = outer.exclusive(async (inner) => {
    await Promise.all([inner.run(trace.request('race-1', 80)), inner.run(trace.request('race-2', 80))]);
  });
  await sleep(20);
  const afterwards = other.run(trace.request('after', 10));
  await Promise.all([...before, section, afterwards]);
  return trace;
}

function assertExclusive(trace: ReturnType<typeof tracer>): void {
  const span = (name: string): { start: number; end: number } => {
    const found = trace.spans.find((s) => s.name === name);
    assert.ok(found !== undefined, `${name} ran`);
    return found;
  };
  const raceStart = Math.min(span('race-1').start, span('race-2').start);
  const raceEnd = Math.max(span('race-1').end, span('race-2').end);
  assert.ok(raceStart >= span('before-2').end, 'the section waits for the requests in flight');
  assert.ok(
    Math.abs(span('race-1').start - span('race-2').start) < 30,
    'the section releases its requests together',
  );
  assert.ok(span('after').start >= raceEnd, 'nothing queued after the section leaves before it ends');
}

describe('the request gate', () => {
  it('holds the run to PIX_CONCURRENCY requests in flight', async () => {
    const gate = localGate(SETTINGS, quiet);
    const trace = tracer();
    await Promise.all(Array.from({ length: 6 }, (_, i) => gate.run(trace.request(`r${i}`, 30))));
    assert.equal(trace.most(), 2);
    assert.equal(trace.spans.length, 6);
  });

  it('gives an exclusive section the environment to itself', async () => {
    const gate = localGate(SETTINGS, quiet);
    assertExclusive(await exerciseExclusive(gate, gate));
  });

  it('runs exclusive sections one at a time, and a failed one lets the queue go', async () => {
    const gate = localGate(SETTINGS, quiet);
    const order: string[] = [];
    const first = gate.exclusive(async () => {
      order.push('first-in');
      await sleep(40);
      order.push('first-out');
      throw new Error('the section failed');
    });
    const second = gate.exclusive(() => Promise.resolve(order.push('second')));
    await assert.rejects(first, /the section failed/);
    await second;
    await gate.run(() => Promise.resolve(order.push('after')));
    assert.deepEqual(order, ['first-in', 'first-out', 'second', 'after']);
  });

  it('with a rate limit, spaces the run’s requests evenly, and releases a section’s together', async () => {
    const gate = localGate({ ...SETTINGS, concurrency: 4, ratePerSecond: 5 }, quiet);
    const t0 = Date.now();
    const stamp = (): Promise<number> => Promise.resolve(Date.now() - t0);
    const starts = await Promise.all([gate.run(stamp), gate.run(stamp), gate.run(stamp)]);
    // 1.2 s over 5 requests: a late one never meets the next window's first within a second.
    for (const [i, start] of starts.slice(1).entries())
      assert.ok(start - (starts[i] ?? 0) >= 230, `starts ${starts.join(', ')} ms`);
    const section = await gate.exclusive((inner) => Promise.all([inner.run(stamp), inner.run(stamp)]));
    assert.ok(
      Math.abs(section[0] - section[1]) < 30,
      `the section's requests started at ${section.join(', ')} ms`,
    );
  });

  it('with a rate limit, keeps a window free of other requests around a section', async () => {
    const gate = localGate({ ...SETTINGS, ratePerSecond: 5 }, quiet);
    const t0 = Date.now();
    const stamp = (): Promise<number> => Promise.resolve(Date.now() - t0);
    const first = await gate.run(stamp);
    const section = await gate.exclusive((inner) => inner.run(stamp));
    const next = await gate.run(stamp);
    // The window is 1.2 s: a provider counting arrivals in any second sees the section's request alone.
    assert.ok(section - first >= 1_150, `section started ${section - first} ms after the last request`);
    assert.ok(next - section >= 1_150, `next request ${next - section} ms after the section`);
  });

  it('across processes: a worker’s section holds every other worker, and the desk keeps the newest token', async () => {
    const served = await serveGate(localGate(SETTINGS, quiet), 5_000);
    try {
      const one = remoteGate(served.url, served.token, SETTINGS, quiet);
      const two = remoteGate(served.url, served.token, SETTINGS, quiet);
      assertExclusive(await exerciseExclusive(one.gate, two.gate));
      assert.equal(await two.desk.current(), undefined);
      await one.desk.issued({ token: 'token-issued-second', issuedAt: 2_000 });
      await two.desk.issued({ token: 'token-issued-first', issuedAt: 1_000 });
      assert.deepEqual(await two.desk.current(), { token: 'token-issued-second', issuedAt: 2_000 });
    } finally {
      await served.close();
    }
  });

  it('after a 429, paces every worker and section at what the environment took, slower at each 429 to that pace', async () => {
    const told: string[] = [];
    const wide = { ...SETTINGS, concurrency: 6 };
    const served = await serveGate(
      localGate(wide, (line) => told.push(line)),
      5_000,
    );
    try {
      const one = remoteGate(served.url, served.token, wide, quiet);
      const two = remoteGate(served.url, served.token, wide, quiet);
      const startOf = (gate: Gate): Promise<number> => gate.run(() => Promise.resolve(Date.now()));
      const burst = await Promise.all(Array.from({ length: 5 }, () => startOf(one.gate)));
      const why = '429 on POST /pix/payment';
      // Five started within a second and the last was refused: four a window, 300 ms apart.
      assert.equal(await one.gate.pause({ ms: 50, why, rateLimitedSentAt: Math.max(...burst) }), true);
      // Another 429 of the same burst teaches nothing more.
      await two.gate.pause({ ms: 50, why, rateLimitedSentAt: Math.min(...burst) });
      const gaps = (starts: number[]): number[] => {
        const sorted = [...starts].sort((a, b) => a - b);
        return sorted.slice(1).map((t, i) => t - (sorted[i] ?? t));
      };
      // The gate spaces the starts it schedules; each is read here a little after, by an event loop that
      // a loaded machine may delay by tens of ms, so the gaps are judged with that much allowed.
      const JITTER_MS = 50;
      const paced = await Promise.all([startOf(one.gate), startOf(two.gate), startOf(two.gate)]);
      assert.ok(
        Math.min(...gaps(paced)) >= 300 - JITTER_MS,
        `workers' starts ${gaps(paced).join(', ')} ms apart`,
      );
      const inSection = await one.gate.exclusive((inner) => Promise.all([startOf(inner), startOf(inner)]));
      assert.ok(
        Math.min(...gaps(inSection)) >= 300 - JITTER_MS,
        `a section's starts ${gaps(inSection).join(', ')} ms apart`,
      );
      // A 429 to a request sent at that pace halves it.
      await two.gate.pause({ ms: 50, why, rateLimitedSentAt: Date.now() });
      const slower = await Promise.all([startOf(one.gate), startOf(two.gate)]);
      assert.ok(Math.min(...gaps(slower)) >= 600 - JITTER_MS, `then ${gaps(slower).join(', ')} ms apart`);
      assert.deepEqual(
        told
          .filter((line) => line.startsWith('the environment limits its rate'))
          .map((l) => /every (\S+) s/.exec(l)?.[1]),
        ['0.30', '0.60'],
      );
    } finally {
      await served.close();
    }
  });

  it('holding tokens: other tests’ withdrawals go on, their token requests wait for the section, which waits for theirs', async () => {
    const served = await serveGate(localGate({ ...SETTINGS, concurrency: 4 }, quiet), 5_000);
    try {
      const one = remoteGate(served.url, served.token, SETTINGS, quiet).gate;
      const two = remoteGate(served.url, served.token, SETTINGS, quiet).gate;
      const trace = tracer();
      const tokenBefore = two.run(trace.request('token-before', 120), 'token');
      await sleep(20);
      const section = one.holdingTokens(async (inner) => {
        await inner.run(trace.request('section-token-1', 60), 'token');
        await inner.run(trace.request('section-token-2', 60), 'token');
      });
      await sleep(20);
      const elsewhere = [
        two.run(trace.request('withdrawal-meanwhile', 40)),
        two.run(trace.request('token-meanwhile', 10), 'token'),
      ];
      await Promise.all([tokenBefore, section, ...elsewhere]);
      const span = (name: string): { start: number; end: number } => {
        const found = trace.spans.find((s) => s.name === name);
        assert.ok(found !== undefined, `${name} ran`);
        return found;
      };
      assert.ok(
        span('section-token-1').start >= span('token-before').end,
        'the section waits for a token request in flight',
      );
      assert.ok(
        span('withdrawal-meanwhile').end <= span('section-token-2').end,
        'a withdrawal goes on during the section',
      );
      assert.ok(
        span('token-meanwhile').start >= span('section-token-2').end,
        'a token request waits for the section',
      );
      // Sections of either kind take turns: a race never meets a token section half done.
      const order: string[] = [];
      await Promise.all([
        one.holdingTokens(async () => {
          order.push('tokens-in');
          await sleep(40);
          order.push('tokens-out');
        }),
        two.exclusive(() => Promise.resolve(order.push('exclusive'))),
      ]);
      assert.deepEqual(order, ['tokens-in', 'tokens-out', 'exclusive']);
    } finally {
      await served.close();
    }
  });

  it('a desk of one process keeps the newest token it was told of', async () => {
    const desk = localDesk();
    await desk.issued({ token: 'a', issuedAt: 5 });
    await desk.issued({ token: 'b', issuedAt: 9 });
    await desk.issued({ token: 'c', issuedAt: 7 });
    assert.equal((await desk.current())?.token, 'b');
  });

  it('the run’s desk starts with the credentials check’s token when every worker can use it', async () => {
    const checked = { token: 'token-of-the-credentials-check', issuedAt: 1_000 };
    const served = await serveGate(localGate(SETTINGS, quiet), 5_000, await runDesk(checked));
    try {
      const worker = remoteGate(served.url, served.token, SETTINGS, quiet);
      assert.deepEqual(await worker.desk.current(), checked);
    } finally {
      await served.close();
    }
    assert.equal(await (await runDesk(undefined)).current(), undefined);
    // One no header can carry, or larger than the desk serves: the workers ask for their own.
    assert.equal(await (await runDesk({ token: 'line\nbreak', issuedAt: 1 })).current(), undefined);
    const huge = { token: 'x'.repeat(9 * 1024 * 1024), issuedAt: 1 };
    assert.equal(await (await runDesk(huge)).current(), undefined);
  });

  it('serves the run’s withdrawal bound: every worker takes from one count, none past it', async () => {
    const served = await serveGate(localGate(SETTINGS, quiet), 5_000, localDesk(), localBound(2));
    try {
      const one = remoteGate(served.url, served.token, SETTINGS, quiet).bound;
      const two = remoteGate(served.url, served.token, SETTINGS, quiet).bound;
      assert.deepEqual(
        [await one.take(), await two.take(), await one.take(), await two.take()].map((t) => t.taken),
        [true, true, false, false],
      );
      assert.equal((await two.take()).limit, 2);
    } finally {
      await served.close();
    }
  });

  it('with a rate limit, opens its first window only a window after the requests sent before it', async () => {
    const sentBefore = Date.now();
    const limited = localGate({ ...SETTINGS, ratePerSecond: 5 }, quiet, { sentBefore });
    const startedAt = await limited.run(() => Promise.resolve(Date.now()));
    assert.ok(startedAt - sentBefore >= 1_000, `started ${startedAt - sentBefore} ms after`);
    // Without a rate limit, nothing to count: the first request leaves at once.
    const unlimited = localGate(SETTINGS, quiet, { sentBefore: Date.now() });
    const at = Date.now();
    assert.ok((await unlimited.run(() => Promise.resolve(Date.now()))) - at < 500);
  });
});
