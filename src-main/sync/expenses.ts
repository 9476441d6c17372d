import type Database from 'better-sqlite3';
import { expenseFiles, expenseLineDimensions, expenseLines, expenses } from '../store';
import { pullSinceHighWater } from './high-water';
import type { ResourceContext, ResourceSync } from './types';
import { WireExpense, WireExpenseFile, hasMorePages, listEnvelope } from './wire';
import { deleteChildren, insertRows, money, upsertRows } from './write';

/**
 * Expenses by `update_time__gte`, with their lines and line dimensions, and the file metadata
 * of every new or changed expense (line files included) read before the page is committed,
 * so an expense and its files arrive together or not at all.
 */

const FILE_PAGE_SIZE = 100;

async function filesOf(context: ResourceContext, expenseIds: string[]) {
  const files: Array<{ record: WireExpenseFile; raw: unknown }> = [];
  if (expenseIds.length === 0) return files;
  for (let page = 1; ; page += 1) {
    const answer = await context.client.request({
      method: 'POST',
      path: '/v1/files/search-query',
      body: { expenseIds, pagination: { page, pageSize: FILE_PAGE_SIZE } },
      schema: listEnvelope,
      signal: context.signal,
    });
    for (const raw of answer.data) {
      const record = context.parseRecord(WireExpenseFile, raw);
      if (record) files.push({ record, raw });
    }
    if (!hasMorePages(answer, FILE_PAGE_SIZE)) return files;
  }
}

function writeExpenses(
  db: Database.Database,
  records: Array<{ record: WireExpense; raw: unknown }>,
  syncedAt: string,
): number {
  const rows = records.map(({ record, raw }) => {
    const amount = money(record.amount);
    const home = money(record.homeAmount);
    const merchant = record.expenseMetadata?.merchant;
    return {
      id: record.id,
      type: record.type ?? null,
      subType: record.subType ?? null,
      status: record.status ?? null,
      supplierId: record.supplierId ?? null,
      bankTransactionId: record.bankTransactionId ?? null,
      description: record.description ?? null,
      bookingText: record.bookingText ?? null,
      amountMinor: amount.minor,
      amountCurrency: amount.currency,
      homeAmountMinor: home.minor,
      homeAmountCurrency: home.currency,
      expenseTime: record.expenseTime ?? null,
      merchantName: merchant?.name ?? null,
      merchantMcc: merchant?.mcc ?? null,
      merchantAtm: merchant?.atm ?? null,
      firstExportTime: record.exportMetadata?.firstExportTime ?? null,
      lastExportTime: record.exportMetadata?.lastExportTime ?? null,
      createTime: record.createTime ?? null,
      updateTime: record.updateTime ?? null,
      raw: JSON.stringify(raw),
      syncedAt,
      deletedAt: null,
    };
  });
  const written = upsertRows(db, expenses, rows);
  const ids = records.map(({ record }) => record.id);
  // Lines (and their dimensions, by cascade) are replaced as a whole set per expense.
  deleteChildren(db, expenseLines, 'expenseId', ids);
  const lines = records.flatMap(({ record }) =>
    (record.lines ?? []).map((line, position) => {
      const [net, gross, vat, home] = [line.netAmount, line.grossAmount, line.vatAmount, line.homeAmount].map(
        money,
      );
      return {
        id: line.id,
        expenseId: record.id,
        position,
        type: line.type ?? null,
        subType: line.subType ?? null,
        parentLineId: line.parentLineId ?? null,
        expenseAccountId: line.expenseAccountId ?? null,
        taxRateId: line.taxRateId ?? null,
        netAmountMinor: net?.minor ?? null,
        netAmountCurrency: net?.currency ?? null,
        grossAmountMinor: gross?.minor ?? null,
        grossAmountCurrency: gross?.currency ?? null,
        vatAmountMinor: vat?.minor ?? null,
        vatAmountCurrency: vat?.currency ?? null,
        homeAmountMinor: home?.minor ?? null,
        homeAmountCurrency: home?.currency ?? null,
        raw: JSON.stringify(line),
      };
    }),
  );
  upsertRows(db, expenseLines, lines);
  const dimensions = records.flatMap(({ record }) =>
    (record.lines ?? []).flatMap((line) =>
      (line.dimensions ?? []).map((dimension, position) => ({
        lineId: line.id,
        position,
        dimensionId: dimension.dimensionId,
        dimensionItemId: dimension.dimensionItemId ?? null,
      })),
    ),
  );
  insertRows(db, expenseLineDimensions, dimensions);
  return written;
}

export const expensesSync: ResourceSync = {
  resource: 'expenses',
  pull: (context) =>
    pullSinceHighWater(context, {
      path: '/v1/expenses',
      schema: WireExpense,
      updateTime: (record) => record.updateTime,
      write: writeExpenses,
      async enrich(records) {
        const files = await filesOf(
          context,
          records.map((record) => record.id),
        );
        return (db) => {
          const syncedAt = context.now().toISOString();
          upsertRows(
            db,
            expenseFiles,
            files.map(({ record, raw }) => ({
              id: record.id,
              expenseId: record.expenseId ?? null,
              expenseLineId: record.expenseLineId ?? null,
              name: record.name ?? null,
              mimeType: record.mimeType ?? null,
              size: record.size ?? null,
              sha256: record.sha256 ?? null,
              createTime: record.createTime ?? null,
              raw: JSON.stringify(raw),
              syncedAt,
              deletedAt: null,
            })),
          );
        };
      },
    }),
};
