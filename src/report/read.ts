/**
 * Reads a certification.json written by an earlier run (a baseline, or either side of npm run
 * compare). A file that cannot be compared stops with one line saying why and what to do, never a
 * stack trace: it may be missing, not JSON, not a certification, or from a suite whose report
 * schema differs.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { SCHEMA_PATH } from '../base/paths.ts';
import { READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION, type Certification } from './model.ts';
import { suiteCommand } from '../base/invocation.ts';

const FIX = 'give the certification.json of an earlier run of this suite, or its report directory';

/** Whether the path is a directory; a path that does not exist is left to the reader, which says so. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A report directory stands for its certification.json; a file is taken as it is. */
export function certificationPath(argument: string): string {
  return isDirectory(argument) ? join(argument, 'certification.json') : argument;
}

export class UnreadableCertification extends Error {
  /** What is wrong with the file, without the path and the fix. */
  readonly problem: string;

  constructor(path: string, problem: string, fix = FIX) {
    super(`${path} ${problem}: ${fix}.`);
    this.problem = problem;
    this.name = 'UnreadableCertification';
  }
}

/** Compiled on first use: a run without a baseline never pays for it. */
let validate: ValidateFunction | undefined;

/** The JSON Schema of certification.json, compiled: what every reader of the file can rely on. */
export function certificationValidator(): ValidateFunction {
  if (validate === undefined) {
    const ajv = new Ajv2020({ allErrors: false, strict: true });
    addFormats.default(ajv);
    const schema = readFileSync(SCHEMA_PATH, 'utf8');
    validate = ajv.compile(JSON.parse(schema) as object);
  }
  return validate;
}

function parsed(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UnreadableCertification(path, `cannot be read (${code})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UnreadableCertification(path, `is not JSON (${(error as Error).message})`);
  }
}

export function readCertification(path: string): Certification {
  return checkedCertification(parsed(path), path);
}

/** A parsed certification.json, checked against the schema of its version; `path` names it in the error. */
export function checkedCertification(report: unknown, path: string): Certification {
  const version =
    report !== null && typeof report === 'object' && 'schemaVersion' in report
      ? report.schemaVersion
      : undefined;
  if (version === undefined)
    throw new UnreadableCertification(path, 'is not a certification (no schemaVersion)');
  if (!READABLE_SCHEMA_VERSIONS.some((readable) => readable === version)) {
    const older =
      typeof version === 'number' && version < SCHEMA_VERSION
        ? ', written by an earlier version of this suite (version 2 added the INCOMPLETE verdict)'
        : '';
    throw new UnreadableCertification(
      path,
      `has report schema version ${JSON.stringify(version)}${older}, and this suite reads versions ${READABLE_SCHEMA_VERSIONS.slice(0, -1).join(', ')} and ${READABLE_SCHEMA_VERSIONS.at(-1) ?? ''} only`,
      `run ${suiteCommand('certify')} with this version of the suite against the same environment, and compare with that certification.json`,
    );
  }
  const valid = certificationValidator();
  if (!valid(report)) {
    const first = valid.errors?.[0];
    const where = first?.instancePath === '' || first === undefined ? 'the report' : first.instancePath;
    throw new UnreadableCertification(
      path,
      `is not a valid certification (${where} ${first?.message ?? ''})`,
    );
  }
  return report as Certification;
}
