import { asc, eq, inArray, or } from 'drizzle-orm';
import { AppError } from '../../src-shared/errors';
import type {
  ExpenseDetail,
  ExpenseLineSummary,
  LineBooking,
  LinkedTransaction,
} from '../../src-shared/details';
import type { MinorAmount } from '../../src-shared/search';
import { searchExpenses, searchTransactions } from '../search';
import { prepared } from '../search/sql';
import { expenseFiles, expenseLines, expenses, type CacheDb } from '../store';

function money(minor: number | null, currency: string | null): MinorAmount | null {
  return minor === null || currency === null ? null : { minor, currency };
}

/** Expenses by id with their lines and files, in the order given; unknown ids are left out. */
export function expenseDetails(cache: CacheDb, ids: string[]): ExpenseDetail[] {
  if (ids.length === 0) return [];
  const rows = searchExpenses(cache, {
    filters: { ids, includeDeleted: true },
    pagination: { page: 1, pageSize: Math.min(ids.length, 500) },
  }).rows;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const expense = byId.get(id);
    return expense ? [{ expense, ...linesAndFiles(cache, expense.id) }] : [];
  });
}

function linesAndFiles(cache: CacheDb, expenseId: string): Omit<ExpenseDetail, 'expense'> {
  const { db } = cache;
  const link = db
    .select({ bankTransactionId: expenses.bankTransactionId })
    .from(expenses)
    .where(eq(expenses.id, expenseId))
    .get();
  const rows = db
    .select()
    .from(expenseLines)
    .where(eq(expenseLines.expenseId, expenseId))
    .orderBy(asc(expenseLines.position))
    .all();
  const booked = lineBookings(
    cache,
    rows.map((line) => line.id),
  );
  const lines: ExpenseLineSummary[] = rows.map((line) => ({
    id: line.id,
    type: line.type,
    description: descriptionOf(line.raw),
    parentLineId: line.parentLineId,
    net: money(line.netAmountMinor, line.netAmountCurrency),
    vat: money(line.vatAmountMinor, line.vatAmountCurrency),
    gross: money(line.grossAmountMinor, line.grossAmountCurrency),
    ...(booked.get(line.id) ?? { expenseAccount: null, taxRate: null, dimensions: [] }),
  }));
  const lineIds = lines.map((line) => line.id);
  const files = db
    .select()
    .from(expenseFiles)
    .where(
      lineIds.length > 0
        ? or(eq(expenseFiles.expenseId, expenseId), inArray(expenseFiles.expenseLineId, lineIds))
        : eq(expenseFiles.expenseId, expenseId),
    )
    .orderBy(asc(expenseFiles.createTime), asc(expenseFiles.id))
    .all()
    .filter((file) => file.deletedAt === null)
    .map((file) => ({
      id: file.id,
      expenseId: file.expenseId,
      expenseLineId: file.expenseLineId,
      name: file.name,
      mimeType: file.mimeType,
      size: file.size,
      downloaded: file.localPath !== null && file.localSha256 !== null && file.localSha256 === file.sha256,
    }));
  const bankTransactionId = link?.bankTransactionId ?? null;
  return { bankTransactionId, bankTransaction: linkedTransaction(cache, bankTransactionId), lines, files };
}

/**
 * The transaction an expense documents, if the offline copy has it (deleted ones included),
 * found as the transaction search finds an id (whatever its case).
 */
function linkedTransaction(cache: CacheDb, id: string | null): LinkedTransaction | null {
  if (id === null) return null;
  const [row] = searchTransactions(cache, {
    filters: { ids: [id], includeDeleted: true },
    pagination: { page: 1, pageSize: 1 },
    withTotals: false,
  }).rows;
  if (!row) return null;
  const { bookingDate, counterparty, amount, deletedAt } = row;
  return { id: row.id, bookingDate, counterparty, amount, deletedAt };
}

/**
 * Where each of `lineIds` is booked: its expense account, tax rate and dimension items, named
 * from the cache's reference lists (null names for a record the cache does not know). Two
 * queries for any number of lines: the detail asks for one expense's, the CSV export a batch's.
 */
export function lineBookings(cache: CacheDb, lineIds: readonly string[]): Map<string, LineBooking> {
  const ids = { ids: JSON.stringify(lineIds) };
  const lines = prepared(
    cache.sqlite,
    `SELECT l.id AS id, l.expense_account_id AS accountId, a.code AS accountNumber, a.name AS accountName,
       l.tax_rate_id AS rateId, t.name AS rateName, t.rate AS rate
     FROM expense_lines l
     LEFT JOIN expense_accounts a ON a.id = l.expense_account_id
     LEFT JOIN tax_rates t ON t.id = l.tax_rate_id
     WHERE l.id IN (SELECT value FROM json_each(@ids))`,
  ).all(ids) as Array<{
    id: string;
    accountId: string | null;
    accountNumber: string | null;
    accountName: string | null;
    rateId: string | null;
    rateName: string | null;
    rate: string | null;
  }>;
  const dimensions = prepared(
    cache.sqlite,
    `SELECT ld.line_id AS lineId, ld.dimension_id AS dimensionId, d.name AS dimensionName,
       ld.dimension_item_id AS itemId, i.code AS itemCode, i.name AS itemName
     FROM expense_line_dimensions ld
     LEFT JOIN dimensions d ON d.id = ld.dimension_id
     LEFT JOIN dimension_items i ON i.id = ld.dimension_item_id
     WHERE ld.line_id IN (SELECT value FROM json_each(@ids)) ORDER BY ld.line_id, ld.position`,
  ).all(ids) as Array<LineBooking['dimensions'][number] & { lineId: string }>;
  const byLine = new Map<string, LineBooking>(
    lines.map((line) => [
      line.id,
      {
        expenseAccount:
          line.accountId === null
            ? null
            : { id: line.accountId, number: line.accountNumber, name: line.accountName },
        taxRate: line.rateId === null ? null : { id: line.rateId, name: line.rateName, rate: line.rate },
        dimensions: [],
      },
    ]),
  );
  for (const { lineId, ...dimension } of dimensions) byLine.get(lineId)?.dimensions.push(dimension);
  return byLine;
}

function descriptionOf(raw: string): string | null {
  try {
    const value = (JSON.parse(raw) as { description?: unknown }).description;
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function expenseDetail(cache: CacheDb, id: string): ExpenseDetail {
  const [detail] = expenseDetails(cache, [id]);
  if (!detail)
    throw new AppError('NOT_FOUND', `Expense ${id} is not in the offline copy. Sync, then try again.`);
  return detail;
}
