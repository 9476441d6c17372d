import type Database from 'better-sqlite3';
import { ExpenseFilters, ReviewTarget, TransactionFilters, type SearchTotals } from '../../src-shared/search';
import { expenseCountOf } from './expenses';
import { totalsOf } from './transactions';
import { targetRows } from '../review/targets';

/**
 * What the totals thread (background-totals.ts, totals-thread.ts) is asked, and its answer on
 * any connection: the thread's own, or the app's when no thread can answer. One function for
 * both, so that the thread and the app's thread never differ.
 *
 * - `transactions`: count and per-currency sums of a transaction search (`totalsOf`);
 * - `expenses`: how many expenses a search finds (`expenseCountOf`);
 * - `reviewRows`: the rowids a bulk review change fixes as its result when it starts, in the
 *   order of the records' ids (review/targets.ts, `targetRows`): 283,292 of a million
 *   transactions take 0.3–0.5 s to list.
 */

export type ThreadAsk =
  | { kind: 'transactions'; filters: TransactionFilters }
  | { kind: 'expenses'; filters: ExpenseFilters }
  | { kind: 'reviewRows'; target: Exclude<ReviewTarget, { by: 'ids' }> };

export type ThreadValue =
  | { kind: 'transactions'; totals: SearchTotals }
  | { kind: 'expenses'; count: number }
  | { kind: 'reviewRows'; rows: Float64Array };

/** The answer to `ask` on `sqlite`, its input checked again (it came through a message). */
export function answerAsk(sqlite: Database.Database, ask: ThreadAsk): ThreadValue {
  switch (ask.kind) {
    case 'transactions':
      return { kind: ask.kind, totals: totalsOf(sqlite, TransactionFilters.parse(ask.filters)) };
    case 'expenses':
      return { kind: ask.kind, count: expenseCountOf(sqlite, ExpenseFilters.parse(ask.filters)) };
    case 'reviewRows': {
      const target = ReviewTarget.parse(ask.target);
      if (target.by === 'ids') throw new TypeError('a selection of ids needs no rows listed');
      return { kind: ask.kind, rows: Float64Array.from(targetRows(sqlite, target)) };
    }
  }
}
