import { counted } from '../../../src-shared/counted';
import type { DownloadJobStatus } from '../../../src-shared/files';

/**
 * Sizes, rates and times of the Files area, in the user's locale through Intl. Each takes an
 * optional locale so the unit tests pin one; the app passes none and gets the page's language.
 */

const defaultLocale = typeof navigator === 'undefined' ? undefined : navigator.language;

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte'] as const;

/** The unit a size is shown in (binary steps, as disk budgets are set) and the size in it. */
function scale(size: number): { value: number; unit: (typeof UNITS)[number] } {
  let value = Math.max(0, size);
  let index = 0;
  while (value >= 1024 && index < UNITS.length - 1) {
    value /= 1024;
    index += 1;
  }
  return { value, unit: UNITS[index] ?? 'byte' };
}

/** Whole bytes; one decimal below 10 units, none above ("615 byte", "1.5 kB", "12 MB", "2 GB"). */
export function formatByteSize(size: number, locale: string | undefined = defaultLocale): string {
  const { value, unit } = scale(size);
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit,
    unitDisplay: unit === 'byte' ? 'long' : 'short',
    maximumFractionDigits: unit === 'byte' || value >= 10 ? 0 : 1,
  }).format(value);
}

/** A transfer rate ("1.2 MB/s"). */
export function formatRate(bytesPerSecond: number, locale: string | undefined = defaultLocale): string {
  const { value, unit } = scale(bytesPerSecond);
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: `${unit}-per-second`,
    unitDisplay: 'short',
    maximumFractionDigits: unit === 'byte' || value >= 10 ? 0 : 1,
  }).format(value);
}

/**
 * The rate a running job shows, or null: while nothing comes over the network (files found in
 * place or copied from the offline cache, a wait for the rate limit long past) "0 B/s" would
 * only say the download is stuck.
 */
export function shownRate(bytesPerSecond: number, locale: string | undefined = defaultLocale): string | null {
  return Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? formatRate(bytesPerSecond, locale) : null;
}

/**
 * Time left, to the precision a person plans with: seconds under a minute, then minutes (and
 * seconds under ten minutes), then hours and minutes, then days and hours.
 */
export function formatDuration(seconds: number, locale: string | undefined = defaultLocale): string {
  const total = Math.max(0, Math.round(seconds));
  const part = (value: number, unit: 'day' | 'hour' | 'minute' | 'second') =>
    new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short' }).format(value);
  const join = (parts: string[]) =>
    new Intl.ListFormat(locale, { style: 'narrow', type: 'unit' }).format(parts);
  if (total < 60) return part(total, 'second');
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  if (days > 0) return join(hours > 0 ? [part(days, 'day'), part(hours, 'hour')] : [part(days, 'day')]);
  if (hours > 0)
    return join(minutes > 0 ? [part(hours, 'hour'), part(minutes, 'minute')] : [part(hours, 'hour')]);
  if (minutes < 10 && secs > 0) return join([part(minutes, 'minute'), part(secs, 'second')]);
  return part(minutes, 'minute');
}

/** A time of day with seconds ("14:05:30"), for "waiting for the rate limit until …". */
export function formatClock(
  iso: string,
  locale: string | undefined = defaultLocale,
  timeZone?: string,
): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { timeStyle: 'medium', ...(timeZone ? { timeZone } : {}) }).format(
    date,
  );
}

/** Whole percent done, never 100 before the last file. */
export function percentDone(done: number, total: number): number {
  if (total <= 0) return 0;
  const percent = Math.floor((done / total) * 100);
  return done < total ? Math.min(99, percent) : 100;
}

const STATUS_WORDS: Record<DownloadJobStatus, string> = {
  pending: 'Waiting to start',
  running: 'Downloading',
  paused: 'Paused',
  completed: 'Finished',
  cancelled: 'Cancelled',
};

export function statusWord(status: DownloadJobStatus): string {
  return STATUS_WORDS[status];
}

/** "0 of 1 file", "3 of 2,071 files": the noun agrees with the total. */
export function filesOf(done: number, total: number, locale: string | undefined = defaultLocale): string {
  const count = new Intl.NumberFormat(locale);
  return `${count.format(done)} of ${counted(total, 'file', 'files', (n) => count.format(n))}`;
}

/**
 * What the polite live region says about a download. It changes only at each tenth of the
 * files and when the status changes, so a screen reader hears a few steps, not every event.
 */
export function progressAnnouncement(
  status: DownloadJobStatus,
  done: number,
  total: number,
  locale: string | undefined = defaultLocale,
): string {
  const count = new Intl.NumberFormat(locale);
  if (status === 'completed') return `Download finished: ${filesOf(done, total, locale)}.`;
  if (status === 'running') {
    const step = total > 0 ? Math.floor((done / total) * 10) * 10 : 0;
    return `Downloading: ${count.format(Math.min(step, 99))} percent of ${counted(total, 'file', 'files', (n) => count.format(n))}.`;
  }
  return `Download ${statusWord(status).toLowerCase()}: ${filesOf(done, total, locale)}.`;
}

/** A file's path inside the destination, with the destination's own separator. */
export function joinPath(folder: string, relative: string): string {
  const separator = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  const base = folder.endsWith(separator) ? folder.slice(0, -1) : folder;
  return `${base}${separator}${relative.split('/').join(separator)}`;
}

/** "1 file", "2,071 files". */
export function filesCount(count: number, locale: string | undefined = defaultLocale): string {
  return `${new Intl.NumberFormat(locale).format(count)} ${count === 1 ? 'file' : 'files'}`;
}

/**
 * Why a file failed, with its attempts when they say something the reason does not: the core's
 * reason already ends "(gave up after 3 attempts)" when it tried again, and a file refused
 * before any request (another file in its place) has made none.
 */
export function failureText(
  error: string,
  attempts: number,
  locale: string | undefined = defaultLocale,
): string {
  if (attempts < 1 || /\battempts?\b/.test(error)) return error;
  return `${error} (${new Intl.NumberFormat(locale).format(attempts)} ${attempts === 1 ? 'attempt' : 'attempts'})`;
}

/**
 * What "Check folder" found in a finished download's folder: every finished file there, or how
 * many were not (removed, or changed in size) and are fetched again (or will be, once the
 * network is back).
 */
export function checkOutcome(
  found: { missing: number; done: number; failed: number; waitingForNetwork: boolean },
  locale: string | undefined = defaultLocale,
): string {
  const { missing, done, failed } = found;
  if (missing === 0) {
    const all =
      done === 1 ? 'The file is in the folder' : `All ${filesCount(done, locale)} are in the folder`;
    if (failed === 0) return `${all}.`;
    const downloaded =
      done === 1
        ? 'The downloaded file is in the folder'
        : `All ${filesCount(done, locale)} downloaded are in the folder`;
    return `${downloaded}; ${filesCount(failed, locale)} failed (Retry all failed fetches them).`;
  }
  const which = `${filesCount(missing, locale)} ${missing === 1 ? 'was' : 'were'}`;
  return `${which} not in the folder as downloaded: ${missing === 1 ? 'it is' : 'they are'} fetched again${found.waitingForNetwork ? ' once the network is back' : ''}.`;
}
