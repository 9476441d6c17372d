/** Dates as whole days since 1970-01-01 (UTC) and timestamps as Unix seconds: compact and exact. */

const DAY_MS = 86_400_000;

export function dayFromIso(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

export function isoFromDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `2026-07-15T09:30:00Z`: UTC, whole seconds, as the API sends timestamps. */
export function isoFromSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Seconds of a temporal filter bound. A date means the whole day: as a lower bound its first
 * second, as an upper bound its last, so `__lte=2026-03-31` includes that day. Timestamps are
 * whole seconds, so a fractional lower bound rounds up and an upper one down: `__gte=…51.5Z`
 * leaves out what changed at `…51Z`, exactly as the fraction says.
 */
export function boundSeconds(value: string, upper: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return dayFromIso(value) * 86_400 + (upper ? 86_399 : 0);
  const seconds = Date.parse(value) / 1000;
  return upper ? Math.floor(seconds) : Math.ceil(seconds);
}

/**
 * The instant a temporal filter bound stands for, in milliseconds and unrounded: a date as a
 * lower bound its first moment, as an upper bound its last. Two bounds are in order when the
 * lower one's instant is not after the upper one's.
 */
export function boundInstantMs(value: string, upper: boolean): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(value);
  const start = dayFromIso(value) * DAY_MS;
  return upper ? start + DAY_MS - 1 : start;
}
