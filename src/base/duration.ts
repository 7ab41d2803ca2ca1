/** Durations as a command line gives them: `90s`, `15m`, `2h` or plain seconds, whole, 1 s to 24 h. */

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600 };
const MAX_SECONDS = 86_400;

/** The duration in seconds; undefined when the text is none, or outside 1 s to 24 h. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(s|m|h)?$/.exec(text.trim());
  if (match === null) return undefined;
  const seconds = Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1);
  return seconds >= 1 && seconds <= MAX_SECONDS ? seconds : undefined;
}
