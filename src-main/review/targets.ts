import type Database from 'better-sqlite3';
import type { RecordKind, ReviewTarget } from '../../src-shared/search';
import { expenseWhere } from '../search/expenses';
import { caseVariants, inList, prepared, type SqlPart } from '../search/sql';
import { transactionWhere } from '../search/transaction-where';

/**
 * A review target as SQL: a SELECT of the `id`s it names, evaluated inside the statement that
 * changes the marks. A whole search result (a million rows) is therefore marked by one
 * INSERT … SELECT in SQLite, never by carrying its ids through JavaScript. Explicit ids are
 * kept only when the cache holds the record (deleted ones included: they were asked for).
 */

export interface TargetSql extends SqlPart {
  kind: RecordKind;
}

export const TABLE: Record<RecordKind, string> = { transaction: 'bank_transactions', expense: 'expenses' };
const ALIAS: Record<RecordKind, string> = { transaction: 't', expense: 'e' };

export function targetSql(sqlite: Database.Database, target: ReviewTarget): TargetSql {
  switch (target.by) {
    case 'ids': {
      const list = inList('g_id', caseVariants(target.ids));
      return {
        kind: target.kind,
        sql: `SELECT id FROM ${TABLE[target.kind]} WHERE id IN ${list.sql}`,
        params: list.params,
      };
    }
    case 'transactionSearch': {
      const where = transactionWhere(sqlite, target.filters);
      return {
        kind: 'transaction',
        sql: `SELECT t.id AS id FROM bank_transactions t WHERE ${where.sql}`,
        params: where.params,
      };
    }
    case 'expenseSearch': {
      const where = expenseWhere(sqlite, target.filters);
      return {
        kind: 'expense',
        sql: `SELECT e.id AS id FROM expenses e WHERE ${where.sql}`,
        params: where.params,
      };
    }
  }
}

/** The kind of record a search target finds. */
export const targetKind = (target: Exclude<ReviewTarget, { by: 'ids' }>): RecordKind =>
  target.by === 'transactionSearch' ? 'transaction' : 'expense';

/**
 * The rowids a search target finds now, in the order of the records' ids: the fixed result a
 * bulk change works through a slice at a time (slices.ts). Marks are keyed by record id, so
 * slices in that order each write their own stretch of the marks' pages; slices in any other
 * order would each rewrite pages all over the table (a 283,292-row result took four to five
 * times as long in rowid order). Listed in the totals thread by the app (search/thread-asks.ts).
 */
export function targetRows(
  sqlite: Database.Database,
  target: Exclude<ReviewTarget, { by: 'ids' }>,
): number[] {
  const where =
    target.by === 'transactionSearch'
      ? transactionWhere(sqlite, target.filters)
      : expenseWhere(sqlite, target.filters);
  const kind = targetKind(target);
  return prepared(
    sqlite,
    `SELECT ${ALIAS[kind]}.rowid FROM ${TABLE[kind]} ${ALIAS[kind]} WHERE ${where.sql}
      ORDER BY ${ALIAS[kind]}.id`,
  )
    .pluck()
    .all(where.params) as number[];
}
