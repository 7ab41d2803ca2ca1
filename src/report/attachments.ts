/**
 * Reads what a test handed over in its `pix-evaluations` and `pix-observations` attachments. Only
 * attachments with a body count: those survive blob reports and merge-reports, paths do not.
 */
import {
  EVALUATIONS_ATTACHMENT,
  OBSERVATIONS_ATTACHMENT,
  type Evaluation,
  type Observation,
} from '../checks/vocabulary.ts';

export interface Attachment {
  readonly name: string;
  readonly body?: Buffer;
}

export interface Handover {
  readonly evaluations: Evaluation[];
  readonly observations: Observation[];
  /** Attachments that could not be read: a suite error, never silently dropped. */
  readonly problems: string[];
}

const VERDICTS: ReadonlySet<unknown> = new Set(['PASSED', 'FAILED', 'WARNING', 'SKIPPED']);
const CAPABILITIES: ReadonlySet<unknown> = new Set(['provider', 'payout', 'webhook']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `lacks` decides whether the certification is complete, so a malformed one is refused, not ignored. */
const isEvaluation = (value: unknown): value is Evaluation =>
  isRecord(value) &&
  typeof value.checkId === 'string' &&
  VERDICTS.has(value.verdict) &&
  (value.lacks === undefined ||
    (value.verdict === 'SKIPPED' &&
      Array.isArray(value.lacks) &&
      value.lacks.every((capability) => CAPABILITIES.has(capability))));

const isObservation = (value: unknown): value is Observation =>
  isRecord(value) && typeof value.topic === 'string' && typeof value.clause === 'string' && 'value' in value;

function listOf<T>(body: Buffer, isItem: (value: unknown) => value is T): T[] | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(parsed) && parsed.every(isItem) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function readHandover(attachments: readonly Attachment[]): Handover {
  const handover: Handover = { evaluations: [], observations: [], problems: [] };
  for (const { name, body } of attachments) {
    if (body === undefined) continue;
    if (name === EVALUATIONS_ATTACHMENT) {
      const list = listOf(body, isEvaluation);
      if (list === undefined) handover.problems.push(`attachment ${name} is not a JSON list of evaluations`);
      else handover.evaluations.push(...list);
    } else if (name === OBSERVATIONS_ATTACHMENT) {
      const list = listOf(body, isObservation);
      if (list === undefined) handover.problems.push(`attachment ${name} is not a JSON list of observations`);
      else handover.observations.push(...list);
    }
  }
  return handover;
}
