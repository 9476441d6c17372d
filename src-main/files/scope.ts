import type { DownloadScope } from '../../src-shared/files';
import { targetSql } from '../review/targets';
import { allRows, caseVariants, inList, prepared, type SqlPart } from '../search/sql';
import type { CacheDb } from '../store';
import type { FileFacts } from './template';

/**
 * The files of a download scope with everything their names, folders and manifest need: the
 * expense (directly, or through the line the file is attached to), the bank transaction the
 * expense documents (`expenses.bank_transaction_id`), its account, and
 * the supplier (else the card merchant). Deleted file records are left out.
 */

export interface ScopedFile extends FileFacts {
  expenseLineId: string | null;
  size: number | null;
  sha256: string | null;
  localPath: string | null;
  localSha256: string | null;
}

/** The date a file is filed under: the booking date, else the expense's own date. */
export const FILE_DATE_SQL = `coalesce(t.booking_date, substr(e.expense_time, 1, 10))`;

export const SCOPED_FILES_FROM = `
  FROM expense_files f
  LEFT JOIN expense_lines l ON l.id = f.expense_line_id
  LEFT JOIN expenses e ON e.id = coalesce(f.expense_id, l.expense_id)
  LEFT JOIN suppliers s ON s.id = e.supplier_id
  LEFT JOIN bank_transactions t ON t.id = e.bank_transaction_id
  LEFT JOIN bank_accounts a ON a.id = t.bank_account_id`;

const COLUMNS = `
  f.id AS fileId, f.name AS originalName, f.mime_type AS mimeType, f.size AS size,
  f.sha256 AS sha256, f.local_path AS localPath, f.local_sha256 AS localSha256,
  e.id AS expenseId, f.expense_line_id AS expenseLineId, t.id AS transactionId,
  ${FILE_DATE_SQL} AS bookingDate,
  coalesce(t.counterparty, e.merchant_name, s.name) AS counterparty,
  CASE WHEN t.id IS NOT NULL THEN t.amount_minor ELSE e.amount_minor END AS amountMinor,
  CASE WHEN t.id IS NOT NULL THEN t.amount_currency ELSE e.amount_currency END AS currency,
  a.name AS account,
  coalesce(s.name, e.merchant_name) AS supplier`;

export function scopeCondition(cache: CacheDb, scope: DownloadScope): SqlPart {
  switch (scope.by) {
    case 'all':
      return { sql: '1', params: {} };
    case 'dateRange': {
      const parts: string[] = [];
      const params: Record<string, unknown> = {};
      if (scope.from) {
        parts.push(`${FILE_DATE_SQL} >= @d_from`);
        params['d_from'] = scope.from;
      }
      if (scope.to) {
        parts.push(`${FILE_DATE_SQL} <= @d_to`);
        params['d_to'] = scope.to;
      }
      return { sql: parts.length > 0 ? parts.join(' AND ') : '1', params };
    }
    case 'ids':
      if (scope.kind === 'file') {
        const list = inList('d_file', caseVariants(scope.ids));
        return { sql: `f.id IN ${list.sql}`, params: list.params };
      }
      return fromTarget(cache, { by: 'ids', kind: scope.kind, ids: scope.ids });
    case 'transactionSearch':
    case 'expenseSearch':
      return fromTarget(cache, scope);
  }
}

function fromTarget(cache: CacheDb, target: Parameters<typeof targetSql>[1]): SqlPart {
  const selected = targetSql(cache.sqlite, target);
  const column = selected.kind === 'transaction' ? 't.id' : 'e.id';
  return { sql: `${column} IN (${selected.sql})`, params: selected.params };
}

/** Every live file of the scope, oldest date first, ties by id: the job's order. */
export function scopedFiles(cache: CacheDb, scope: DownloadScope): ScopedFile[] {
  const condition = scopeCondition(cache, scope);
  return allRows<ScopedFile>(
    prepared(
      cache.sqlite,
      `SELECT ${COLUMNS} ${SCOPED_FILES_FROM}
       WHERE f.deleted_at IS NULL AND (${condition.sql})
       ORDER BY ${FILE_DATE_SQL}, f.id`,
    ),
    condition.params,
  );
}
