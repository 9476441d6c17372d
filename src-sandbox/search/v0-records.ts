import type { BankTransaction } from '../../src-shared/api';
import { parseMoney } from '../../src-shared/money';
import type { SearchOptions } from './v0';

/**
 * The v0 search over plain records: the readable statement of the semantics documented in
 * `v0.ts`. The columnar search is tested against it, and the app's local search can be too.
 * Pure TypeScript over wire records; no Node, no HTTP.
 */
export function searchRecords(
  records: readonly BankTransaction[],
  options: SearchOptions,
): { data: BankTransaction[]; total: number } {
  const { filters } = options;
  const ids = filters.ids ? new Set(filters.ids.map((id) => id.toLowerCase())) : null;
  const accounts = filters.accountIds ? new Set(filters.accountIds.map((id) => id.toLowerCase())) : null;
  const text = (filters.freeText ?? '').trim().toLowerCase();
  const matches = records.filter(
    (record) =>
      (!ids || ids.has(record.id)) &&
      (!filters.bookingDateFrom || record.bookingDate >= filters.bookingDateFrom) &&
      (!filters.bookingDateTo || record.bookingDate <= filters.bookingDateTo) &&
      (!accounts || accounts.has(record.bankAccountId)) &&
      (filters.matched === undefined || record.matched === filters.matched) &&
      (text === '' ||
        [record.id, record.groupId, record.counterparty, record.bankAccountNumber].some((value) =>
          value.toLowerCase().includes(text),
        )),
  );
  const field = options.sorting?.field ?? 'bookingDate';
  const key = (record: BankTransaction): string | number =>
    field === 'amount' ? parseMoney(record.amount).minor : field === 'id' ? '' : record[field];
  matches.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  if ((options.sorting?.direction ?? 'DESC') === 'DESC') matches.reverse();
  const page = options.pagination?.page ?? 1;
  const pageSize = options.pagination?.pageSize ?? 20;
  return { data: matches.slice((page - 1) * pageSize, page * pageSize), total: matches.length };
}
