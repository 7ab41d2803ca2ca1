/**
 * npm run bench: the wall time and the peak memory of the whole process tree of a full certification,
 * as a user types it, side by side: against the embedded mock and against the sandbox's reference
 * reading, from these sources (`npm run certify`) and from the installed package (`npx pix-certify`),
 * under each Node version found (see runtimes.ts). The rows' runs are interleaved, so that a machine
 * that gets busier or quieter during the bench weighs on every row alike. Asserts nothing.
 *
 * One more row times `pix-certify history` over 200 runs (history-runs.ts makes them), from the
 * sources.
 *
 * The remote column: a live certification from the sources, under the newest Node found, against the sandbox
 * answering every request 0, 50, 100 and 150 ms late (its delayMs, an environment a round trip
 * away), with how much the run grows per millisecond added and its time at 100 ms against 0 ms.
 *
 * The throughput lines (throughput.ts): the simulator's valid withdrawals a second with their webhooks
 * delivered, p50/p99 at 16 in flight, beside the Prism mock's, min(BENCH_RUNS, 5) passes each.
 *
 * Beside each Node's mock certification from the sources, in the same rounds: Playwright's own floor
 * (its runner with two empty tests and two workers, bench/floor/), and, with BENCH_BASELINE=<commit>,
 * that commit's `npm run certify` from a clone of its own (baseline.ts; several commits, comma-separated,
 * each a row), also beside the live certification; the ratios lines compare the certification's medians
 * with theirs. A round not counted goes first (compile caches, a clone's build).
 *
 * BENCH_RUNS sets the runs per row (default 7); BENCH_ONLY runs only the rows whose label holds it, or
 * one of its alternatives separated by | (`remote`, `mock`, `throughput`, `Node 24`), a mock row from the
 * sources with its floor and baseline; BENCH_CONCURRENCY sets PIX_CONCURRENCY for the remote column;
 * BENCH_SPECMATIC=<specmatic.jar> adds Specmatic's test of the same document against the +0 ms sandbox
 * beside it; --tarball <path> or BENCH_TARBALL installs that tarball instead of packing this repository.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../sandbox/server.ts';
import { sandboxEnv } from '../selftest/support/live-env.ts';
import { type Command, measure, median, type Sample, type Summary, summarise } from './measure.ts';
import { type Runtime, runtimes } from './runtimes.ts';
import { BIN } from '../selftest/support/installed-package.ts';
import { installedPackage } from './tarball.ts';
import { historyRuns } from './history-runs.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { DEFAULT_CONCURRENCY } from '../src/config/config.ts';
import { createNamespace, throughputLines } from './throughput.ts';
import { type Baseline, baselineCheckout } from './baseline.ts';
import { LATER_DUPLICATE_GAP_MS } from '../src/checks/check-code.ts';

/** Milliseconds as the bench prints them. */
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? '7');
/** The runs a QA history covers: about a month of nightly runs, several times over. */
const HISTORY_RUNS = 200;

interface Row {
  readonly label: string;
  readonly command: Command;
  /** The floor's and the baseline's rows run wherever the mock certification they measure runs. */
  readonly beside?: Row;
  /** The exit code a run of the row ends with when it went as it should (0 unless said). */
  readonly expectedExit?: number;
}

type Target = 'mock' | 'live';
const TARGETS: readonly Target[] = ['mock', 'live'];
/** A tarball row's label after its Node version: BENCH_ONLY is matched against it before the tarball is made. */
const tarballLabel = (target: Target): string => `npx ${BIN} (tarball, ${target})`;

/** The added round trips of the remote column, in ms per request. */
const DELAYS_MS = [0, 50, 100, 150] as const;
/** BENCH_ONLY's alternatives, separated by |. */
const ONLY = (process.env.BENCH_ONLY ?? '').split('|');
/** A row runs when its label holds one of them. */
const chosen = (label: string): boolean => ONLY.some((only) => label.includes(only));
/** A group of rows (client, readings, history, throughput) runs when BENCH_ONLY is empty or names it. */
const named = (group: string): boolean => ONLY.some((only) => group.includes(only));

const sandbox = await startSandbox();
/** The user's own webhook wait (the default), not the self-tests' short one: its grace is part of a live run. */
const liveEnvOf = (running: RunningSandbox): Record<string, string> =>
  Object.fromEntries(
    Object.entries(sandboxEnv(running, 'reference')).filter(([key]) => key !== 'PIX_WEBHOOK_TIMEOUT_MS'),
  );
const liveEnv = liveEnvOf(sandbox);
/** One sandbox per added delay, each a far-away environment's reference reading, counting what it is sent. */
const remote = await Promise.all(
  DELAYS_MS.map(async (delayMs) => {
    const arrivals: number[] = [];
    const delayed = await startSandbox({ delayMs, onArrival: () => arrivals.push(performance.now()) });
    return { delayMs, sandbox: delayed, arrivals };
  }),
);
/** PIX_CONCURRENCY of the remote column's runs (the run's default when unset): what the cap costs at a distance. */
const REMOTE_CONCURRENCY = process.env.BENCH_CONCURRENCY;
const remoteLabel = (delayMs: number, runtime: Runtime): string =>
  `remote: live, sandbox +${delayMs} ms per request${REMOTE_CONCURRENCY === undefined ? '' : `, PIX_CONCURRENCY=${REMOTE_CONCURRENCY}`} (sources, ${runtime.label})`;

const FLOOR_LABEL = "Playwright's floor: two empty tests, 2 workers";
const baselineLabel = (commit: string, target: Target): string =>
  `npm run certify (${commit} clone, ${target})`;

/**
 * Beside a certification from the sources, under its Node and against its target: Playwright's floor
 * (mock only) and the baseline's certification of the same target.
 */
function besideRows(sources: Row, label: string, target: Target, baselines: readonly Baseline[]): Row[] {
  const env = sources.command.env;
  const floorConfig = join('bench', 'floor', 'playwright.config.ts');
  const floor: Row = {
    label: `${label}  ${FLOOR_LABEL}`,
    beside: sources,
    command: { file: 'npx', args: ['--no', 'playwright', 'test', '--config', floorConfig], cwd: ROOT, env },
  };
  return [
    ...(target === 'mock' ? [floor] : []),
    ...baselines.map((baseline) => ({
      label: `${label}  ${baselineLabel(baseline.commit, target)}`,
      beside: sources,
      command: { file: 'npm', args: ['run', 'certify'], cwd: baseline.dir, env },
    })),
  ];
}

function rowsFor(
  path: string,
  label: string,
  installDir: string | undefined,
  baselines: readonly Baseline[],
): Row[] {
  const rows: Row[] = [];
  for (const target of TARGETS) {
    const env = { PATH: path, ...(target === 'live' ? liveEnv : {}) };
    const sources: Row = {
      label: `${label}  npm run certify (sources, ${target})`,
      command: { file: 'npm', args: ['run', 'certify'], cwd: ROOT, env },
    };
    rows.push(sources, ...besideRows(sources, label, target, baselines));
    if (installDir !== undefined)
      rows.push({
        label: `${label}  ${tarballLabel(target)}`,
        command: { file: 'npx', args: ['--no', BIN], cwd: installDir, env },
      });
  }
  return rows;
}

/** The example integrator's own tests: run bare against a namespace, then under pix-certify client. */
const EXAMPLE_TESTS = [
  'node',
  '--test',
  '--test-concurrency=1',
  join(ROOT, 'examples', 'integrator', 'test'),
];

/** A namespace of the bench's sandbox, as the variables the example reads. */
async function namespaceEnv(running: RunningSandbox): Promise<Record<string, string>> {
  const made = await createNamespace(running.url, running.controlToken, { name: 'bench-client' });
  return {
    PIX_BASE_URL: made.baseUrl,
    PIX_CLIENT_ID: made.clientId,
    PIX_CLIENT_SECRET: made.clientSecret,
    PIX_CERT_CLIENT: made.certClient,
  };
}

/**
 * Specmatic's contract run (BENCH_SPECMATIC: the path of its specmatic.jar, from the npm package
 * `specmatic`, which needs Java) of the same OpenAPI document against the +0 ms sandbox, beside the live
 * certification against it: the other tool a team would run for the same contract. Its generated
 * requests carry no valid credential, so the sandbox refuses them and Specmatic exits 1.
 */
function specmaticRows(remoteRows: readonly Row[], workDir: string): Row[] {
  const jar = process.env.BENCH_SPECMATIC ?? '';
  const live = remoteRows[0];
  const baseUrl = remote[0] === undefined ? undefined : liveEnvOf(remote[0].sandbox).PIX_BASE_URL;
  if (jar === '' || live === undefined || baseUrl === undefined) return [];
  const spec = join(ROOT, 'openapi', 'pix-withdrawal.yaml');
  const args = ['-jar', jar, 'test', spec, `--testBaseURL=${baseUrl}`];
  const env = { PATH: process.env.PATH ?? '' };
  return [
    {
      label: SPECMATIC_LABEL,
      beside: live,
      expectedExit: 1,
      command: { file: 'java', args, cwd: workDir, env },
    },
  ];
}

const SPECMATIC_LABEL = 'remote: Specmatic test of the same document, sandbox +0 ms';

const READINGS_LABEL = 'readings: pix-certify client --readings ';
/** The reading whose run takes longest: every withdrawal answered 3 s late. */
const SLOWEST_READING = 'slow-answers';

/** What pix-certify client adds to a command: the command alone against a running simulator, and under it. */
async function clientRows(): Promise<Row[]> {
  if (!named('client')) return [];
  const env = { PATH: process.env.PATH ?? '' };
  const [file = 'node', ...args] = EXAMPLE_TESTS;
  return [
    { label: 'client: the example\'s tests alone', command: { file, args, cwd: ROOT, env: { ...env, ...(await namespaceEnv(sandbox)) } } },
    // As npm run client starts it, without npm's own start: what the command adds, not the package manager.
    { label: 'client: pix-certify client -- the same tests', command: { file: process.execPath, args: ['--import', './scripts/typescript.mjs', 'bin/client.ts', '--', ...EXAMPLE_TESTS], cwd: ROOT, env } },
  ];
} // prettier-ignore

/** The slowest reading alone, and every reading at once: what running them side by side costs. */
function readingRows(): Row[] {
  if (!named('readings')) return [];
  const env = { PATH: process.env.PATH ?? '' };
  const client = (readings: string): Command => ({ file: process.execPath, args: ['--import', './scripts/typescript.mjs', 'bin/client.ts', '--readings', readings, '--', ...EXAMPLE_TESTS], cwd: ROOT, env });
  return [
    { label: `${READINGS_LABEL}${SLOWEST_READING} (the slowest alone)`, command: client(SLOWEST_READING) },
    { label: `${READINGS_LABEL}all`, command: client('all') },
  ];
} // prettier-ignore

const notes: string[] = [];
let historyDir: string | undefined;
/** The +0 ms remote row's runs, for the critical-path floor. */
const zeroSpans: ZeroSpan[] = [];
/** Specmatic writes its reports where it runs: a directory of the bench's own. */
const specmaticDir = mkdtempSync(join(tmpdir(), 'pix-bench-specmatic-'));
try {
  // Packing and installing the tarball, and making 200 runs, take a while: only for rows that run.
  const installed = TARGETS.some((target) => chosen(tarballLabel(target)))
    ? await installedPackage(process.argv.slice(2))
    : { skipped: `BENCH_ONLY=${process.env.BENCH_ONLY ?? ''}` };
  if ('skipped' in installed) notes.push(`tarball rows skipped: ${installed.skipped}`);
  const { found, missing } = runtimes();
  notes.push(...missing);
  const baselineCommits = (process.env.BENCH_BASELINE ?? '').split(',').map((c) => c.trim());
  const baselines = await Promise.all(baselineCommits.filter((c) => c !== '').map(baselineCheckout));
  const history = named('history')
    ? await historyRuns(liveEnv, HISTORY_RUNS)
    : { workDir: undefined, dirs: [] };
  historyDir = history.workDir;
  // Under the reference runtime (the newest Node found: 24 once the package self-test installed it).
  const reference = found.at(-1) ?? { label: `Node ${process.versions.node}`, path: process.env.PATH ?? '' };
  const remoteRows: Row[] = remote.map(({ delayMs, sandbox: delayed }) => ({
    label: remoteLabel(delayMs, reference),
    command: {
      file: 'npm',
      args: ['run', 'certify'],
      cwd: ROOT,
      env: {
        PATH: reference.path,
        ...liveEnvOf(delayed),
        ...(REMOTE_CONCURRENCY === undefined ? {} : { PIX_CONCURRENCY: REMOTE_CONCURRENCY }),
      },
    },
  }));
  const allRows = [
    ...found.flatMap((runtime) =>
      rowsFor(runtime.path, runtime.label, 'dir' in installed ? installed.dir : undefined, baselines),
    ),
    ...remoteRows,
    ...specmaticRows(remoteRows, specmaticDir),
    ...(await clientRows()),
    ...readingRows(),
    {
      label: `history of ${HISTORY_RUNS} runs (sources)`,
      command: {
        file: process.execPath,
        args: [
          '--import',
          'tsx',
          join(ROOT, 'bin', 'history.ts'),
          ...history.dirs,
          '--out',
          join(history.workDir ?? ROOT, 'history.html'),
        ],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
      },
    },
  ];
  const rows = allRows.filter((row) => chosen((row.beside ?? row).label));
  const throughput = named('throughput') ? await throughputLines(Math.min(RUNS, 5)) : [];
  const samples = new Map<Row, Sample[]>(rows.map((row) => [row, []]));
  process.stderr.write("bench: a round not counted (compile caches, a clone's first build)\n");
  for (const row of rows) await measure(row.command);
  const loadBefore = loadavg()[0] ?? 0;
  for (let round = 0; round < RUNS; round++) {
    process.stderr.write(
      `bench: round ${round + 1} of ${RUNS}, load average ${(loadavg()[0] ?? 0).toFixed(1)}\n`,
    );
    // Each round starts with another row, so that no row always follows the same one.
    for (let i = 0; i < rows.length; i++) {
      const row = rows[(round + i) % rows.length];
      if (row === undefined) continue;
      const started = performance.now();
      samples.get(row)?.push(await measure(row.command));
      if (row === remoteRows[0])
        zeroSpans.push(spanOf(remote[0]?.arrivals ?? [], started, performance.now()));
    }
  }
  const width = Math.max(...rows.map((r) => r.label.length));
  const lines = [
    `${cpus().length} cores, load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after; ${RUNS} runs per row, interleaved`,
    `${'row'.padEnd(width)}  median   min      max      peak RSS of the tree (median, max)  processor time (median), median against the first row`,
  ];
  const first = rows[0] === undefined ? undefined : summaryOf(samples, rows[0]);
  for (const row of rows) {
    const summary = summaryOf(samples, row);
    const ratio = first === undefined ? '' : `  ×${(summary.medianMs / first.medianMs).toFixed(2)}`;
    lines.push(
      `${row.label.padEnd(width)}  ${s(summary.medianMs)}  ${s(summary.minMs)}  ${s(summary.maxMs)}  ${summary.medianPeakMb.toFixed(0)} MB, ${summary.maxPeakMb.toFixed(0)} MB  ${summary.medianCpuSeconds.toFixed(2)} s${ratio}`,
    );
    for (const failed of summary.failedRuns)
      lines.push(
        `  a run exited ${failed.exitCode} instead of ${row.expectedExit ?? 0}:\n${failed.stderrTail}`,
      );
  }
  const [alone, underClient] = rows
    .filter((row) => row.label.startsWith('client: '))
    .map((row) => summaryOf(samples, row));
  if (alone !== undefined && underClient !== undefined)
    lines.push(
      `pix-certify client adds ${s(underClient.medianMs - alone.medianMs)} to the example's own tests (medians of ${RUNS} interleaved runs; target at most 1 s)`,
    );
  const [slowest, everyReading] = rows
    .filter((row) => row.label.startsWith(READINGS_LABEL))
    .map((row) => summaryOf(samples, row));
  if (slowest !== undefined && everyReading !== undefined)
    lines.push(
      `readings: every reading takes ×${(everyReading.medianMs / slowest.medianMs).toFixed(2)} the slowest alone (${s(everyReading.medianMs)} against ${s(slowest.medianMs)}, medians of ${RUNS} interleaved runs; target at most ×1.5)`,
    );
  const remoteMedians = mediansByDelay(remoteRows, samples);
  const specmatic = rows.find((row) => row.label === SPECMATIC_LABEL);
  if (specmatic?.beside !== undefined && rows.includes(specmatic.beside)) {
    const [live, theirs] = [specmatic.beside, specmatic].map((row) => summaryOf(samples, row));
    if (live !== undefined && theirs !== undefined)
      lines.push(
        `remote: the live certification at +0 ms is ×${(theirs.medianMs / live.medianMs).toFixed(2)} faster than Specmatic's test of the same document (${s(live.medianMs)} against ${s(theirs.medianMs)}; target at least ×2)`,
      );
  }
  lines.push(
    ...ratioLines(rows, samples),
    ...throughput,
    ...remoteSummary(remoteMedians),
    ...remoteFloor(zeroSpans, remoteMedians.find((point) => point.delayMs === 100)?.medianMs),
  );
  process.stdout.write(`${[...lines, ...notes.map((n) => `note: ${n}`)].join('\n')}\n`);
} finally {
  await sandbox.close();
  await Promise.all(remote.map((r) => r.sandbox.close()));
  if (historyDir !== undefined) rmSync(historyDir, { recursive: true, force: true });
  rmSync(specmaticDir, { recursive: true, force: true });
}

/**
 * Each mock certification from the sources against the rows beside it (Playwright's floor, the
 * baseline's certification): the ratio of its medians to theirs, wall and processor time, and the peaks.
 */
function ratioLines(rows: readonly Row[], samples: ReadonlyMap<Row, Sample[]>): string[] {
  const of = (row: Row): Summary => summaryOf(samples, row);
  return rows.flatMap((row) => {
    if (row.beside === undefined || !rows.includes(row.beside)) return [];
    const [mine, theirs] = [of(row.beside), of(row)];
    return [
      `ratio: ${row.beside.label} against ${row.label}: wall ×${(mine.medianMs / theirs.medianMs).toFixed(2)}, processor ×${(mine.medianCpuSeconds / theirs.medianCpuSeconds).toFixed(2)}, peak tree ${mine.medianPeakMb.toFixed(0)} against ${theirs.medianPeakMb.toFixed(0)} MB`,
    ];
  });
}

/** One measured run against the +0 ms sandbox: its requests, and the time before the first and after the last. */
interface ZeroSpan {
  readonly requests: number;
  readonly leadMs: number;
  readonly tailMs: number;
}

function spanOf(arrivals: readonly number[], started: number, ended: number): ZeroSpan {
  const within = arrivals.filter((at) => at >= started && at <= ended);
  return {
    requests: within.length,
    leadMs: (within[0] ?? ended) - started,
    tailMs: ended - (within.at(-1) ?? started),
  };
}

/**
 * What no schedule can beat at a distance, the larger of two bounds, each adding to its round trips what
 * no delay touches, measured at +0 ms: the time before the run's first request (start-up) and after its
 * last (the reports). The requests of one run (the +0 ms sandbox's, median of the runs), PIX_CONCURRENCY
 * at a time, each waiting the added delay, ignoring the requests that must wait for another's answer; and
 * the chain the later duplicate imposes: a token and the first withdrawal, LATER_DUPLICATE_GAP_MS, then
 * its copy. A run cannot beat it; the run at +100 ms against it is what the order costs.
 */
function remoteFloor(spans: readonly ZeroSpan[], hundredMs: number | undefined): string[] {
  if (spans.length === 0) return [];
  const perRun = median(spans.map((span) => span.requests));
  const cap = REMOTE_CONCURRENCY === undefined ? DEFAULT_CONCURRENCY : Number(REMOTE_CONCURRENCY);
  const roundTrips = Math.ceil(perRun / cap);
  const ends = median(spans.map((span) => span.leadMs)) + median(spans.map((span) => span.tailMs));
  const requestBoundMs = ends + roundTrips * 100;
  const gapBoundMs = ends + 3 * 100 + LATER_DUPLICATE_GAP_MS;
  const floorMs = Math.max(requestBoundMs, gapBoundMs);
  return [
    `remote: ${perRun.toFixed(0)} requests a run at PIX_CONCURRENCY=${cap} need at least ${roundTrips} round trips one after another, ${((roundTrips * 100) / 1000).toFixed(2)} s of the run at +100 ms whatever their order: with the start-up before the first request and the end after the last at +0 ms, ${s(requestBoundMs)}`,
    `remote: the later duplicate's chain (a token, the first withdrawal, ${s(LATER_DUPLICATE_GAP_MS)} after its acceptance its copy) with the same start-up and end: ${s(gapBoundMs)} at +100 ms`,
    ...(hundredMs === undefined
      ? []
      : [
          `remote: at +100 ms the run takes ×${(hundredMs / floorMs).toFixed(2)} its critical-path floor (${s(floorMs)}, the larger of the two) and ×${(hundredMs / requestBoundMs).toFixed(2)} the requests' bound alone; target at most ×1.2`,
        ]),
  ];
}

/** A row's runs summarised, a run judged failed when it ends other than the row expects. */
function summaryOf(samples: ReadonlyMap<Row, Sample[]>, row: Row): Summary {
  return summarise(samples.get(row) ?? [], row.expectedExit ?? 0);
}

interface DelayMedian {
  readonly delayMs: number;
  readonly medianMs: number;
}

/** The remote column's median run at each delay that has runs. */
function mediansByDelay(remoteRows: readonly Row[], samples: ReadonlyMap<Row, Sample[]>): DelayMedian[] {
  return remoteRows.flatMap((row, i) => {
    const delayMs = DELAYS_MS[i];
    return (samples.get(row) ?? []).length === 0 || delayMs === undefined
      ? []
      : [{ delayMs, medianMs: summaryOf(samples, row).medianMs }];
  });
}

/**
 * What the remote column says: the run's growth per millisecond added to every request (the slope of
 * the medians, least squares), and its median at 100 ms against its median at 0 ms.
 */
function remoteSummary(points: readonly DelayMedian[]): string[] {
  if (points.length < 2) return [];
  const meanX = points.reduce((sum, p) => sum + p.delayMs, 0) / points.length;
  const meanY = points.reduce((sum, p) => sum + p.medianMs, 0) / points.length;
  const slope =
    points.reduce((sum, p) => sum + (p.delayMs - meanX) * (p.medianMs - meanY), 0) /
    points.reduce((sum, p) => sum + (p.delayMs - meanX) ** 2, 0);
  const at = (delayMs: number): number | undefined => points.find((p) => p.delayMs === delayMs)?.medianMs;
  const [zero, hundred] = [at(0), at(100)];
  return [
    `remote: the run grows ${(slope / 1000).toFixed(3)} s per ms added to every request (about ${slope.toFixed(0)} round trips in a row)` +
      (zero === undefined || hundred === undefined
        ? ''
        : `; at +100 ms it takes ×${(hundred / zero).toFixed(2)} its time at +0 ms`),
  ];
}
