/** The time as ISO 8601 text, formatted once per millisecond: thousands of journal lines a second share it. */
let formattedAt = -1;
let formatted = '';

export function isoNow(): string {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = new Date(now).toISOString();
  }
  return formatted;
}
