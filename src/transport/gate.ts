/**
 * The gate every request to the environment goes through: a cap on requests in flight and on the
 * rate, for the whole run, and the run-wide pause a 429 (or a 503 with Retry-After) asks for. The
 * queueing is p-queue's: under a rate, the run's requests start one at a time, evenly spaced over the
 * counting window, so that no second at the provider sees more than the rate even when one of them
 * leaves late (a burst of the rate at a window's start, another at the next, leaves no room for a
 * late one); a section's own requests, which must leave together, start in one burst. Workers are
 * separate processes, so a run shares one gate, served by global setup (shared-gate.ts); a process
 * without one (a unit test) keeps its own.
 */
import PQueue from 'p-queue';
import type { Config } from '../config/config.ts';

export interface GateSettings {
  /** PIX_CONCURRENCY: requests in flight at once, for the whole run. */
  readonly concurrency: number;
  /** PIX_RATE_LIMIT: requests per second, for the whole run; undefined limits nothing. */
  readonly ratePerSecond: number | undefined;
  /** The pace the environment's 429s taught the run: at least this many ms between two starts. */
  readonly learnedGapMs?: number;
  /**
   * Once the environment answered 429: the most requests the run started within one second before
   * one of them was answered 429, which a section may release together after a quiet window.
   */
  readonly observedBurst?: number;
  /** PIX_MAX_RETRY_AFTER_S, in ms: the longest single wait the suite accepts. */
  readonly maxWaitMs: number;
  /**
   * The run's wait budget: the longest it may be held back by the environment's rate limit in all, its
   * Retry-After waits and, once its pace is at the floor, all its time since. Past it nothing more is sent.
   */
  readonly totalWaitMs: number;
}

/** What a pause asked for and whether the suite waits: false once a cap is passed. */
export interface PauseRequest {
  readonly ms: number;
  /** What asked, for the console: `429 on POST /auth/token`. */
  readonly why: string;
  /**
   * When the request answered 429 left (epoch ms), for a 429 only: the run learns the environment's
   * rate from the requests started in the second before it.
   */
  readonly rateLimitedSentAt?: number;
}

/** What a request is, for a section that holds only token requests (holdingTokens). */
export type RequestKind = 'token' | 'other';

export interface Gate {
  /** Runs one request once the run's limits allow it; a token request also waits out a holdingTokens section. */
  run<T>(send: () => Promise<T>, kind?: RequestKind): Promise<T>;
  /** Holds every request of the run for the time asked; resolves false, at once, past a cap. */
  pause(request: PauseRequest): Promise<boolean>;
  /**
   * Runs `section` with the environment to itself: once nothing else of the run is in flight, and
   * with nothing else let out until it ends. Its own requests go through `inner`, a gate with the
   * run's limits. For what only a quiet environment shows: a race of requests released together, a
   * duplicate withdrawals that only count if they arrive together. With `burst`, the number of
   * requests the section releases together: rejects with BurstDoesNotFit, sending nothing, when the
   * run's limits let fewer leave in one window.
   */
  exclusive<T>(section: (inner: Gate) => Promise<T>, burst?: number): Promise<T>;
  /**
   * Runs `section` once no other token request of the run is queued or in flight, and lets none out
   * until it ends; every other request goes on. Its own requests, token ones included, go through
   * `inner`, with the run's limits. For what only needs no token issued meanwhile: a token used after
   * a newer one was issued, one token reused. Sections of either kind run one at a time, and a section
   * opens no other.
   */
  holdingTokens<T>(section: (inner: Gate) => Promise<T>): Promise<T>;
}

/** The gate of the process that keeps the run's limits (global setup's, or a process's own). */
export interface LocalGate extends Gate {
  /** The limits kept now: the configured ones and the pace the environment's 429s taught. */
  settings(): GateSettings;
}

/**
 * Thrown instead of sending, once the run's wait budget is spent: the request never left, and what it
 * would have judged is left unjudged as rate-limited (SKIPPED, cause `environment`).
 */
export class WaitBudgetSpent extends Error {
  override readonly name = 'WaitBudgetSpent';
}

/**
 * Thrown instead of opening a section whose burst no window of the run's limits holds: its requests
 * would leave spaced, and what only their arriving together shows could not be judged.
 */
export class BurstDoesNotFit extends Error {
  override readonly name = 'BurstDoesNotFit';
  /** The requests the run's limits let leave in one window. */
  readonly room: number;

  constructor(message: string, room: number) {
    super(message);
    this.room = room;
  }
}

/** How the gate tells the person running the suite that it waits. */
export type Tell = (line: string) => void;

/**
 * The window PIX_RATE_LIMIT counts requests in: a second, and a fifth more for the network's and the
 * machine's jitter, so that a provider counting arrivals never sees more than the rate in any second.
 */
const RATE_WINDOW_MS = 1_200;

/** The slowest pace a run learns: one request every 4 s. */
const SLOWEST_GAP_MS = 4_000;

/**
 * The pace a run keeps once the environment answered 429, a rate limit the document does not state
 * (§8, not shown). The first 429 teaches that the environment took fewer requests than the run started
 * in the second before that request: the run keeps one fewer (at least one), spaced over a window.
 * A later 429 to a request sent at that pace halves it. Without it, the requests a Retry-After held
 * back meet the limit again all at once, and the same requests are refused until they give up.
 */
function slowerGap(currentGapMs: number, startsInTheSecondBefore: number): number {
  const gap =
    currentGapMs === 0 ? RATE_WINDOW_MS / Math.max(1, startsInTheSecondBefore - 1) : currentGapMs * 2;
  return Math.min(SLOWEST_GAP_MS, Math.ceil(gap));
}

/** The requests a section lets leave in one window under a learned pace: the pace's, or the burst the environment took. */
const perWindow = (gapMs: number, observedBurst: number | undefined): number =>
  Math.max(1, Math.floor(RATE_WINDOW_MS / gapMs), observedBurst ?? 0);

/** How many requests a section's own gate lets leave in one window under these limits; undefined: any number. */
export function burstRoom(settings: GateSettings): number | undefined {
  const gapMs = settings.learnedGapMs ?? 0;
  const learned = gapMs > 0 ? perWindow(gapMs, settings.observedBurst) : undefined;
  const rate = settings.ratePerSecond;
  return rate === undefined ? learned : Math.min(rate, learned ?? rate);
}

/** Rejects a section of `burst` requests that the limits `now` cannot release in one window. */
export function fits(burst: number | undefined, now: GateSettings): void {
  const room = burstRoom(now);
  if (burst === undefined || room === undefined || burst <= room) return;
  const taken =
    now.observedBurst === undefined
      ? ''
      : `, and took at most ${now.observedBurst} within one second before answering 429`;
  throw new BurstDoesNotFit(
    `the run's limits let ${room} request${room === 1 ? '' : 's'} leave in one window, not the ${burst} to release together (PIX_RATE_LIMIT ${now.ratePerSecond ?? 'unset'}; the pace the environment's 429s taught: one request every ${((now.learnedGapMs ?? 0) / 1000).toFixed(2)} s${taken})`,
    room,
  );
}

/**
 * The most requests started within one second and before the first of them answered 429, among
 * `starts` in time order; undefined when none was answered 429 (the environment showed no limit).
 */
export function burstBeforeLimit(starts: readonly { at: number; limited: boolean }[]): number | undefined {
  if (!starts.some((s) => s.limited)) return undefined;
  let most = 0;
  let end = 0;
  for (let i = 0; i < starts.length; i++) {
    const first = starts[i];
    if (first === undefined || first.limited) continue;
    const within = (k: number): boolean => {
      const next = starts[k];
      return next !== undefined && !next.limited && next.at < first.at + 1_000;
    };
    // The window's end only moves forward as its start does: each start is passed once.
    end = Math.max(end, i);
    while (within(end + 1)) end += 1;
    most = Math.max(most, end - i + 1);
  }
  return most;
}

/** How many of the run's latest starts the gate remembers to tell the burst the environment took. */
const REMEMBERED_STARTS = 1_024;

/**
 * The run's gate, or (`together`) a section's own, whose requests leave in one burst. `sentBefore`:
 * when the run last sent a request without it (pix-certify's checks of the environment, before any
 * test); with a rate limit, the gate's first window opens a window after it, so that those requests
 * and the first ones through the gate never share one.
 */
export function localGate(
  settings: GateSettings,
  tell: Tell,
  { sentBefore, together = false }: { sentBefore?: number | undefined; together?: boolean } = {},
): LocalGate {
  const rate = settings.ratePerSecond;
  const queue = new PQueue({
    concurrency: settings.concurrency,
    ...(rate === undefined
      ? {}
      : together
        ? { interval: RATE_WINDOW_MS, intervalCap: rate, strict: true }
        : { interval: Math.ceil(RATE_WINDOW_MS / rate), intervalCap: 1, strict: true }),
  });
  // What holds the queue: a Retry-After pause, an exclusive section, the window of the requests sent
  // before the gate; it starts when none does.
  type Hold = 'retry-after' | 'exclusive' | 'sent-before';
  const holds = new Set<Hold>();
  const hold = (why: Hold): void => {
    holds.add(why);
    queue.pause();
  };
  const letGo = (why: Hold): void => {
    holds.delete(why);
    if (holds.size === 0) queue.start();
  };
  // A section waits a window out after the last start (windowOut): the requests sent before count.
  let lastStart = sentBefore ?? 0;
  const firstWindowIn = rate === undefined ? 0 : lastStart + RATE_WINDOW_MS - Date.now();
  if (firstWindowIn > 0) {
    hold('sent-before');
    setTimeout(() => letGo('sent-before'), firstWindowIn);
  }
  queue.on('active', () => {
    lastStart = Date.now();
  });
  // The pace learnt from 429s: the starts of the last second, and when the next request may start;
  // the Retry-After waits so far, and since when the pace is at its floor.
  let gapMs = settings.learnedGapMs ?? 0;
  let waited = 0;
  let atFloor: { since: number; waitedBefore: number } | undefined;
  let learntAt = 0;
  let nextStart = 0;
  const starts: number[] = [];
  // The latest starts in order, each marked once a 429 answered it: the burst the environment took.
  const remembered: { at: number; limited: boolean }[] = [];
  // A section's window under the learned pace: when it opened and how many started in it.
  let window = { openedAt: 0, started: 0 };
  const paced = async <T>(send: () => Promise<T>): Promise<T> => {
    if (gapMs > 0 && together) {
      // A section's requests leave in one burst when the pace, or the burst the environment took, allows that many.
      const room = perWindow(gapMs, settings.observedBurst);
      while (window.started >= room && Date.now() < window.openedAt + RATE_WINDOW_MS)
        await sleep(window.openedAt + RATE_WINDOW_MS - Date.now());
      if (Date.now() >= window.openedAt + RATE_WINDOW_MS) window = { openedAt: Date.now(), started: 0 };
      window.started += 1;
    } else if (gapMs > 0) {
      const at = Math.max(Date.now(), nextStart);
      nextStart = at + gapMs;
      await sleep(at - Date.now());
    }
    refuseWhenSpent();
    const now = Date.now();
    starts.push(now);
    while ((starts[0] ?? now) < now - 2_000) starts.shift();
    remembered.push({ at: now, limited: false });
    if (remembered.length > REMEMBERED_STARTS) remembered.shift();
    return send();
  };
  /** Marks the start of the request a 429 answered: the latest unmarked one noted before it left (with slack, as in learn). */
  const markLimited = (sentAt: number): void => {
    const index = remembered.findLastIndex((s) => !s.limited && s.at <= sentAt + 50);
    const start = remembered[index];
    if (start !== undefined) start.limited = true;
  };
  /** A 429 to a request sent at the pace the run keeps now slows it (slowerGap); one sent before does not. */
  const learn = (sentAt: number): void => {
    markLimited(sentAt);
    if (sentAt < learntAt) return;
    // A start is noted just before its request leaves: a little slack keeps the request itself counted.
    const before = starts.filter((t) => t <= sentAt + 50 && t > sentAt - 1_000).length;
    const slower = slowerGap(gapMs, before);
    learntAt = Date.now();
    nextStart = 0;
    if (slower === gapMs) return;
    gapMs = slower;
    tell(
      `the environment limits its rate: the run now starts one request every ${(gapMs / 1000).toFixed(2)} s at most (PIX_RATE_LIMIT sets a pace from the start)`,
    );
    if (gapMs < SLOWEST_GAP_MS) return;
    atFloor = { since: Date.now(), waitedBefore: waited };
    tell(
      `that is the slowest pace the suite keeps: if the environment still answers 429, the run goes on at it within its wait budget of ${Math.round(settings.totalWaitMs / 1000)} s in all (4 × PIX_MAX_RETRY_AFTER_S), then sends nothing more and leaves what it did not judge SKIPPED as rate-limited (cause environment): INCOMPLETE`,
    );
  };
  /** The budget's time left: the Retry-After waits, and once at the floor every ms since, count. */
  const budgetLeft = (): number =>
    settings.totalWaitMs -
    (atFloor === undefined ? waited : atFloor.waitedBefore + Date.now() - atFloor.since);
  let spentTold = false;
  /** Throws, and tells once, when the wait budget is spent: no more requests leave. */
  const refuseWhenSpent = (): void => {
    if (budgetLeft() > 0) return;
    const why = `the run's wait budget of ${Math.round(settings.totalWaitMs / 1000)} s for the environment's rate limit is spent`;
    if (!spentTold)
      tell(
        `${why}: the suite sends nothing more, and every check it has not judged is SKIPPED as rate-limited (cause environment); the run is INCOMPLETE. Run again later, with PIX_RATE_LIMIT at the environment's rate, or raise PIX_MAX_RETRY_AFTER_S (the budget is four times it)`,
      );
    spentTold = true;
    throw new WaitBudgetSpent(`${why} (the environment kept answering 429 at the slowest pace)`);
  };
  /** With a rate limit, set or learnt, a section's requests must not share a window with the queue's: it waits one out. */
  const windowOut = (since: number): Promise<void> =>
    settings.ratePerSecond === undefined && gapMs === 0
      ? Promise.resolve()
      : sleep(since + RATE_WINDOW_MS - Date.now());
  /** The limits kept now, for a section's own gate: the pace learnt, the burst the environment took and the budget left. */
  const keptNow = (): GateSettings => {
    const burst = burstBeforeLimit(remembered) ?? settings.observedBurst;
    return {
      ...settings,
      learnedGapMs: gapMs,
      ...(burst === undefined ? {} : { observedBurst: burst }),
      totalWaitMs: Math.max(0, budgetLeft()),
    };
  };
  let sections: Promise<unknown> = Promise.resolve();
  /** One section at a time, of either kind: a race never meets a token section half done. */
  const inTurn = <T>(section: () => Promise<T>): Promise<T> => {
    const turn = sections.then(section);
    sections = turn.catch(() => undefined);
    return turn;
  };
  // Token requests let through and not yet settled, and a holdingTokens section's hold on new ones.
  let tokensAdmitted = 0;
  let tokensHeld: Promise<void> | undefined;
  const tokensSettled: (() => void)[] = [];
  const admitted = async <T>(send: () => Promise<T>): Promise<T> => {
    refuseWhenSpent();
    return queue.add(() => paced(send));
  };
  const tokenRequest = async <T>(send: () => Promise<T>): Promise<T> => {
    while (tokensHeld !== undefined) await tokensHeld;
    tokensAdmitted += 1;
    try {
      return await admitted(send);
    } finally {
      tokensAdmitted -= 1;
      if (tokensAdmitted === 0) for (const settled of tokensSettled.splice(0)) settled();
    }
  };
  let pausedUntil = 0;
  let resume: ReturnType<typeof setTimeout> | undefined;
  const pause = async ({ ms, why, rateLimitedSentAt }: PauseRequest): Promise<boolean> => {
    if (rateLimitedSentAt !== undefined) learn(rateLimitedSentAt);
    if (ms > settings.maxWaitMs || ms > budgetLeft()) {
      tell(
        `${why}, asking to wait ${Math.ceil(ms / 1000)} s: past PIX_MAX_RETRY_AFTER_S or the run's wait budget, so the suite stops waiting and leaves what it could not judge unjudged`,
      );
      return false;
    }
    const until = Date.now() + ms;
    if (until > pausedUntil) {
      waited += until - Math.max(pausedUntil, Date.now());
      pausedUntil = until;
      tell(`${why}: the whole run waits ${Math.ceil(ms / 1000)} s, as Retry-After asks`);
      hold('retry-after');
      clearTimeout(resume);
      resume = setTimeout(() => letGo('retry-after'), until - Date.now());
    }
    await sleep(pausedUntil - Date.now());
    return true;
  };
  return {
    run: <T>(send: () => Promise<T>, kind: RequestKind = 'other'): Promise<T> =>
      kind === 'token' ? tokenRequest(send) : admitted(send),
    pause,
    exclusive: <T>(section: (inner: Gate) => Promise<T>, burst?: number): Promise<T> =>
      // Each holds the queue, then waits until the requests in flight end.
      inTurn(async () => {
        refuseWhenSpent();
        hold('exclusive');
        try {
          while (queue.pending > 0) await new Promise((next) => queue.once('next', next));
          fits(burst, keptNow());
          await windowOut(lastStart);
          return await section(localGate(keptNow(), tell, { together: true }));
        } finally {
          // The section's last request may have left just now: the queue's next ones wait a window out.
          await windowOut(Date.now());
          letGo('exclusive');
        }
      }),
    holdingTokens: <T>(section: (inner: Gate) => Promise<T>): Promise<T> =>
      inTurn(async () => {
        let release = (): void => undefined;
        tokensHeld = new Promise<void>((done) => {
          release = done;
        });
        try {
          while (tokensAdmitted > 0) await new Promise<void>((settled) => tokensSettled.push(settled));
          return await section(sectionGate((send) => admitted(send), pause));
        } finally {
          tokensHeld = undefined;
          release();
        }
      }),
    settings: keptNow,
  };
}

const noSection = (): Promise<never> => Promise.reject(new Error('a section opens no other section'));

/**
 * A holdingTokens section's own gate: `run` sends with the run's limits, and the section's token
 * requests are not held by the section itself.
 */
export function sectionGate(run: Gate['run'], pause: Gate['pause']): Gate {
  return {
    run: (send) => run(send),
    pause,
    exclusive: noSection,
    holdingTokens: noSection,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, Math.max(0, ms)));

const DEFAULT_WAIT_MS = 1_000;

/**
 * How long an answer asks the client to wait: Retry-After in seconds or as an HTTP date; a 429
 * without one waits a second. Undefined when the answer asks for no wait (any other status, a 503
 * without Retry-After).
 */
export function retryAfterMs(
  status: number,
  headers: Readonly<Record<string, string>>,
  now = Date.now(),
): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const value = headers['retry-after']?.trim();
  if (value === undefined || value === '') return status === 429 ? DEFAULT_WAIT_MS : undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return status === 429 ? DEFAULT_WAIT_MS : undefined;
  return Math.max(0, date - now);
}

/**
 * The run's limits, as the configuration sets them. The wait budget is four of the longest waits: two
 * minutes by default, so that an environment no pace satisfies ends the run within about five.
 */
export function gateSettingsOf(config: Config): GateSettings {
  return {
    concurrency: config.concurrency,
    ratePerSecond: config.rateLimit,
    maxWaitMs: config.maxRetryAfterMs,
    totalWaitMs: 4 * config.maxRetryAfterMs,
  };
}
