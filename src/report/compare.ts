/**
 * What changed between a baseline certification and a later one: the verdict of each check, what
 * was observed where the document is silent, and the run itself. Pure, so that certify --baseline
 * (the reporter) and npm run compare say exactly the same thing. Between matrix reports each cell is
 * compared with the same check's cell of the same reading, and a reading only one side ran is told as
 * added or removed; a plain report stands for the `simulator` reading of a matrix.
 */
import type { Verdict } from '../checks/vocabulary.ts';
import type {
  Certification,
  CheckChange,
  Comparison,
  ObservationChange,
  OverallVerdict,
  ReadingChange,
  ReportedObservation,
  RunChange,
  RunInfo,
} from './model.ts';
import type { JsonValue } from '../base/json.ts';
import { LATER_DUPLICATE_TOPIC } from '../checks/check-code.ts';

/** The parts of a certification a comparison reads. */
export type Compared = Pick<Certification, 'verdict' | 'run' | 'checks' | 'observations' | 'readings'>;

/** The reading a plain report ran against: the simulator's reference profile. */
export const PLAIN_READING = 'simulator';

/** Worst first; SKIPPED is left out because it is no judgement at all. */
const JUDGED: readonly Verdict[] = ['FAILED', 'WARNING', 'PASSED'];

const DELAY_TOPIC = 'webhook.delayMs';
/** `token.response.shape`, `error.response.shape.400`: values that are shapes (field → type name). */
const SHAPE_TOPIC = /(^|\.)shape(\.|$)/;
const BODY_FIELD = '(body)';

const SUITE_FIELDS = ['suiteVersion', 'specVersion', 'specHash'] as const;
const CONFIGURATION_FIELDS = ['mode', 'baseUrl', 'strict', 'requireComplete', 'selection'] as const;

/**
 * A webhook counts as later only past this: delays of a few milliseconds more or less are the
 * ordinary jitter of a fast environment, not news.
 */
export const lateDelayMs = (baselineMs: number): number => Math.max(1_000, 2 * baselineMs);
export const LATE_DELAY_RULE = 'max(1000 ms, 2 × the baseline)';

export const regressionsFirst = <T extends { readonly regression: boolean }>(changes: readonly T[]): T[] => [
  ...changes.filter((c) => c.regression),
  ...changes.filter((c) => !c.regression),
];

function checkChange(
  id: string,
  before: Verdict | undefined,
  after: Verdict | undefined,
  reading: string | undefined,
): CheckChange[] {
  if (before === after) return [];
  const change = (kind: CheckChange['kind'], regression = false): CheckChange[] => [
    {
      id,
      ...(reading === undefined ? {} : { reading }),
      kind,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
      regression,
    },
  ];
  if (before === undefined) return change('new');
  if (after === undefined) return change('removed');
  if (after === 'SKIPPED') return change('now-skipped');
  if (before === 'SKIPPED') return change('now-judged');
  return JUDGED.indexOf(after) < JUDGED.indexOf(before) ? change('regressed', true) : change('improved');
}

/** One reading of a side: each check's verdict in it, and what was observed in it. */
interface Column {
  readonly verdict: OverallVerdict;
  readonly checks: ReadonlyMap<string, Verdict>;
  readonly observations: readonly ReportedObservation[];
}

/** A side's readings by name: a plain report is one column, the simulator's. */
function columnsOf(side: Compared): Map<string, Column> {
  if (side.readings === undefined)
    return new Map([
      [
        PLAIN_READING,
        {
          verdict: side.verdict,
          checks: new Map(side.checks.map((c) => [c.id, c.verdict])),
          observations: side.observations,
        },
      ],
    ]);
  return new Map(
    side.readings.map(({ name, verdict }) => [
      name,
      {
        verdict,
        checks: new Map(
          side.checks.flatMap((c) => {
            const cell = c.readings?.find((r) => r.reading === name);
            return cell === undefined ? [] : [[c.id, cell.verdict] as const];
          }),
        ),
        observations: side.observations.filter((o) => o.reading === name),
      },
    ]),
  );
}

function checkChanges(before: Column, after: Column, reading: string | undefined): CheckChange[] {
  const ids = [...after.checks.keys(), ...[...before.checks.keys()].filter((id) => !after.checks.has(id))];
  return ids.flatMap((id) => checkChange(id, before.checks.get(id), after.checks.get(id), reading));
}

/** The readings only one side ran, each with its verdict there. */
function readingChanges(
  before: ReadonlyMap<string, Column>,
  after: ReadonlyMap<string, Column>,
): ReadingChange[] {
  const only = (
    side: ReadonlyMap<string, Column>,
    other: ReadonlyMap<string, Column>,
    kind: ReadingChange['kind'],
  ): ReadingChange[] =>
    [...side]
      .filter(([name]) => !other.has(name))
      .map(([reading, { verdict }]) => ({ reading, kind, verdict }));
  return [...only(before, after, 'removed'), ...only(after, before, 'added')];
}

/** The reporter keeps one observation per topic and value, so a topic may carry several values. */
function valuesByTopic(observations: readonly ReportedObservation[]): Map<string, JsonValue[]> {
  const topics = new Map<string, JsonValue[]>();
  for (const { topic, value } of observations) topics.set(topic, [...(topics.get(topic) ?? []), value]);
  return topics;
}

const shownValue = (value: JsonValue): string => (typeof value === 'string' ? value : JSON.stringify(value));
const shownValues = (values: readonly JsonValue[]): string =>
  [...new Set(values.map(shownValue))].sort().join(' or ');

function typeName(shape: JsonValue): string {
  if (Array.isArray(shape)) return 'array';
  if (shape !== null && typeof shape === 'object') return 'object';
  return shownValue(shape);
}

/** Each field of a shape by its path, objects and arrays included, so that `data` turning into a string is a type change. */
function fieldsOf(shape: JsonValue, path = BODY_FIELD): [string, string][] {
  const here: [string, string] = [path, typeName(shape)];
  const child = (key: string): string => (path === BODY_FIELD ? key : `${path}.${key}`);
  if (Array.isArray(shape)) return [here, ...shape.flatMap((item) => fieldsOf(item, `${path}[]`))];
  if (shape !== null && typeof shape === 'object')
    return [here, ...Object.entries(shape).flatMap(([key, value]) => fieldsOf(value, child(key)))];
  return [here];
}

/** Field path → the type names it had across every value of the topic. */
function fieldTypes(shapes: readonly JsonValue[]): Map<string, Set<string>> {
  const fields = new Map<string, Set<string>>();
  for (const [path, type] of shapes.flatMap((shape) => fieldsOf(shape)))
    fields.set(path, (fields.get(path) ?? new Set()).add(type));
  return fields;
}

const shownTypes = (types: ReadonlySet<string>): string => [...types].sort().join(' or ');

function shapeChanges(
  topic: string,
  before: readonly JsonValue[],
  after: readonly JsonValue[],
): ObservationChange[] {
  const was = fieldTypes(before);
  const now = fieldTypes(after);
  const removed = [...was].filter(([field]) => !now.has(field));
  const added = [...now].filter(([field]) => !was.has(field));
  const retyped = [...now].filter(([field, types]) => {
    const old = was.get(field);
    return old !== undefined && shownTypes(old) !== shownTypes(types);
  });
  return [
    ...removed.map(([field, types]) => ({
      topic,
      kind: 'field-removed' as const,
      field,
      before: shownTypes(types),
      regression: true,
    })),
    ...added.map(([field, types]) => ({
      topic,
      kind: 'field-added' as const,
      field,
      after: shownTypes(types),
      regression: false,
    })),
    ...retyped.map(([field, types]) => ({
      topic,
      kind: 'type-changed' as const,
      field,
      before: shownTypes(was.get(field) ?? new Set()),
      after: shownTypes(types),
      regression: false,
    })),
  ];
}

const isNameList = (value: JsonValue): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Lists of names (`webhook.headers`): which names are gone and which are new says more than both lists. */
function nameListChanges(
  topic: string,
  before: readonly string[][],
  after: readonly string[][],
): ObservationChange[] {
  const was = new Set(before.flat());
  const now = new Set(after.flat());
  const lost = [...was].filter((name) => !now.has(name)).sort();
  const gained = [...now].filter((name) => !was.has(name)).sort();
  if (lost.length === 0 && gained.length === 0) return [];
  return [
    {
      topic,
      kind: 'list-changed',
      ...(lost.length === 0 ? {} : { before: lost.join(', ') }),
      ...(gained.length === 0 ? {} : { after: gained.join(', ') }),
      regression: false,
    },
  ];
}

/** The slowest delivery of each run: a webhook that now arrives much later is what a person waits for. */
function delayChanges(
  topic: string,
  before: readonly JsonValue[],
  after: readonly JsonValue[],
): ObservationChange[] {
  const slowest = (values: readonly JsonValue[]): number =>
    Math.max(0, ...values.filter((v): v is number => typeof v === 'number'));
  const was = slowest(before);
  const now = slowest(after);
  if (now <= lateDelayMs(was)) return [];
  return [{ topic, kind: 'later', before: `${was} ms`, after: `${now} ms`, regression: false }];
}

function topicChanges(
  topic: string,
  before: readonly JsonValue[] | undefined,
  after: readonly JsonValue[] | undefined,
): ObservationChange[] {
  if (before === undefined)
    return [{ topic, kind: 'first-observed', after: shownValues(after ?? []), regression: false }];
  if (after === undefined)
    return [{ topic, kind: 'no-longer-observed', before: shownValues(before), regression: false }];
  if (SHAPE_TOPIC.test(topic)) return shapeChanges(topic, before, after);
  if (topic === DELAY_TOPIC) return delayChanges(topic, before, after);
  if (before.every(isNameList) && after.every(isNameList)) return nameListChanges(topic, before, after);
  const was = shownValues(before.map((value) => steady(topic, value)));
  const now = shownValues(after.map((value) => steady(topic, value)));
  return was === now ? [] : [{ topic, kind: 'value-changed', before: was, after: now, regression: false }];
}

/** Members of an observation's value that differ on every run (times), so are left out of a comparison. */
const UNSTEADY_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  'webhook.retry': ['afterSeconds'],
  'webhook.statuses': ['receivedAt'],
  [LATER_DUPLICATE_TOPIC]: ['afterSeconds'],
};

/** The value without its unsteady members, at any depth: what two runs of one environment share. */
function steady(topic: string, value: JsonValue): JsonValue {
  const unsteady = UNSTEADY_MEMBERS[topic];
  if (unsteady === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((element) => steady(topic, element));
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => !unsteady.includes(name))
      .map(([name, member]) => [name, steady(topic, member)]),
  );
}

function observationChanges(
  baseline: readonly ReportedObservation[],
  current: readonly ReportedObservation[],
  reading: string | undefined,
): ObservationChange[] {
  const before = valuesByTopic(baseline);
  const after = valuesByTopic(current);
  const topics = [...new Set([...before.keys(), ...after.keys()])].sort();
  return topics
    .flatMap((topic) => topicChanges(topic, before.get(topic), after.get(topic)))
    .map((change) => (reading === undefined ? change : { ...change, reading }));
}

function runFields(run: RunInfo): Map<string, string> {
  return new Map([
    ...[...SUITE_FIELDS, ...CONFIGURATION_FIELDS].map((field): [string, string] => [
      field,
      field === 'selection' ? run.selection.join(' ') || '(the whole suite)' : String(run[field]),
    ]),
    ...Object.entries(run.options).map(([name, value]): [string, string] => [
      `options.${name}`,
      String(value),
    ]),
  ]);
}

function runChanges(baseline: RunInfo, current: RunInfo): RunChange[] {
  const was = runFields(baseline);
  const now = runFields(current);
  const suite: ReadonlySet<string> = new Set(SUITE_FIELDS);
  return [...new Set([...was.keys(), ...now.keys()])]
    .filter((field) => was.get(field) !== now.get(field))
    .map((field): RunChange => ({
      field,
      before: was.get(field) ?? '(not set)',
      after: now.get(field) ?? '(not set)',
      source: suite.has(field) ? 'suite' : 'configuration',
    }));
}

export function compareCertifications(baseline: Compared, current: Compared): Comparison {
  const matrix = baseline.readings !== undefined || current.readings !== undefined;
  const before = columnsOf(baseline);
  const after = columnsOf(current);
  const shared = [...after].flatMap(([name, column]) => {
    const was = before.get(name);
    return was === undefined ? [] : [{ reading: matrix ? name : undefined, was, now: column }];
  });
  const checks = regressionsFirst(shared.flatMap(({ reading, was, now }) => checkChanges(was, now, reading)));
  const observations = regressionsFirst(
    shared.flatMap(({ reading, was, now }) =>
      observationChanges(was.observations, now.observations, reading),
    ),
  );
  const run = runChanges(baseline.run, current.run);
  const { verdict } = baseline;
  const { baseUrl, startTime, suiteVersion, specHash } = baseline.run;
  return {
    baseline: { verdict, baseUrl, startTime, suiteVersion, specHash },
    verdict: { before: verdict, after: current.verdict },
    regressions: [...checks, ...observations].filter((c) => c.regression).length,
    suiteChanged: run.some((c) => c.source === 'suite'),
    run,
    checks,
    observations,
    ...(matrix ? { readings: readingChanges(before, after) } : {}),
  };
}

/** Nothing moved in the checks, the observations or the readings (the run's own details may still differ). */
export const unchanged = (comparison: Comparison): boolean =>
  comparison.checks.length === 0 &&
  comparison.observations.length === 0 &&
  (comparison.readings ?? []).length === 0;
