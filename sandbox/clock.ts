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

/** yyyyMMddHHmm in UTC: the minute inside a Pix end-to-end id. */
export function endToEndMinute(): string {
  const iso = isoNow();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}`;
}
