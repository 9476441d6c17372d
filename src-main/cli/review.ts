import path from 'node:path';
import { parseArgs } from 'node:util';
import { ReviewChange, ReviewTarget, type ReviewChange as Change } from '../../src-shared/search';
import type { ReviewFileStep } from '../../src-shared/ipc';
import { reviewFileProgressText } from '../../src-shared/review-file-progress';
import { counted } from '../../src-shared/counted';
import type { Core } from '../core';
import { exportReviewFileInSlices, importReviewFileInSlices } from '../export';
import { applyReviewInSlices, needsAttention, type ImportResult } from '../review';
import { PROGRESS_INTERVAL_MS } from '../review-progress';
import { checkKnownIds, chooseProfile, transactionFilterOptions, transactionFilters } from './filters';
import { type CliIo, namingOption, onInterrupt, optionError, table, UsageError } from './io';
import { statusLine } from './status-line';

export const reviewUsage = `satchel review mark (--reviewed | --unreviewed | --flag REASON | --unflag | --note TEXT | --clear-note
               | --tag T... | --untag T...) [--profile NAME_OR_ID]
               (--id ID... [--expenses] | search filters as for search, with --is-reviewed true|false
               for the review filter and no tag filter)
satchel review attention [--profile NAME_OR_ID] [--json]
satchel review export --out FILE.json [--force] [--profile NAME_OR_ID]
satchel review import FILE.json [--profile NAME_OR_ID]`;

/** Review marks from the command line: mark, "needs attention", and the exchange file. */
export async function reviewCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'mark':
      return mark(core, rest, io);
    case 'attention':
      return attention(core, rest, io);
    case 'export':
      return exchange(core, rest, io, 'export');
    case 'import':
      return exchange(core, rest, io, 'import');
    default:
      throw new UsageError(
        `review takes mark, attention, export or import${action ? `, not "${action}"` : ''}`,
      );
  }
}

async function mark(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: 'string' },
      ...transactionFilterOptions,
      id: { type: 'string', multiple: true },
      expenses: { type: 'boolean', default: false },
      reviewed: { type: 'boolean' },
      unreviewed: { type: 'boolean' },
      flag: { type: 'string' },
      unflag: { type: 'boolean' },
      note: { type: 'string' },
      'clear-note': { type: 'boolean' },
      tag: { type: 'string', multiple: true },
      untag: { type: 'string', multiple: true },
      // `--reviewed` is an action here; the review-state filter is spelled --is-reviewed.
      'is-reviewed': { type: 'string' },
    },
  });
  const changes: Change[] = [];
  if (values.reviewed) changes.push({ action: 'setReviewed' });
  if (values.unreviewed) changes.push({ action: 'clearReviewed' });
  if (values.flag !== undefined) changes.push({ action: 'flag', reason: values.flag });
  if (values.unflag) changes.push({ action: 'unflag' });
  if (values.note !== undefined) changes.push({ action: 'setNote', note: values.note });
  if (values['clear-note']) changes.push({ action: 'setNote', note: null });
  if (values.tag) changes.push({ action: 'addTags', tags: values.tag });
  if (values.untag) changes.push({ action: 'removeTags', tags: values.untag });
  if (changes.length !== 1)
    throw new UsageError('review mark takes exactly one change (--reviewed, --flag, --note, …)');
  const change = ReviewChange.safeParse(changes[0]);
  if (!change.success) throw optionError(change.error);

  const profile = chooseProfile(core, values.profile);
  const { tag: _tag, reviewed: _reviewed, ...filterValues } = values;
  const filters = transactionFilters(core, profile.id, { ...filterValues, reviewed: values['is-reviewed'] });
  if (values.expenses && !values.id)
    throw new UsageError(
      '--expenses marks the expenses given with --id; the search filters find transactions',
    );
  if (values.id && Object.keys(filters).length > 0)
    throw new UsageError('give either --id or search filters, not both');
  if (values.id)
    checkKnownIds(core, profile.id, values.expenses ? 'expense' : 'transaction', values.id, {
      option: 'id',
      outcome: `nothing was changed.${values.expenses ? '' : ' Expenses need --expenses.'}`,
    });
  const target = ReviewTarget.safeParse(
    values.id
      ? { by: 'ids', kind: values.expenses ? 'expense' : 'transaction', ids: values.id }
      : { by: 'transactionSearch', filters },
  );
  if (!target.success) throw optionError(target.error);
  if (!values.id && Object.keys(filters).length === 0)
    throw new UsageError(
      'give --id or at least one filter; marking every transaction needs --from or similar',
    );
  const status = statusLine(io);
  // Ctrl+C stops the change before its next slice: what it changed stays, and it says how
  // much (the same command again completes it). The exit status says 130.
  const release = onInterrupt(io, () => undefined);
  // Ended however the change ends: the slices before a failure stay changed, and their count
  // stays readable above the error.
  const { changed } = await applyReviewInSlices(core.writableCacheOf(profile.id), target.data, change.data, {
    ...(io.signal ? { signal: io.signal } : {}),
    onProgress: (done, total) => {
      if (total > 0)
        status.show(
          `Marking ${grouped.format(done)} of ${counted(total, 'record', 'records', (n) => grouped.format(n))}…`,
        );
    },
  }).finally(() => {
    status.end();
    release();
  });
  io.stdout.write(`${changed} ${changed === 1 ? 'record' : 'records'} changed\n`);
}

function attention(core: Core, args: string[], io: CliIo): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { profile: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const groups = needsAttention(core.cacheOf(chooseProfile(core, values.profile).id));
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ groups }, null, 2)}\n`);
    return;
  }
  const labels: Record<string, string> = {
    unmatchedTransactions: 'Unmatched transactions not yet reviewed',
    flaggedTransactions: 'Flagged transactions',
    expensesWithoutFile: 'Expenses without a receipt not yet reviewed',
    flaggedExpenses: 'Flagged expenses',
  };
  io.stdout.write(
    table([
      ['NEEDS ATTENTION', 'COUNT'],
      ...groups.map((g) => [labels[g.group] ?? g.group, String(g.count)]),
    ]),
  );
}

async function exchange(
  core: Core,
  args: string[],
  io: CliIo,
  direction: 'export' | 'import',
): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: direction === 'import',
    options: {
      profile: { type: 'string' },
      out: { type: 'string' },
      ...(direction === 'export' ? { force: { type: 'boolean', default: false } } : {}),
    },
  });
  const given = direction === 'export' ? values.out : positionals[0];
  if (!given)
    throw new UsageError(direction === 'export' ? '--out FILE.json is required' : 'name the file to import');
  const file = path.resolve(given);
  const profileId = chooseProfile(core, values.profile).id;
  // An export only reads the copy; an import writes to it, refused at once when it cannot.
  const cache = direction === 'import' ? core.writableCacheOf(profileId) : core.cacheOf(profileId);
  // Ended however the work ends, before the summary or the error: its last count stays readable.
  const progress = fileProgress(io);
  // Ctrl+C stops the work between two slices, as the CSV export stops: an export removes its
  // temporary file and leaves the target as it was; an import keeps the marks it merged and
  // says how many (importing the file again completes it). The exit status says 130.
  const release = onInterrupt(io, () => undefined);
  try {
    if (direction === 'export') {
      const result = await exportReviewFileInSlices(
        cache,
        { file },
        {
          overwrite: values.force === true,
          onProgress: (done, total) => progress.report('export', done, total),
          signal: io.signal,
        },
      ).finally(() => progress.end());
      io.stdout.write(`${counted(result.marks, 'review mark', 'review marks')} written to ${result.file}\n`);
    } else {
      // In slices, as the app does: another Satchel writing to this copy meanwhile (the app's
      // sync, a mark) waits a slice, not the whole file, and is not refused as busy.
      const { result } = await importReviewFileInSlices(
        cache,
        { file },
        {
          undoable: false,
          onProgress: (done, total, phase) =>
            progress.report(phase === 'check' ? 'check' : 'merge', done, total),
          signal: io.signal,
        },
      ).finally(() => progress.end());
      io.stdout.write(`${importSummary(result)}\n`);
    }
  } catch (error) {
    // The file to import is named in the message already; the export's came from --out.
    throw namingOption(error, { file: direction === 'export' ? 'out' : null });
  } finally {
    release();
  }
}

/** Counts in progress lines as "12,000": the same on every machine, whatever its locale. */
const grouped = new Intl.NumberFormat('en-US');

/**
 * How far a review export or import is, on stderr, in the window's words ("Exporting 12,000 of
 * 54,000 marks…", "Checking … in the file…", "Importing …"). On a terminal, one line redrawn:
 * the first count of each step and the one that reaches its total at once, between them at
 * most one every PROGRESS_INTERVAL_MS. Elsewhere (a pipe, a log), a plain line at each tenth of
 * each step. `end`, however the work ended, says its last count unless the last line said it
 * already, then ends the line, so that the summary or the error stands below where it ended.
 * Work that fails before its first count (a file that cannot be read) shows nothing.
 */
function fileProgress(io: CliIo) {
  const status = statusLine(io);
  let latest: { step: ReviewFileStep; done: number; total: number } | null = null;
  /** The text of the last line shown or printed. */
  let said: string | null = null;
  let saidAt = 0;
  let saidStep: ReviewFileStep | null = null;
  let saidTenth = -1;
  const say = (text: string) => {
    if (status.interactive) status.show(text);
    else io.stderr.write(`${text}\n`);
    said = text;
  };
  return {
    report(step: ReviewFileStep, done: number, total: number): void {
      if (total <= 0) return;
      latest = { step, done, total };
      const tenth = Math.floor((done * 10) / total);
      const due = status.interactive
        ? done >= total || Date.now() - saidAt >= PROGRESS_INTERVAL_MS
        : tenth !== saidTenth;
      if (step !== saidStep || due) {
        say(reviewFileProgressText(latest, (n) => grouped.format(n)));
        saidAt = Date.now();
        saidStep = step;
        saidTenth = tenth;
      }
    },
    end(): void {
      if (latest) {
        const text = reviewFileProgressText(latest, (n) => grouped.format(n));
        if (text !== said) say(text);
      }
      status.end();
    },
  };
}

/** What `review import` did: what it took, where a newer local mark stayed, or that nothing changed. */
export function importSummary(result: ImportResult): string {
  const read = `${counted(result.marks, 'review mark', 'review marks')} read`;
  const taken =
    result.updated === 0 && result.keptLocal === 0
      ? 'nothing changed (this copy had every mark of the file already, or a newer one)'
      : `${counted(result.updated, 'record', 'records')} updated`;
  const kept =
    result.keptLocal === 0
      ? ''
      : `, ${counted(result.keptLocal, 'record', 'records')} kept a newer local mark where the file says otherwise`;
  const waiting =
    result.notCached === 0
      ? ''
      : ` (${result.notCached} for ${result.notCached === 1 ? 'a record' : 'records'} not in the offline copy yet; ${
          result.notCached === 1 ? 'it applies' : 'they apply'
        } when a sync brings ${result.notCached === 1 ? 'it' : 'them'})`;
  return `${read}, ${taken}${kept}${waiting}`;
}
