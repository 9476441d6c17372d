import { asc, eq, inArray, or, sql } from 'drizzle-orm';
import { AppError } from '../../src-shared/errors';
import type { ExpenseDetail, ExpenseLineSummary } from '../../src-shared/details';
import type { MinorAmount } from '../../src-shared/search';
import { searchExpenses } from '../search';
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
    .select({ bankTransactionId: sql<string | null>`json_extract(${expenses.raw}, '$.bankTransactionId')` })
    .from(expenses)
    .where(eq(expenses.id, expenseId))
    .get();
  const lines: ExpenseLineSummary[] = db
    .select()
    .from(expenseLines)
    .where(eq(expenseLines.expenseId, expenseId))
    .orderBy(asc(expenseLines.position))
    .all()
    .map((line) => ({
      id: line.id,
      type: line.type,
      description: descriptionOf(line.raw),
      parentLineId: line.parentLineId,
      net: money(line.netAmountMinor, line.netAmountCurrency),
      vat: money(line.vatAmountMinor, line.vatAmountCurrency),
      gross: money(line.grossAmountMinor, line.grossAmountCurrency),
      ...booking(cache, line),
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
  return { bankTransactionId: link?.bankTransactionId ?? null, lines, files };
}

/** A line's expense account, tax rate and dimension items, with their names from the cache. */
function booking(
  cache: CacheDb,
  line: { id: string; expenseAccountId: string | null; taxRateId: string | null },
): Pick<ExpenseLineSummary, 'expenseAccount' | 'taxRate' | 'dimensions'> {
  const account =
    line.expenseAccountId === null
      ? null
      : (prepared(cache.sqlite, 'SELECT code AS number, name FROM expense_accounts WHERE id = ?').get(
          line.expenseAccountId,
        ) as { number: string | null; name: string | null } | undefined);
  const rate =
    line.taxRateId === null
      ? null
      : (prepared(cache.sqlite, 'SELECT name, rate FROM tax_rates WHERE id = ?').get(line.taxRateId) as
          { name: string | null; rate: string | null } | undefined);
  const dimensions = prepared(
    cache.sqlite,
    `SELECT ld.dimension_id AS dimensionId, d.name AS dimensionName, ld.dimension_item_id AS itemId,
       i.code AS itemCode, i.name AS itemName
     FROM expense_line_dimensions ld
     LEFT JOIN dimensions d ON d.id = ld.dimension_id
     LEFT JOIN dimension_items i ON i.id = ld.dimension_item_id
     WHERE ld.line_id = ? ORDER BY ld.position`,
  ).all(line.id) as ExpenseLineSummary['dimensions'];
  return {
    expenseAccount:
      line.expenseAccountId === null
        ? null
        : { id: line.expenseAccountId, number: account?.number ?? null, name: account?.name ?? null },
    taxRate:
      line.taxRateId === null
        ? null
        : { id: line.taxRateId, name: rate?.name ?? null, rate: rate?.rate ?? null },
    dimensions,
  };
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
