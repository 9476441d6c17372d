import path from 'node:path';
import { parseArgs } from 'node:util';
import { AppError } from '../../src-shared/errors';
import {
  DEFAULT_TEMPLATE,
  DownloadLayout,
  DownloadRequest,
  type DownloadJobShape,
  type DownloadProgress,
  type DownloadScope,
} from '../../src-shared/files';
import { counted } from '../../src-shared/counted';
import type { Core } from '../core';
import { SCOPED_FILES_FROM } from '../files/scope';
import {
  checkKnownIds,
  chooseProfile,
  transactionFilterOptions,
  transactionFilters,
  transactionFilterUsage,
} from './filters';
import { namingOption, onInterrupt, optionError, UsageError, type CliIo } from './io';
import { statusLine } from './status-line';

// `--to` is the folder here, so the booking-date range is `--from … --until …`.
const { to: _dateTo, ...filterOptions } = transactionFilterOptions;
const filterUsage = transactionFilterUsage.replace('[--to YYYY-MM-DD]', '[--until YYYY-MM-DD]');

export const downloadUsage = `satchel download --to DIR [--profile NAME_OR_ID] ${filterUsage}
               [--transaction ID]... [--expense ID]... [--file ID]...
               [--template "${DEFAULT_TEMPLATE}"] [--layout flat|month|account|supplier]`;

const units = ['B', 'KB', 'MB', 'GB', 'TB'];
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function formatEta(seconds: number | null): string {
  // Unknown yet, or nothing left but the manifest and the last renames.
  if (seconds === null || seconds <= 0) return '';
  if (seconds < 60) return ` · about ${seconds} s left`;
  if (seconds < 3600) return ` · about ${Math.round(seconds / 60)} min left`;
  return ` · about ${(seconds / 3600).toFixed(1)} h left`;
}

export function progressLine(progress: DownloadProgress): string {
  const { files, bytes } = progress;
  const waiting = progress.waitingUntil
    ? ` · waiting for the rate limit until ${progress.waitingUntil.slice(11, 19)}`
    : '';
  // No rate while nothing comes over the network (files found in place or copied from the
  // offline cache): "0 B/s" would say the download is stuck.
  const rate = progress.bytesPerSecond > 0 ? ` · ${formatBytes(progress.bytesPerSecond)}/s` : '';
  return (
    `${files.done + files.failed}/${files.total} files · ${formatBytes(bytes.done)} of ${formatBytes(bytes.total)}` +
    `${rate}${formatEta(progress.etaSeconds)}` +
    `${files.failed > 0 ? ` · ${files.failed} failed` : ''}${waiting}`
  );
}

const filesText = (n: number) => counted(n, 'file', 'files');

/** What a progress line counts, without the rate, time left or wait that change between events. */
function countsOf({ files, bytes }: DownloadProgress): string {
  return `${files.done}/${files.failed}/${files.total}/${bytes.done}/${bytes.total}`;
}

/** The scope the options describe: ids, else the search filters, else a date range, else everything. */
function scopeOf(core: Core, profileId: string, values: Record<string, unknown>): DownloadScope {
  const ids = (name: string) => (values[name] as string[] | undefined) ?? [];
  const chosen = [
    ['transaction', ids('transaction')],
    ['expense', ids('expense')],
    ['file', ids('file')],
  ].filter(([, list]) => (list?.length ?? 0) > 0) as Array<['transaction' | 'expense' | 'file', string[]]>;
  if (chosen.length > 1) throw new UsageError('give ids of one kind: --transaction, --expense or --file');
  const [selection] = chosen;
  const filters = transactionFilters(
    core,
    profileId,
    { ...values, to: values['until'] as string | undefined },
    'until',
  );
  const filterNames = Object.keys(filters);
  if (selection) {
    if (filterNames.length > 0) throw new UsageError('give either ids or search filters, not both');
    return { by: 'ids', kind: selection[0], ids: selection[1] };
  }
  if (filterNames.length === 0) return { by: 'all' };
  // Dates alone: every file of the period, those of expenses without a transaction included.
  if (filterNames.every((name) => name === 'bookingDateFrom' || name === 'bookingDateTo'))
    return {
      by: 'dateRange',
      ...(filters.bookingDateFrom ? { from: filters.bookingDateFrom } : {}),
      ...(filters.bookingDateTo ? { to: filters.bookingDateTo } : {}),
    };
  return {
    by: 'transactionSearch',
    filters: filters as Extract<DownloadScope, { by: 'transactionSearch' }>['filters'],
  };
}

/**
 * A note naming the unfinished downloads into the same folder that a new download does not
 * continue (they were started with other options): the same command as theirs would.
 */
function otherDownloadsNote(core: Core, profileId: string, job: DownloadJobShape): string {
  const others = core.files
    .list(profileId, 100)
    .filter(
      (other) =>
        other.id !== job.id &&
        other.destination === job.destination &&
        (other.status === 'pending' || other.status === 'running' || other.status === 'paused'),
    );
  return others
    .map(
      (other) =>
        `Note: the download into this folder started ${other.createdAt.slice(0, 16).replace('T', ' ')} UTC ` +
        `(--layout ${other.layout} --template "${other.template}"; ${other.files.done} of ${other.files.total} files, ${other.status}) ` +
        `is not continued by this one; run it with its own options, or resume it in Satchel.\n`,
    )
    .join('');
}

/**
 * A note naming the ids given that bring no file: transactions or expenses with none, and files
 * deleted since (the cache keeps their record). The others' files are downloaded, and without
 * the note those ids went unmentioned.
 */
function withoutFilesNote(
  core: Core,
  profileId: string,
  scope: Extract<DownloadScope, { by: 'ids' }>,
): string {
  const column = { transaction: 't.id', expense: 'e.id', file: 'f.id' }[scope.kind];
  const withFiles = new Set(
    (
      core
        .cacheOf(profileId)
        .sqlite.prepare(
          `SELECT DISTINCT lower(${column}) AS id ${SCOPED_FILES_FROM}
           WHERE f.deleted_at IS NULL AND lower(${column}) IN (SELECT lower(value) FROM json_each(?))`,
        )
        .all(JSON.stringify(scope.ids)) as Array<{ id: string }>
    ).map((row) => row.id),
  );
  const given = [...new Set(scope.ids)];
  const without = given.filter((id) => !withFiles.has(id.toLowerCase()));
  // None brings a file: the download says there is nothing to download.
  if (without.length === 0 || without.length === given.length) return '';
  const shown = without.slice(0, 3).join(', ') + (without.length > 3 ? ', …' : '');
  const one = without.length === 1;
  const what =
    scope.kind === 'file' ? (one ? 'was deleted' : 'were deleted') : one ? 'has no files' : 'have no files';
  return `Note: ${one ? `the ${scope.kind}` : `${without.length} of the ${scope.kind}s`} ${shown} ${what}.\n`;
}

/**
 * Downloads the receipts of a search, a selection, a period or everything into a folder,
 * with a manifest. Run again with the same options after an interruption, it continues the
 * same download: finished files are not fetched again.
 */
export async function downloadCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: 'string' },
      to: { type: 'string' },
      template: { type: 'string' },
      layout: { type: 'string', default: 'flat' },
      transaction: { type: 'string', multiple: true },
      expense: { type: 'string', multiple: true },
      file: { type: 'string', multiple: true },
      until: { type: 'string' },
      ...filterOptions,
    },
  });
  if (!values.to) throw new UsageError('--to DIR is required');
  const layout = DownloadLayout.safeParse(values.layout);
  if (!layout.success) throw new UsageError(`--layout takes one of ${DownloadLayout.options.join(', ')}`);
  const profile = chooseProfile(core, values.profile);
  const scope = scopeOf(core, profile.id, values);
  // Checked here first, so that a mistake names its option and is a usage error.
  const request = DownloadRequest.safeParse({
    scope,
    destination: path.resolve(values.to),
    template: values.template ?? DEFAULT_TEMPLATE,
    layout: layout.data,
  });
  if (!request.success) throw optionError(request.error, { bookingDateTo: 'until' });
  if (scope.by === 'ids') {
    checkKnownIds(core, profile.id, scope.kind, scope.ids, {
      option: scope.kind,
      outcome: 'nothing was downloaded. Sync, then try again.',
    });
    io.stderr.write(withoutFilesNote(core, profile.id, scope));
  }

  // Progress goes to stderr, as every message does: stdout carries only the closing summary.
  const status = statusLine(io);
  let lastLine = 0;
  let lastDecile = -1;
  let lastWaiting: string | null = null;
  // Off a terminal: the counts of the last plain line printed, null before the first.
  let printed: string | null = null;
  let jobId: string | null = null;
  // On a terminal: the job's newest event (its rate is the one the line ends with), and the text
  // the line shows, null before the first.
  const line: { latest: DownloadProgress | null; drawn: string | null } = { latest: null, drawn: null };
  const stop = core.events.subscribe((event, payload) => {
    if (event !== 'downloads.progress') return;
    const progress = payload as DownloadProgress;
    if (progress.jobId !== jobId) return;
    if (status.interactive) {
      line.latest = progress;
      if (progress.status !== 'running' || Date.now() - lastLine < 100) return;
      lastLine = Date.now();
      line.drawn = progressLine(progress);
      status.show(line.drawn);
      return;
    }
    if (progress.status !== 'running') return;
    // Not a terminal: a plain line at every tenth of the files and when a wait begins.
    const { files } = progress;
    const decile = files.total > 0 ? Math.floor(((files.done + files.failed) * 10) / files.total) : 0;
    const waiting = progress.waitingUntil;
    if (decile !== lastDecile || (waiting !== null && waiting !== lastWaiting)) {
      lastDecile = decile;
      printed = countsOf(progress);
      io.stderr.write(`${progressLine(progress)}\n`);
    }
    lastWaiting = waiting;
  });
  // Ctrl+C pauses the job: what arrived is put in place and recorded, and the same command
  // continues it (the app does not pick up a paused job by itself).
  const pause = () => {
    if (jobId === null) return; // not started yet: paused as soon as it is
    try {
      core.files.pause(profile.id, jobId);
    } catch {
      // It ended in the meantime.
    }
  };
  const stopOnInterrupt = onInterrupt(io, pause);
  try {
    const started = await core.files.start(profile.id, request.data).catch((error: unknown) => {
      throw namingOption(error, { destination: 'to', template: 'template', scope: null });
    });
    jobId = started.job.id;
    if (io.signal?.aborted) pause();
    const { files } = started.job;
    io.stderr.write(
      started.resumed
        ? `Continuing the download to ${started.job.destination}: ${files.done} of ${filesText(files.total)} already done\n`
        : `Downloading ${filesText(files.total)} to ${started.job.destination}${files.present > 0 ? ` (${files.present} already there)` : ''}\n`,
    );
    if (!started.resumed) io.stderr.write(otherDownloadsNote(core, profile.id, started.job));
    const result = await core.files.wait(profile.id, started.job.id);
    const job = core.files.status(profile.id, started.job.id);
    const counts = job.files;
    // Where the job ended, as the summary below says it: the line goes by events, which come at
    // most every 200 ms and stop short of the end, and a run that ends through an error (the
    // cache refusing a write, say) sends no last event at all.
    const final: DownloadProgress = {
      profileId: profile.id,
      jobId: job.id,
      status: job.status,
      files: job.files,
      bytes: job.bytes,
      bytesPerSecond: 0,
      etaSeconds: null,
      waitingUntil: null,
    };
    // On a terminal, the line (where one was started) is redrawn with those counts, with the
    // last rate it had (its time left and any wait are over), unless it shows them already.
    if (status.interactive && line.drawn !== null) {
      const last = progressLine({ ...final, bytesPerSecond: line.latest?.bytesPerSecond ?? 0 });
      if (last !== line.drawn) status.show(last);
    }
    status.end();
    // Off a terminal, the lines go by tenths of running events: the last line says where the
    // job ended, unless it said so.
    if (!status.interactive && printed !== null && countsOf(final) !== printed)
      io.stderr.write(`${progressLine(final)}\n`);
    const manifest =
      job.manifest && job.status === 'completed'
        ? `; manifest: ${path.join(job.destination, job.manifest)}`
        : '';
    io.stdout.write(
      `${counts.done} of ${filesText(counts.total)} in ${job.destination} (${counts.fetched} fetched, ${counts.copied} copied from the offline cache, ${counts.present} already there` +
        // A job carried on counts from its start; say what this run did.
        `${started.resumed ? `; ${counts.fetched - started.job.files.fetched} fetched by this run` : ''})` +
        `${counts.failed > 0 ? `, ${counts.failed} failed` : ''}${manifest}\n`,
    );
    for (const error of job.errors.slice(0, 20)) io.stderr.write(`  ${error.relativePath}: ${error.error}\n`);
    if (counts.failed > 20) io.stderr.write(`  … and ${counts.failed - 20} more\n`);
    // What stopped it (no network, the keychain, refused credentials), and that it can go on.
    // Run by another window or command (job-lease.ts): it goes on there, not by running this again.
    if (result.error?.code === 'BUSY') throw result.error;
    if (result.error && job.status !== 'completed')
      throw new AppError(
        result.error.code,
        `${result.error.message.replace(/\.?$/, '.')} The download stopped; run the same command again to continue.`,
      );
    if (result.error) throw result.error;
    if (job.status !== 'completed')
      throw new AppError(
        'CANCELLED',
        io.signal?.aborted
          ? 'The download was interrupted; run the same command again to continue.'
          : `The download stopped (${job.status}); run the same command again to continue.`,
      );
    if (counts.failed > 0)
      throw new AppError(
        'SERVER_ERROR',
        `${counts.failed} ${counts.failed === 1 ? 'file' : 'files'} could not be downloaded; run the same command again to retry ${counts.failed === 1 ? 'it' : 'them'}.`,
      );
  } finally {
    stopOnInterrupt();
    stop();
    status.end();
  }
}
