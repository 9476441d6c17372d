import type { z } from 'zod';
import { COST_CARRIER_DIMENSION_ID, COST_CENTER_DIMENSION_ID } from '../../src-shared/api';
import {
  DimensionItemSearch,
  DimensionList,
  type DimensionItemRow,
  type DimensionItemSearchInput,
  type DimensionItemSearchResult,
  type DimensionListInput,
  type DimensionRow,
  type ExpenseAccountRow,
} from '../../src-shared/search';
import type { CacheDb } from '../store';
import { allOf, offsetOf, prepared, type SqlPart } from './sql';
import { containsAny, searchText } from './text';

/**
 * Dimensions and their items as the offline copy holds them, edits not yet sent included:
 * the Dimensions screen and `satchel dimension list`. "Deleted" is either a record the
 * server marks `DELETED` (the API lists those) or one gone from the server; both are left
 * out unless asked for. Name order (NOCASE, as the name indexes hold it), id to break ties.
 */

const SYSTEM = [COST_CENTER_DIMENSION_ID, COST_CARRIER_DIMENSION_ID];

const live = (alias: string) => `${alias}.deleted_at IS NULL AND coalesce(${alias}.status, '') <> 'DELETED'`;

/**
 * An item is live only in a live dimension: a dimension deleted offline (its items are still
 * active in the cache until the push and the next sync), or by a server that leaves its items
 * as they were, must not offer them for new coding or count them.
 */
const liveItem = (alias: string) =>
  `${live(alias)} AND NOT EXISTS (SELECT 1 FROM dimensions p WHERE p.id = ${alias}.dimension_id AND NOT (${live('p')}))`;

export function listDimensions(cache: CacheDb, query: DimensionListInput = {}): DimensionRow[] {
  const search = DimensionList.parse(query);
  const rows = prepared(
    cache.sqlite,
    `SELECT d.id AS id, d.name AS name, d.code AS code, d.status AS status,
       d.local_edit_pending AS pending, d.deleted_at AS deletedAt,
       (SELECT count(*) FROM dimension_items i WHERE i.dimension_id = d.id AND ${liveItem('i')}) AS itemCount
     FROM dimensions d
     WHERE ${search.includeDeleted ? '1' : live('d')}
     ORDER BY d.name COLLATE NOCASE, d.id`,
  ).all() as Array<Omit<DimensionRow, 'system' | 'editPending'> & { pending: number }>;
  return rows.map(({ pending, ...row }) => ({
    ...row,
    system: SYSTEM.includes(row.id),
    editPending: pending === 1,
  }));
}

function itemWhere(cache: CacheDb, search: z.output<typeof DimensionItemSearch>): SqlPart {
  const parts: SqlPart[] = [];
  if (search.dimensionId !== undefined)
    parts.push({ sql: 'i.dimension_id = @dimensionId', params: { dimensionId: search.dimensionId } });
  if (search.id !== undefined) parts.push({ sql: 'i.id = @itemId', params: { itemId: search.id } });
  if (!search.includeDeleted) parts.push({ sql: liveItem('i'), params: {} });
  const text = searchText(search.text);
  if (text !== '') parts.push(containsAny(cache.sqlite, ['i.name', 'i.code'], text, 'i_text'));
  return allOf(parts);
}

export function searchDimensionItems(
  cache: CacheDb,
  query: DimensionItemSearchInput,
): DimensionItemSearchResult {
  const search = DimensionItemSearch.parse(query);
  const where = itemWhere(cache, search);
  const rows = prepared(
    cache.sqlite,
    `SELECT i.id AS id, i.dimension_id AS dimensionId, i.name AS name, i.code AS code,
       i.status AS status, i.local_edit_pending AS pending, i.deleted_at AS deletedAt
     FROM dimension_items i WHERE ${where.sql}
     ORDER BY ${search.dimensionId === undefined ? 'i.dimension_id, ' : ''}i.name COLLATE NOCASE, i.id
     LIMIT @limit OFFSET @offset`,
  ).all({
    ...where.params,
    limit: search.pagination.pageSize,
    offset: offsetOf(search.pagination),
  }) as Array<Omit<DimensionItemRow, 'editPending'> & { pending: number }>;
  const count = prepared(cache.sqlite, `SELECT count(*) AS n FROM dimension_items i WHERE ${where.sql}`);
  return {
    rows: rows.map(({ pending, ...row }) => ({ ...row, editPending: pending === 1 })),
    page: search.pagination.page,
    pageSize: search.pagination.pageSize,
    total: (count.get(where.params) as { n: number }).n,
  };
}

/**
 * The organisation's expense accounts (not deleted), by number: the other thing expense lines
 * are booked to, listed beside the dimensions for the Expenses filter.
 */
export function listExpenseAccounts(cache: CacheDb): ExpenseAccountRow[] {
  return prepared(
    cache.sqlite,
    `SELECT id, code AS number, name, status FROM expense_accounts WHERE deleted_at IS NULL
     ORDER BY code IS NULL, code, name COLLATE NOCASE, id`,
  ).all() as ExpenseAccountRow[];
}
