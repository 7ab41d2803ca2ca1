/** The environment a process reads its configuration from: its own variables over `.env`. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads `.env` when present; variables already in the environment win. */
export function environmentWithDotEnv(env: Env = process.env, dotEnvPath = resolve('.env')): Env {
  if (!existsSync(dotEnvPath)) return env;
  // Editors on Windows save UTF-8 with a byte order mark, which would otherwise become part of the first name.
  const text = readFileSync(dotEnvPath, 'utf8').replace(/^\uFEFF/, '');
  return { ...parseEnv(text), ...stripUndefined(env) };
}

function stripUndefined(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
