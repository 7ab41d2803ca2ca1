/**
 * Small hand-built certifications valid against the report schema, for the pure readers of a report
 * (compare, verify): only the verdicts, the observations and the run vary.
 */
import type { JsonValue } from '../../src/base/json.ts';
import type { Verdict } from '../../src/checks/vocabulary.ts';
import type { CertificationInput } from '../../src/report/build.ts';
import type { Certification, RunInfo } from '../../src/report/model.ts';

export const RUN: RunInfo = {
  suiteVersion: '0.1.0',
  specVersion: '1.0.0',
  specHash: 'aaaa',
  mode: 'live',
  baseUrl: 'https://sandbox.example.test',
  strict: false,
  requireComplete: false,
  selection: [],
  startTime: '2026-01-05T09:00:00.000Z',
  endTime: '2026-01-05T09:00:05.000Z',
  durationMs: 5000,
  options: { tokenField: 'access_token' },
};

export interface Sketch {
  readonly checks?: Readonly<Record<string, Verdict>>;
  readonly observations?: readonly (readonly [topic: string, value: JsonValue])[];
  readonly run?: Partial<RunInfo>;
}

/** A small certification valid against the schema: only verdicts, observations and the run vary. */
export function certification(sketch: Sketch = {}): Certification {
  const verdicts: Readonly<Record<string, Verdict>> = sketch.checks ?? { A: 'PASSED' };
  const checks = Object.entries(verdicts).map(([id, verdict]) => ({
    id,
    title: `title of ${id}`,
    clause: '§4.1',
    level: 'must' as const,
    reason: `reason of ${id}`,
    verdict,
    evaluations: 1,
    durationMs: 10,
    ...(verdict === 'PASSED' ? {} : { evidence: [{ verdict }], evidenceCount: 1 }),
    ...(verdict === 'SKIPPED' ? { notJudged: { cause: 'outcome' as const } } : {}),
  }));
  const counts = { PASSED: 0, FAILED: 0, WARNING: 0, SKIPPED: 0 };
  for (const check of checks) counts[check.verdict] += 1;
  return {
    schemaVersion: 2,
    verdict: counts.FAILED > 0 ? 'FAILED' : counts.WARNING > 0 ? 'WARNING' : 'PASSED',
    exitCode: counts.FAILED > 0 ? 1 : 0,
    complete: true,
    incomplete: [],
    run: { ...RUN, ...sketch.run },
    counts,
    checks,
    coverage: { clauses: [], uncovered: [] },
    observations: (sketch.observations ?? []).map(([topic, value]) => ({
      topic,
      clause: '§6 (not shown)',
      value,
    })),
    suiteErrors: [],
  };
}

/** What the reporter knows of a live run before its tests: the builders' and renderers' tests start from it. */
export const RUN_METADATA: CertificationInput['metadata'] = {
  runId: 'mhx1run',
  suiteVersion: '0.1.0',
  specVersion: '1.0.0',
  specHash: 'abc123',
  mode: 'live',
  baseUrl: 'https://sandbox.example.test',
  reportDir: 'reports',
  strict: false,
  requireComplete: false,
  selection: [],
  seed: 1,
  options: { allowPayouts: true, amount: '0.01' },
};
