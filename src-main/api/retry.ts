/** Capped exponential backoff with full jitter: spreads retries of many clients apart. */
export function backoffMs(
  attempt: number,
  random: () => number = Math.random,
  baseMs = 500,
  capMs = 30_000,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Seconds or an HTTP date, as Retry-After allows; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);
