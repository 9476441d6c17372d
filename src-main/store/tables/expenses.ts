import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { deletedAt, flagCheck, integerCheck, jsonCheck, moneyChecks, recordColumns } from './columns';

/**
 * `GET /v1/expenses`, pulled by `update_time__gte` since the last high-water mark, hence the
 * `(update_time, id)` index. The merchant and export metadata objects are flattened into
 * columns because the review screens filter on them, and the bank transaction the expense
 * documents because a transaction's pane and a download look it up; everything else stays in
 * `raw`.
 */
export const expenses = sqliteTable(
  'expenses',
  {
    id: text('id').primaryKey(),
    type: text('type'),
    subType: text('sub_type'),
    status: text('status'),
    supplierId: text('supplier_id'),
    /** The bank transaction the expense documents (`bankTransactionId`; also in `raw`). */
    bankTransactionId: text('bank_transaction_id'),
    description: text('description'),
    bookingText: text('booking_text'),
    amountMinor: integer('amount_minor'),
    amountCurrency: text('amount_currency'),
    homeAmountMinor: integer('home_amount_minor'),
    homeAmountCurrency: text('home_amount_currency'),
    expenseTime: text('expense_time'),
    merchantName: text('merchant_name'),
    merchantMcc: text('merchant_mcc'),
    merchantAtm: integer('merchant_atm', { mode: 'boolean' }),
    firstExportTime: text('first_export_time'),
    lastExportTime: text('last_export_time'),
    createTime: text('create_time'),
    updateTime: text('update_time'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  (t) => [
    ...moneyChecks('expenses', 'amount', { nullable: true }),
    ...moneyChecks('expenses', 'home_amount', { nullable: true }),
    flagCheck('expenses', 'merchant_atm'),
    jsonCheck('expenses', 'raw'),
    index('expenses_update_time_idx').on(t.updateTime, t.id),
    index('expenses_expense_time_idx').on(t.expenseTime, t.id),
    index('expenses_supplier_idx').on(t.supplierId),
    index('expenses_bank_transaction_idx')
      .on(t.bankTransactionId)
      .where(sql`"bank_transaction_id" IS NOT NULL`),
    index('expenses_status_idx').on(t.status, t.expenseTime, t.id),
  ],
);

/**
 * Expense lines, in API order. They belong to their expense (cascade): sync replaces the
 * whole set when it writes the expense. `parent_line_id` links a
 * `REIMBURSEMENT_INVOICE_LINE_SPLIT` to its `REIMBURSEMENT_INVOICE_LINE` (no foreign key: the
 * API does not promise the parent comes first). The deprecated `costCenterId` and
 * `costCarrierId` have no columns: they are exposed as dimensions and kept in `raw`.
 */
export const expenseLines = sqliteTable(
  'expense_lines',
  {
    id: text('id').primaryKey(),
    expenseId: text('expense_id')
      .notNull()
      .references(() => expenses.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    type: text('type'),
    subType: text('sub_type'),
    parentLineId: text('parent_line_id'),
    expenseAccountId: text('expense_account_id'),
    taxRateId: text('tax_rate_id'),
    netAmountMinor: integer('net_amount_minor'),
    netAmountCurrency: text('net_amount_currency'),
    grossAmountMinor: integer('gross_amount_minor'),
    grossAmountCurrency: text('gross_amount_currency'),
    vatAmountMinor: integer('vat_amount_minor'),
    vatAmountCurrency: text('vat_amount_currency'),
    homeAmountMinor: integer('home_amount_minor'),
    homeAmountCurrency: text('home_amount_currency'),
    raw: text('raw').notNull(),
  },
  (t) => [
    ...moneyChecks('expense_lines', 'net_amount', { nullable: true }),
    ...moneyChecks('expense_lines', 'gross_amount', { nullable: true }),
    ...moneyChecks('expense_lines', 'vat_amount', { nullable: true }),
    ...moneyChecks('expense_lines', 'home_amount', { nullable: true }),
    integerCheck('expense_lines', 'position'),
    jsonCheck('expense_lines', 'raw'),
    index('expense_lines_expense_idx').on(t.expenseId, t.position),
    index('expense_lines_parent_idx').on(t.parentLineId),
    index('expense_lines_account_idx').on(t.expenseAccountId),
    index('expense_lines_tax_rate_idx').on(t.taxRateId),
  ],
);

/**
 * The `dimensions` array of a line (`{ dimensionId, dimensionItemId }`), one row each, so
 * "all lines booked on cost center X" is an index lookup instead of a JSON scan. Cost center
 * and cost carrier appear here under their fixed dimension ids.
 */
export const expenseLineDimensions = sqliteTable(
  'expense_line_dimensions',
  {
    lineId: text('line_id')
      .notNull()
      .references(() => expenseLines.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    dimensionId: text('dimension_id').notNull(),
    dimensionItemId: text('dimension_item_id'),
  },
  (t) => [
    primaryKey({ columns: [t.lineId, t.position] }),
    integerCheck('expense_line_dimensions', 'position'),
    index('expense_line_dimensions_item_idx').on(t.dimensionId, t.dimensionItemId),
  ],
);

/**
 * Expense file metadata (`POST /v1/files/search-query`) plus the local copy's state, which
 * belongs to the downloader: `local_path` is where the bytes are, `local_sha256` what they
 * hashed to when written (equal to `sha256` when the copy is good), `downloaded_at` when.
 * No foreign key to expenses: a downloaded receipt must outlive its expense vanishing.
 */
export const expenseFiles = sqliteTable(
  'expense_files',
  {
    id: text('id').primaryKey(),
    expenseId: text('expense_id'),
    expenseLineId: text('expense_line_id'),
    name: text('name'),
    mimeType: text('mime_type'),
    size: integer('size'),
    sha256: text('sha256'),
    createTime: text('create_time'),
    ...recordColumns(),
    deletedAt: deletedAt(),
    localPath: text('local_path'),
    localSha256: text('local_sha256'),
    downloadedAt: text('downloaded_at'),
  },
  (t) => [
    integerCheck('expense_files', 'size'),
    jsonCheck('expense_files', 'raw'),
    index('expense_files_expense_idx').on(t.expenseId),
    index('expense_files_line_idx').on(t.expenseLineId),
  ],
);
