/**
 * Matrix reports built as pix-certify client --readings builds them: each reading's hand-written journal
 * certified by buildClientCertification, then composed by readingMatrix. A complete client exercises
 * every client check; the variants below each change one thing in one reading.
 */
import { clientChecks } from '../../src/checks/catalogue.ts';
import type { ClientCheck, ClientRun } from '../../src/checks/client-requests.ts';
import type { JournalRequest } from '../../src/evidence/journal.ts';
import { buildClientCertification } from '../../src/report/client-certification.ts';
import type { Certification, SuiteError } from '../../src/report/model.ts';
import { readingMatrix, type MatrixRun, type ReadingRun } from '../../src/report/reading-matrix.ts';
import {
  HOOK,
  T0,
  at,
  correctRun,
  delivery,
  journal,
  ok,
  token,
  unauthorized,
  withdraw,
} from './client-journal.ts';

export const CLIENT_CHECKS = clientChecks('client');

/** The check the tests treat as one only some readings can exercise (a 429 of the outcome table). */
export const SOME_ID = 'CLIENT-AFTER-429';

/** The catalogue with SOME_ID flagged `readings: 'some'`. */
export const withSome: readonly ClientCheck[] = CLIENT_CHECKS.map((c) =>
  c.id === SOME_ID ? { ...c, readings: 'some' } : c,
);

const renewal = (ms: number): JournalRequest[] => [
  unauthorized(ms, 't1'),
  token(ms + 10, 't2'),
  withdraw(ms + 20, 't2'),
];
const patientAfter429 = (ms: number): JournalRequest[] => [
  withdraw(ms, 't2', { amount: 0.29 }, 429),
  withdraw(ms + 1_100, 't2', { amount: 0.29 }, 429),
];
const sameCodeAfter500 = (ms: number, code: string): JournalRequest[] => [
  withdraw(ms, 't2', { amount: 0.51 }, 500, code),
  withdraw(ms + 100, 't2', { amount: 0.51 }, 400, code),
];
/** An answer slower than the client waited, resent with the same code. */
function sameCodeAfterSlow(ms: number, code: string): JournalRequest[] {
  const slow = withdraw(ms, 't2', { amount: 0.02 }, 200, code);
  return [
    { ...slow, answer: { ...slow.answer, delayMs: 3000, clientClosedAfterMs: 1000 } },
    withdraw(ms + 1_100, 't2', { amount: 0.02 }, 400, code),
  ];
}

/** A correct client whose run exercises every client check; `without429` leaves the 429 out. */
export function completeRun(options: { without429?: boolean; extra?: JournalRequest[] } = {}): ClientRun {
  const { journal: correct } = correctRun();
  const requests = [
    ...correct.requests,
    ...renewal(100),
    ...(options.without429 === true ? [] : patientAfter429(200)),
    ...sameCodeAfter500(3_000, `pay-${correct.requests.length}`),
    ...sameCodeAfterSlow(4_000, `slow-${correct.requests.length}`),
    ...(options.extra ?? []),
  ];
  // The processing-first reading's PROCESSING webhook for the first withdrawal, before its final one.
  const processing = delivery('valid', ok, HOOK, {
    withdrawalId: correct.requests[1]?.answer.withdrawalId ?? '',
    event: 'PROCESSING',
    sentAt: at(13),
  });
  return journal(requests, [
    processing,
    ...correct.deliveries,
    delivery('valid', ok, HOOK, { beforeAnswer: true }),
  ]);
}

/** A withdrawal whose field names depart from the document: CLIENT-BODY-FIELD-NAMES FAILED. */
export const fieldCase = (ms: number): JournalRequest => ({
  ...withdraw(ms, 't2'),
  departures: [
    { code: 'field-case', name: 'PostBackUrl', clause: '§2.1', level: 'must', message: 'postbackurl' },
  ],
});

/** A 429 answered early: CLIENT-AFTER-429 WARNING. */
export const early429 = (ms: number): JournalRequest[] => [
  withdraw(ms, 't2', { amount: 0.29 }, 429),
  withdraw(ms + 100, 't2', { amount: 0.29 }, 429),
];

/** A new code for a payment whose outcome is unknown: CLIENT-UNKNOWN-OUTCOME WARNING, a double payout. */
export const freshCode = (ms: number): JournalRequest[] => [
  withdraw(ms, 't2', { amount: 0.51 }, 500, 'twice-1'),
  withdraw(ms + 100, 't2', { amount: 0.51 }, 200, 'twice-2'),
];

export function certified(
  run: ClientRun,
  suiteErrors: readonly SuiteError[] = [],
  requireComplete = true,
): Certification {
  return buildClientCertification({
    run,
    checks: CLIENT_CHECKS,
    subject: 'client',
    baseUrl: 'the simulator on loopback (pix-certify client)',
    startTime: new Date(T0),
    durationMs: 10,
    strict: false,
    requireComplete,
    options: {},
    suiteErrors: suiteErrors.map((e) => ({ test: e.test ?? '', message: e.message })),
    command: { line: 'npm test', exitCode: 0, signal: null, timedOut: false, durationMs: 5, leftovers: [] },
  });
}

export const reading = (
  name: string,
  run: ClientRun,
  suiteErrors: readonly SuiteError[] = [],
): ReadingRun => ({
  reading: name,
  description: `what ${name} does where the document is silent`,
  certification: certified(run, suiteErrors),
});

export const MATRIX_RUN: MatrixRun = {
  startTime: new Date(T0),
  durationMs: 1_500,
  baseUrl: 'the simulator on loopback (pix-certify client)',
  strict: false,
  requireComplete: true,
};

export const matrixOf = (
  runs: readonly ReadingRun[],
  checks: readonly ClientCheck[] = CLIENT_CHECKS,
  run: Partial<MatrixRun> = {},
): Certification => readingMatrix(runs, checks, { ...MATRIX_RUN, ...run });
