import type { BankTransaction } from '../../../src-shared/api';
import { parseMoney } from '../../../src-shared/money';
import type { CacheDb } from '../../../src-main/store';

/**
 * Writes wire bank transactions into a cache the way sync does: one row per record keyed by
 * `id`, `INSERT … ON CONFLICT(id) DO UPDATE` refreshing every synced column (so the row keeps
 * its row_id and the FTS triggers see an UPDATE), `deleted_at` cleared unless given.
 */

const COLUMNS = [
  'id',
  'bank_account_id',
  'organisation_id',
  'transaction_type',
  'amount_minor',
  'amount_currency',
  'booking_date',
  'value_date',
  'description',
  'counterparty',
  'group_id',
  'bank_account_number',
  'matched',
  'create_time',
  'update_time',
  'raw',
  'synced_at',
  'deleted_at',
] as const;

const UPSERT = `INSERT INTO bank_transactions (${COLUMNS.join(', ')})
  VALUES (${COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT(id) DO UPDATE SET ${COLUMNS.filter((c) => c !== 'id')
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

export function rowValues(
  record: BankTransaction,
  syncedAt: string,
  deletedAt: string | null = null,
): unknown[] {
  const amount = parseMoney(record.amount);
  return [
    record.id,
    record.bankAccountId,
    record.organisationId,
    record.transactionType,
    amount.minor,
    amount.currency,
    record.bookingDate,
    record.valueDate,
    record.description,
    record.counterparty,
    record.groupId,
    record.bankAccountNumber,
    record.matched ? 1 : 0,
    record.createTime,
    record.updateTime,
    JSON.stringify(record),
    syncedAt,
    deletedAt,
  ];
}

/** Upserts in one transaction, as a sync page does; ids in `deleted` get `deleted_at` set. */
export function upsertTransactions(
  cache: CacheDb,
  records: Iterable<BankTransaction>,
  deleted: ReadonlySet<string> = new Set(),
): number {
  const statement = cache.sqlite.prepare(UPSERT);
  const syncedAt = new Date().toISOString();
  let written = 0;
  cache.sqlite.transaction(() => {
    for (const record of records) {
      statement.run(rowValues(record, syncedAt, deleted.has(record.id) ? syncedAt : null));
      written += 1;
    }
  })();
  return written;
}
