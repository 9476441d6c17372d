import type { TransactionSortField } from '../../src-shared/api';
import type { TransactionTable } from '../data/transactions';

/**
 * Row orders for sorting, ascending by (field, id). Descending is the same order read
 * backwards, so ties are broken by id in the sort's own direction. Generated rows are
 * already in (bookingDate, id) order, so that order costs nothing; the others are computed
 * on first use and cached until rows are appended.
 */

export interface RowOrder {
  /** Row at position p, or the identity when null. */
  rows: Uint32Array | null;
  length: number;
}

const cache = new WeakMap<
  TransactionTable,
  { version: number; orders: Map<TransactionSortField, RowOrder> }
>();

export function ascendingOrder(table: TransactionTable, field: TransactionSortField): RowOrder {
  let entry = cache.get(table);
  if (!entry || entry.version !== table.version()) {
    entry = { version: table.version(), orders: new Map() };
    cache.set(table, entry);
  }
  let order = entry.orders.get(field);
  if (!order) {
    order =
      field === 'bookingDate' && table.inDateOrder()
        ? { rows: null, length: table.size() }
        : computeOrder(table, field);
    entry.orders.set(field, order);
  }
  return order;
}

export function rowAt(order: RowOrder, position: number): number {
  return order.rows ? (order.rows[position] ?? 0) : position;
}

/** Compares two rows by id: the stored 32-bit prefix first, the full string only on a tie. */
export function compareIds(table: TransactionTable, a: number, b: number): number {
  const prefix = table.columns().idPrefix;
  const pa = prefix[a] ?? 0;
  const pb = prefix[b] ?? 0;
  if (pa !== pb) return pa < pb ? -1 : 1;
  const ia = table.idOf(a);
  const ib = table.idOf(b);
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/** Sort key of a row for a field; numbers compare exactly (days, minor units). */
export function keyReader(
  table: TransactionTable,
  field: TransactionSortField,
): ((row: number) => number) | null {
  const c = table.columns();
  switch (field) {
    case 'bookingDate':
      return (row) => c.bookingDay[row] ?? 0;
    case 'valueDate':
      return (row) => (c.bookingDay[row] ?? 0) - (c.valueLag[row] ?? 0);
    case 'amount':
      return (row) => c.amount[row] ?? 0;
    case 'id':
      return null;
  }
}

export function compareRows(
  table: TransactionTable,
  field: TransactionSortField,
): (a: number, b: number) => number {
  const key = keyReader(table, field);
  return (a, b) => {
    if (key) {
      const ka = key(a);
      const kb = key(b);
      if (ka !== kb) return ka < kb ? -1 : 1;
    }
    return compareIds(table, a, b);
  };
}

function computeOrder(table: TransactionTable, field: TransactionSortField): RowOrder {
  const n = table.size();
  const rows = new Uint32Array(n);
  for (let i = 0; i < n; i++) rows[i] = i;
  rows.sort(compareRows(table, field));
  return { rows, length: n };
}
