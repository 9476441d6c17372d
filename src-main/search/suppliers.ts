import {
  SupplierSearch,
  type SupplierRow,
  type SupplierSearchInput,
  type SupplierSearchResult,
} from '../../src-shared/search';
import type { CacheDb } from '../store';
import { memoized } from './memo';
import { allOf, offsetOf, prepared, type SqlPart } from './sql';
import { containsAny, searchText } from './text';

/**
 * Supplier search: case-insensitive substring of name, number, VAT id or IBAN, in name
 * order (NOCASE, as the `(name COLLATE NOCASE, id)` index holds it). IBANs are printed in
 * groups of four, so spaces are ignored on both sides: "DE89 3704" finds "DE89370400…".
 */

// Every field the Suppliers editor shows, so that it opens with the supplier's values.
const COLUMNS = `s.id AS id, s.name AS name, s.number AS number, s.status AS status,
  s.vat_id_no AS vatIdNo, s.iban AS iban, s.bic AS bic, s.currency AS currency,
  s.deleted_at AS deletedAt`;

function supplierWhere(cache: CacheDb, search: SupplierSearch): SqlPart {
  const parts: SqlPart[] = [];
  // Live suppliers unless asked: neither deleted on the server (status DELETED, which the API
  // still lists) nor gone from it, as for dimensions and their items.
  if (!search.includeDeleted)
    parts.push({ sql: `s.deleted_at IS NULL AND coalesce(s.status, '') <> 'DELETED'`, params: {} });
  const text = searchText(search.text);
  if (text !== '') {
    const fields = containsAny(cache.sqlite, ['s.name', 's.number', 's.vat_id_no', 's.iban'], text, 's_text');
    const compact = text.replace(/\s+/g, '');
    const iban = containsAny(cache.sqlite, [`replace(s.iban, ' ', '')`], compact || text, 's_iban');
    parts.push({ sql: `${fields.sql} OR ${iban.sql}`, params: { ...fields.params, ...iban.params } });
  }
  return allOf(parts);
}

export function searchSuppliers(cache: CacheDb, query: SupplierSearchInput): SupplierSearchResult {
  const search = SupplierSearch.parse(query);
  const where = supplierWhere(cache, search);
  const rows = prepared(
    cache.sqlite,
    `SELECT ${COLUMNS} FROM suppliers s WHERE ${where.sql}
     ORDER BY s.name COLLATE NOCASE, s.id LIMIT @limit OFFSET @offset`,
  ).all({
    ...where.params,
    limit: search.pagination.pageSize,
    offset: offsetOf(search.pagination),
  }) as SupplierRow[];
  const total = memoized(
    cache.sqlite,
    'suppliers',
    JSON.stringify([search.text, search.includeDeleted]),
    () => {
      const count = prepared(cache.sqlite, `SELECT count(*) AS n FROM suppliers s WHERE ${where.sql}`);
      return (count.get(where.params) as { n: number }).n;
    },
  );
  return { rows, page: search.pagination.page, pageSize: search.pagination.pageSize, total };
}
