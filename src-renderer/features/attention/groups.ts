import { formatCount } from '../../lib/format';
import type { ReviewFileStep } from '../../../src-shared/ipc';
import {
  importInterruptedText,
  reviewFileProgressText as sharedProgressText,
} from '../../../src-shared/review-file-progress';
import { ExpenseFilters, TransactionFilters } from '../../../src-shared/search';

/** Where a "needs attention" group opens: the list's area with the group's search applied. */
export type Opening =
  { area: 'transactions'; filters: TransactionFilters } | { area: 'expenses'; filters: ExpenseFilters };

export interface AttentionItem {
  group: string;
  count: number;
  title: string;
  text: string;
  /** Null when the group's search is not one this version can open. */
  opening: Opening | null;
}

const known: Record<string, { title: string; text: string; area: Opening['area'] }> = {
  unmatchedTransactions: {
    title: 'Unmatched transactions',
    text: 'Bank transactions with no expense matched to them, not yet marked reviewed.',
    area: 'transactions',
  },
  expensesWithoutFile: {
    title: 'Expenses without a receipt',
    text: 'Expenses with no receipt or invoice attached, not yet marked reviewed.',
    area: 'expenses',
  },
  flaggedTransactions: {
    title: 'Flagged transactions',
    text: 'Transactions with an open question, until the flag is taken off.',
    area: 'transactions',
  },
  flaggedExpenses: {
    title: 'Flagged expenses',
    text: 'Expenses with an open question, until the flag is taken off.',
    area: 'expenses',
  },
};

function openingOf(area: Opening['area'], search: Record<string, unknown>): Opening | null {
  if (area === 'transactions') {
    const parsed = TransactionFilters.safeParse(search);
    return parsed.success ? { area, filters: parsed.data } : null;
  }
  const parsed = ExpenseFilters.safeParse(search);
  return parsed.success ? { area, filters: parsed.data } : null;
}

/**
 * The core's groups as the screen shows them: a title, what the group means and where it
 * opens. A group this version does not know is still counted, under its own name.
 */
export function attentionItems(
  groups: ReadonlyArray<{ group: string; count: number; search: Record<string, unknown> }>,
): AttentionItem[] {
  return groups.map(({ group, count, search }) => {
    const meta = known[group];
    if (!meta) return { group, count, title: group, text: '', opening: null };
    return { group, count, title: meta.title, text: meta.text, opening: openingOf(meta.area, search) };
  });
}

/** The sidebar's count: every item waiting, each counted once per group it is in. */
export function attentionTotal(groups: ReadonlyArray<{ count: number }>): number {
  return groups.reduce((sum, group) => sum + group.count, 0);
}

const marksOf = (n: number) => `${formatCount(n)} ${n === 1 ? 'review mark' : 'review marks'}`;

/** What an export of the review file says it did. */
export function reviewExportMessage(result: { marks: number; file: string }): string {
  return `${marksOf(result.marks)} written to ${result.file}.`;
}

/** A review export or import under way, in the words of its step, with the user's digit grouping. */
export function reviewFileProgressText(progress: {
  step: ReviewFileStep;
  done: number;
  total: number;
}): string {
  return sharedProgressText(progress, formatCount);
}

const recordsOf = (n: number) => `${formatCount(n)} ${n === 1 ? 'record' : 'records'}`;

/**
 * What an import of a colleague's review file says it did: what it took, where the user's own
 * newer mark stayed instead, and, when it changed nothing (the same file again), that.
 */
export function reviewImportMessage(result: {
  marks: number;
  updated: number;
  keptLocal: number;
  notCached: number;
}): string {
  const taken =
    result.updated === 0 && result.keptLocal === 0
      ? 'nothing changed: this copy had every mark of the file already, or a newer one.'
      : `${recordsOf(result.updated)} took a newer mark from the file.`;
  const kept =
    result.keptLocal === 0
      ? ''
      : ` ${recordsOf(result.keptLocal)} kept your own newer mark where the file says otherwise.`;
  const waiting =
    result.notCached === 0
      ? ''
      : ` ${formatCount(result.notCached)} ${
          result.notCached === 1 ? 'is for a record' : 'are for records'
        } not in the offline copy yet; ${result.notCached === 1 ? 'it applies' : 'they apply'} when a sync brings ${
          result.notCached === 1 ? 'it' : 'them'
        }.`;
  return `${marksOf(result.marks)} read; ${taken}${kept}${waiting}`;
}

/**
 * What an import stopped part-way (Stop import) says: how far it came in the command line's
 * words, then what the marks merged so far did.
 */
export function reviewInterruptedMessage(result: {
  interrupted: { merged: number; total: number };
  updated: number;
  keptLocal: number;
}): string {
  const { merged, total } = result.interrupted;
  const kept =
    result.keptLocal === 0
      ? ''
      : `; ${recordsOf(result.keptLocal)} kept your own newer mark where the file says otherwise`;
  return `${importInterruptedText(merged, total, formatCount)} So far ${recordsOf(result.updated)} took a newer mark from the file${kept}.`;
}

/** What undoing an import says: the records put back, and those left as changed since. */
export function reviewUndoMessage(result: { restored: number; changedSince: number }): string {
  const since =
    result.changedSince === 0
      ? ''
      : ` ${recordsOf(result.changedSince)} changed since the import ${
          result.changedSince === 1 ? 'was' : 'were'
        } left as ${result.changedSince === 1 ? 'it is' : 'they are'}.`;
  return `Import undone: ${recordsOf(result.restored)} ${
    result.restored === 1 ? 'has its' : 'have their'
  } review marks as before it.${since}`;
}
