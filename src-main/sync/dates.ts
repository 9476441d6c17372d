/**
 * Calendar dates as the API writes them (`YYYY-MM-DD`), computed in UTC so that no time zone
 * or daylight-saving change can shift a booking-date window by a day.
 */

export function toIsoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return toIsoDate(date);
}

/** Splits [from, to] (both inclusive) into consecutive windows of at most `days` days. */
export function dateWindows(from: string, to: string, days: number): Array<{ from: string; to: string }> {
  const windows: Array<{ from: string; to: string }> = [];
  for (let start = from; start <= to; start = addDays(start, days)) {
    const end = addDays(start, days - 1);
    windows.push({ from: start, to: end < to ? end : to });
  }
  return windows;
}
