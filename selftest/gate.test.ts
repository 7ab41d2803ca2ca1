/**
 * The run's request gate, in process: the cap on requests in flight, the exclusive section (nothing
 * else in flight while it runs, nothing let out until it ends), and the same across processes through
 * the shared gate, with the run's token desk.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import {
  BurstDoesNotFit,
  burstBeforeLimit,
  localGate,
  WaitBudgetSpent,
  type Gate,
  type GateSettings,
  type LocalGate,
} from '../src/transport/gate.ts';
import { clocked, WaitClock } from '../src/transport/wait-clock.ts';
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
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const quiet = (): void => undefined;

/** A promise and its resolver (Promise.withResolvers is Node 22's). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Lets whatever is ready run: pending callbacks, and loopback I/O already arrived. */
async function settle(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) await new Promise((done) => setImmediate(done));
}

/**
 * What ran through a gate, told by events, never by time: each request starts, records it, and
 * holds its slot until the test releases it.
 */
function tracer() {
  const events: string[] = [];
  const requests = new Map<
    string,
    { started: ReturnType<typeof deferred>; release: ReturnType<typeof deferred> }
  >();
  const of = (name: string) => {
    const found = requests.get(name) ?? { started: deferred(), release: deferred() };
    requests.set(name, found);
    return found;
  };
  let inFlight = 0;
  let most = 0;
  return {
    events,
    most: () => most,
    request: (name: string) => async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      events.push(`start ${name}`);
      of(name).started.resolve();
      await of(name).release.promise;
      events.push(`end ${name}`);
      inFlight -= 1;
    },
    started: (name: string) => of(name).started.promise,
    release: (name: string) => of(name).release.resolve(),
    /** Where `event` ('start x', 'end x') happened; -1 if it did not. */
    at: (event: string) => events.indexOf(event),
  };
}

/** The gate, telling each time a section (exclusive, or holding tokens) is asked of it. */
function watched(gate: LocalGate): { gate: LocalGate; sectionAsked: () => Promise<void> } {
  let asked = deferred();
  return {
    gate: {
      ...gate,
      exclusive: (section) => {
        asked.resolve();
        return gate.exclusive(section);
      },
      holdingTokens: (section) => {
        asked.resolve();
        return gate.holdingTokens(section);
      },
    },
    sectionAsked: async () => {
      await asked.promise;
      asked = deferred();
    },
  };
}

/**
 * Two requests in flight, then a section of two, then one more request, each released in turn:
 * the order an exclusive section owes. `sectionAsked` resolves once the gate that holds the queue was asked.
 */
async function exerciseExclusive(
  outer: Gate,
  other: Gate,
  sectionAsked: () => Promise<void>,
): Promise<ReturnType<typeof tracer>> {
  const trace = tracer();
  const before = [outer.run(trace.request('before-1')), other.run(trace.request('before-2'))];
  await Promise.all([trace.started('before-1'), trace.started('before-2')]);
  const asked = sectionAsked();
  const section = outer.exclusive(async (inner) => {
    await Promise.all([inner.run(trace.request('race-1')), inner.run(trace.request('race-2'))]);
  });
  await asked;
  await settle();
  const afterwards = other.run(trace.request('after'));
  await settle();
  trace.release('before-1');
  await settle();
  trace.release('before-2');
  // Both start while neither has ended: the section lets its requests go together.
  await Promise.all([trace.started('race-1'), trace.started('race-2')]);
  await settle();
  trace.release('race-1');
  await settle();
  trace.release('race-2');
  await trace.started('after');
  trace.release('after');
  await Promise.all([...before, section, afterwards]);
  return trace;
}

function assertExclusive(trace: ReturnType<typeof tracer>): void {
  const { at } = trace;
  const raceStart = Math.min(at('start race-1'), at('start race-2'));
  assert.ok(
    raceStart > at('end before-2'),
    `the section waits for the requests in flight: ${trace.events.join(', ')}`,
  );
  assert.ok(
    Math.max(at('start race-1'), at('start race-2')) < Math.min(at('end race-1'), at('end race-2')),
    'the section releases its requests together',
  );
  assert.ok(
    at('start after') > Math.max(at('end race-1'), at('end race-2')),
    `nothing queued after the section leaves before it ends: ${trace.events.join(', ')}`,
  );
}

/**
 * Node's mock timers for setTimeout, setInterval and Date: `until` is driven to its end a millisecond
 * at a time, each due timer fired at its very millisecond, and whatever it let go run before the next.
 */
async function driven<T>(context: TestContext, until: Promise<T>, limitMs = 60_000): Promise<T> {
  const state = { done: false };
  const result = until.finally(() => {
    state.done = true;
  });
  for (let elapsed = 0; !state.done; elapsed += 1) {
    assert.ok(elapsed < limitMs, `not done after ${limitMs} ms of mocked time`);
    await settle(3);
    context.mock.timers.tick(0);
    await settle(3);
    context.mock.timers.tick(1);
  }
  return result;
}

const mockTime = (context: TestContext): void =>
  context.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 1_000_000 });

describe('the request gate', () => {
  it('holds the run to PIX_CONCURRENCY requests in flight', async () => {
    const gate = localGate(SETTINGS, quiet);
    let inFlight = 0;
    let most = 0;
    const request = async (): Promise<void> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await settle(2);
      inFlight -= 1;
    };
    await Promise.all(Array.from({ length: 6 }, () => gate.run(request)));
    assert.equal(most, 2);
  });

  it('gives an exclusive section the environment to itself', async () => {
    const { gate, sectionAsked } = watched(localGate(SETTINGS, quiet));
    assertExclusive(await exerciseExclusive(gate, gate, sectionAsked));
  });

  it('runs exclusive sections one at a time, and a failed one lets the queue go', async () => {
    const gate = localGate(SETTINGS, quiet);
    const order: string[] = [];
    const first = gate.exclusive(async () => {
      order.push('first-in');
      await settle();
      order.push('first-out');
      throw new Error('the section failed');
    });
    const second = gate.exclusive(() => Promise.resolve(order.push('second')));
    await assert.rejects(first, /the section failed/);
    await second;
    await gate.run(() => Promise.resolve(order.push('after')));
    assert.deepEqual(order, ['first-in', 'first-out', 'second', 'after']);
  });

  it('with a rate limit, spaces the run’s requests evenly, and releases a section’s together', async (context) => {
    mockTime(context);
    const gate = localGate({ ...SETTINGS, concurrency: 4, ratePerSecond: 5 }, quiet);
    const stamp = (): Promise<number> => Promise.resolve(Date.now());
    const starts = await driven(context, Promise.all([gate.run(stamp), gate.run(stamp), gate.run(stamp)]));
    // 1.2 s over 5 requests: a late one never meets the next window's first within a second.
    for (const [i, start] of starts.slice(1).entries())
      assert.ok(start - (starts[i] ?? 0) >= 240, `starts ${starts.join(', ')} ms`);
    const section = await driven(
      context,
      gate.exclusive((inner) => Promise.all([inner.run(stamp), inner.run(stamp)])),
    );
    assert.equal(section[0], section[1], "the section's requests start together");
  });

  it('with a rate limit, keeps a window free of other requests around a section', async (context) => {
    mockTime(context);
    const gate = localGate({ ...SETTINGS, ratePerSecond: 5 }, quiet);
    const stamp = (): Promise<number> => Promise.resolve(Date.now());
    const first = await driven(context, gate.run(stamp));
    const section = await driven(
      context,
      gate.exclusive((inner) => inner.run(stamp)),
    );
    const next = await driven(context, gate.run(stamp));
    // The window is 1.2 s: a provider counting arrivals in any second sees the section's request alone.
    assert.ok(section - first >= 1_200, `section started ${section - first} ms after the last request`);
    assert.ok(next - section >= 1_200, `next request ${next - section} ms after the section`);
  });

  it('across processes: a worker’s section holds every other worker, and the desk keeps the newest token', async () => {
    const { gate, sectionAsked } = watched(localGate(SETTINGS, quiet));
    const served = await serveGate(gate, 5_000);
    try {
      const one = remoteGate(served.url, served.token, SETTINGS, quiet);
      const two = remoteGate(served.url, served.token, SETTINGS, quiet);
      assertExclusive(await exerciseExclusive(one.gate, two.gate, sectionAsked));
      assert.equal(await two.desk.current(), undefined);
      await one.desk.issued({ token: 'token-issued-second', issuedAt: 2_000 });
      await two.desk.issued({ token: 'token-issued-first', issuedAt: 1_000 });
      assert.deepEqual(await two.desk.current(), { token: 'token-issued-second', issuedAt: 2_000 });
    } finally {
      await served.close();
    }
  });

  it('after a 429, paces every worker and section at what the environment took, slower at each 429 to that pace', async (context) => {
    mockTime(context);
    const told: string[] = [];
    const wide = { ...SETTINGS, concurrency: 6 };
    const shared = localGate(wide, (line) => told.push(line));
    // Each worker's start as the shared gate lets it go, in mocked milliseconds, before the answer travels.
    const stamps: number[] = [];
    const served = await serveGate(
      { ...shared, run: (send, kind) => shared.run(() => (stamps.push(Date.now()), send()), kind) },
      5_000,
    );
    try {
      const one = remoteGate(served.url, served.token, wide, quiet);
      const two = remoteGate(served.url, served.token, wide, quiet);
      const send = (gate: Gate): Promise<void> => gate.run(() => Promise.resolve());
      const startsOf = async (runs: Promise<unknown>[]): Promise<number[]> => {
        const from = stamps.length;
        await driven(context, Promise.all(runs));
        return stamps.slice(from);
      };
      const burst = await startsOf(Array.from({ length: 5 }, () => send(one.gate)));
      const why = '429 on POST /pix/payment';
      // Five started within a second and the last was refused: four a window, 300 ms apart.
      assert.equal(
        await driven(context, one.gate.pause({ ms: 50, why, rateLimitedSentAt: Math.max(...burst) })),
        true,
      );
      // Another 429 of the same burst teaches nothing more.
      await driven(context, two.gate.pause({ ms: 50, why, rateLimitedSentAt: Math.min(...burst) }));
      const gaps = (starts: number[]): number[] => {
        const sorted = [...starts].sort((a, b) => a - b);
        return sorted.slice(1).map((t, i) => t - (sorted[i] ?? t));
      };
      const paced = await startsOf([send(one.gate), send(two.gate), send(two.gate)]);
      assert.ok(Math.min(...gaps(paced)) >= 300, `workers' starts ${gaps(paced).join(', ')} ms apart`);
      // A section paces its own requests, in its worker.
      const stamp = (gate: Gate): Promise<number> => gate.run(() => Promise.resolve(Date.now()));
      const inSection = await driven(
        context,
        one.gate.exclusive((inner) => Promise.all([stamp(inner), stamp(inner)])),
      );
      // A section's copies leave in one burst: one every 300 ms is four a window, and they are two.
      assert.ok(
        Math.max(...gaps(inSection)) < 300,
        `a section's starts ${gaps(inSection).join(', ')} ms apart`,
      );
      // A 429 to a request sent at that pace halves it.
      await driven(context, two.gate.pause({ ms: 50, why, rateLimitedSentAt: Date.now() }));
      const slower = await startsOf([send(one.gate), send(two.gate)]);
      assert.ok(Math.min(...gaps(slower)) >= 600, `then ${gaps(slower).join(', ')} ms apart`);
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

  it('tells the burst the environment took: the most starts within a second before one was answered 429', () => {
    const start = (at: number, limited = false) => ({ at, limited });
    assert.equal(burstBeforeLimit([start(0), start(10), start(20)]), undefined);
    assert.equal(burstBeforeLimit([start(0), start(1), start(2), start(3, true), start(4, true)]), 3);
    // A window is one second: a start a second after the first opens another.
    assert.equal(burstBeforeLimit([start(0), start(500), start(1_000), start(1_100), start(1_200, true)]), 3);
    assert.equal(burstBeforeLimit([start(0, true), start(2_000), start(2_100), start(5_000, true)]), 2);
  });

  it('under a pace learnt from 429s, releases a section’s burst together when it fits what the environment took, and refuses a wider one before sending', async (context) => {
    mockTime(context);
    const wide = { ...SETTINGS, concurrency: 6 };
    const served = await serveGate(localGate(wide, quiet), 5_000);
    try {
      const worker = remoteGate(served.url, served.token, wide, quiet);
      const stamp = (gate: Gate): Promise<number> => gate.run(() => Promise.resolve(Date.now()));
      const why = '429 on POST /pix/payment';
      // Six at once, the sixth answered 429: the environment took five; then one at the pace, answered 429.
      const burst = await driven(context, Promise.all(Array.from({ length: 6 }, () => stamp(worker.gate))));
      await driven(context, worker.gate.pause({ ms: 50, why, rateLimitedSentAt: Math.max(...burst) }));
      const paced = await driven(context, stamp(worker.gate));
      await driven(context, worker.gate.pause({ ms: 50, why, rateLimitedSentAt: paced }));
      // The pace is now one start every 480 ms (two a window), but three fit the five taken at once.
      const three = await driven(
        context,
        worker.gate.exclusive((inner) => Promise.all([stamp(inner), stamp(inner), stamp(inner)]), 3),
      );
      assert.equal(Math.max(...three) - Math.min(...three), 0, `a section's starts ${three.join(', ')}`);
      let sent = false;
      const refused: unknown = await driven(
        context,
        worker.gate.exclusive(() => Promise.resolve((sent = true)), 6).catch((error: unknown) => error),
      );
      assert.ok(refused instanceof BurstDoesNotFit, String(refused));
      assert.equal(refused.room, 5);
      assert.match(refused.message, /let 5 requests leave in one window, not the 6 to release together .*took at most 5 within one second/);
      assert.equal(sent, false);
    } finally {
      await served.close();
    }
  }); // prettier-ignore

  it('holding tokens: other tests’ withdrawals go on, their token requests wait for the section, which waits for theirs', async () => {
    const { gate, sectionAsked } = watched(localGate({ ...SETTINGS, concurrency: 4 }, quiet));
    const served = await serveGate(gate, 5_000);
    try {
      const one = remoteGate(served.url, served.token, SETTINGS, quiet).gate;
      const two = remoteGate(served.url, served.token, SETTINGS, quiet).gate;
      const trace = tracer();
      const tokenBefore = two.run(trace.request('token-before'), 'token');
      await trace.started('token-before');
      const asked = sectionAsked();
      const section = one.holdingTokens(async (inner) => {
        await inner.run(trace.request('section-token-1'), 'token');
        await inner.run(trace.request('section-token-2'), 'token');
      });
      await asked;
      await settle();
      const elsewhere = [
        two.run(trace.request('withdrawal-meanwhile')),
        two.run(trace.request('token-meanwhile'), 'token'),
      ];
      // A withdrawal goes on while the section waits for the token request in flight.
      await trace.started('withdrawal-meanwhile');
      trace.release('withdrawal-meanwhile');
      await settle();
      trace.release('token-before');
      await trace.started('section-token-1');
      trace.release('section-token-1');
      await trace.started('section-token-2');
      await settle();
      trace.release('section-token-2');
      await trace.started('token-meanwhile');
      trace.release('token-meanwhile');
      await Promise.all([tokenBefore, section, ...elsewhere]);
      const { at } = trace;
      assert.ok(
        at('start section-token-1') > at('end token-before'),
        'the section waits for a token request in flight',
      );
      assert.ok(
        at('end withdrawal-meanwhile') < at('end section-token-2'),
        'a withdrawal goes on during the section',
      );
      assert.ok(
        at('start token-meanwhile') > at('end section-token-2'),
        `a token request waits for the section: ${trace.events.join(', ')}`,
      );
      // Sections of either kind take turns: a race never meets a token section half done.
      const order: string[] = [];
      await Promise.all([
        one.holdingTokens(async () => {
          order.push('tokens-in');
          await settle();
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

  it('at the slowest pace, goes on within its wait budget, then sends nothing more, in every worker', async () => {
    const told: string[] = [];
    const budgeted = { ...SETTINGS, totalWaitMs: 1_000, learnedGapMs: 2_000 };
    const served = await serveGate(
      localGate(budgeted, (line) => told.push(line)),
      5_000,
    );
    try {
      const worker = remoteGate(served.url, served.token, budgeted, quiet);
      const why = '429 on POST /pix/payment';
      // A 429 at one request every 2 s: the pace halves to its floor, and the budget's clock starts.
      assert.equal(await worker.gate.pause({ ms: 50, why, rateLimitedSentAt: Date.now() }), true);
      assert.equal(await worker.gate.run(() => Promise.resolve('sent')), 'sent');
      // Past the budget, whatever the machine's load: a lower bound, not a window.
      await sleep(1_000);
      await assert.rejects(
        worker.gate.run(() => Promise.resolve('sent')),
        WaitBudgetSpent,
      );
      await assert.rejects(
        worker.gate.exclusive(() => Promise.resolve()),
        WaitBudgetSpent,
      );
      assert.equal(await worker.gate.pause({ ms: 50, why }), false, 'no wait past the budget');
      assert.equal(told.filter((l) => l.startsWith('that is the slowest pace')).length, 1, told.join('\n'));
      assert.match(
        told.join('\n'),
        /wait budget of 1 s in all .* SKIPPED as rate-limited \(cause environment\): INCOMPLETE/,
      );
      assert.equal(told.filter((l) => l.includes('is spent: the suite sends nothing more')).length, 1);
    } finally {
      await served.close();
    }
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

  it('counts the time held at the gate once, however many requests wait at once', async (context) => {
    mockTime(context);
    const clock = new WaitClock();
    const changes: boolean[] = [];
    clock.onChange(() => changes.push(clock.holding));
    const gate = clocked(localGate({ ...SETTINGS, concurrency: 1 }, quiet), clock);
    // Three requests of 100 ms through one slot: the second waits 100 ms and the third 200 ms, at once.
    const request = (): Promise<void> => gate.run(() => sleep(100));
    await driven(context, Promise.all([request(), request(), request()]));
    assert.equal(clock.heldMs(), 200);
    assert.deepEqual(changes.slice(-1), [false], 'nothing is held once all left');
    await driven(context, gate.pause({ ms: 60, why: '429 on POST /auth/token' }));
    assert.equal(clock.heldMs(), 260, 'a pause is held time');
  });

  it('with a rate limit, opens its first window only a window after the requests sent before it', async (context) => {
    mockTime(context);
    const sentBefore = Date.now();
    const limited = localGate({ ...SETTINGS, ratePerSecond: 5 }, quiet, { sentBefore });
    const startedAt = await driven(
      context,
      limited.run(() => Promise.resolve(Date.now())),
    );
    assert.ok(startedAt - sentBefore >= 1_000, `started ${startedAt - sentBefore} ms after`);
    // Without a rate limit, nothing to count: the first request leaves at once, no time passing.
    const unlimited = localGate(SETTINGS, quiet, { sentBefore: Date.now() });
    const at = Date.now();
    assert.equal(await unlimited.run(() => Promise.resolve(Date.now())), at);
  });
});
