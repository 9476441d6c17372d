import { accountText, dimensionText } from '../../src-shared/details';
import type { CsvFormat, CsvFormatInput } from '../../src-shared/export';
import { AppError } from '../../src-shared/errors';
import { formatAmount } from '../../src-shared/money';
import type {
  ExpenseRow,
  ExpenseSearchInput,
  ReviewState,
  TransactionRow,
  TransactionSearchInput,
} from '../../src-shared/search';
import { ExpenseSearch, TransactionSearch } from '../../src-shared/search';
import { lineBookings } from '../details/expenses';
import { expenseIds, expensesById } from '../search/expenses';
import { orderBy } from '../search/transaction-page';
import { prepared } from '../search/sql';
import { transactionWhere } from '../search/transaction-where';
import { transactionsByRowId } from '../search/transactions';
import type { CacheDb } from '../store';
import {
  checkTarget,
  csvPieces,
  writeCsv,
  type CsvExportOptions,
  type CsvExportResult,
  type CsvStreamOptions,
} from './csv-write';

export {
  checkTarget,
  type CsvExportOptions,
  type CsvExportResult,
  type CsvSink,
  type CsvStreamOptions,
} from './csv-write';

/**
 * CSV of a whole transaction or expense search result with its review columns, for Excel and
 * for auditors (docs/search-and-review.md, "CSV export"):
 *
 * - UTF-8 with a byte-order mark, so Excel reads umlauts right; CRLF line ends (RFC 4180).
 * - Delimiter and decimal separator follow the user's locale: where the decimal separator is
 *   a comma (German, French, …) the delimiter is `;`, as Excel there expects.
 * - Dates as ISO 8601; amounts exact from integer minor units, with no grouping and the
 *   currency in its own column, so a spreadsheet reads them as numbers.
 * - Text that a spreadsheet would run as a formula (starting with = + - @, tab or CR) is
 *   prefixed with `'`; amounts are numbers and are never touched.
 * - Written to a temporary file beside the target and renamed when complete, so a failed or
 *   cancelled export never leaves a half-written file under the chosen name.
 */

/** The review state and the deletion mark, last in every export. */
const REVIEW_CSV_COLUMNS = [
  'reviewed',
  'reviewed_at',
  'flagged',
  'flag_reason',
  'note',
  'tags',
  'deleted_at',
] as const;

export const TRANSACTION_CSV_COLUMNS = [
  'id',
  'booking_date',
  'value_date',
  'account_id',
  'account_number',
  'counterparty',
  'description',
  'type',
  'amount',
  'currency',
  'matched',
  'group_id',
  ...REVIEW_CSV_COLUMNS,
] as const;

/** The separators a locale's spreadsheet expects; explicit choices win. */
export function csvFormat(input: CsvFormatInput = {}): CsvFormat {
  const locale = input.locale ?? 'en-US';
  let decimal = '.';
  try {
    decimal =
      new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
  } catch {
    throw new AppError('VALIDATION_ERROR', `"${locale}" is not a locale.`, 'locale');
  }
  const decimalSeparator = input.decimalSeparator ?? (decimal === ',' ? ',' : '.');
  const delimiter = input.delimiter ?? (decimalSeparator === ',' ? ';' : ',');
  if (delimiter === decimalSeparator) {
    throw new AppError(
      'VALIDATION_ERROR',
      'The delimiter and the decimal separator must differ.',
      'delimiter',
    );
  }
  return { delimiter, decimalSeparator };
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** Per delimiter: whether a field needs the formula guard or quotes at all (most do not). */
const NEEDS_CARE: Record<CsvFormat['delimiter'], RegExp> = {
  ',': /^[=+\-@\t\r]|[",\r\n]/,
  ';': /^[=+\-@\t\r]|[";\r\n]/,
  '\t': /^[=+\-@\t\r]|["\t\r\n]/,
};

/** One text field: formula guard, then RFC 4180 quoting when needed. */
export function csvText(value: string | null, delimiter: string): string {
  if (value === null || value === '') return '';
  // One test for the common case: a field written as it is.
  const care = NEEDS_CARE[delimiter as CsvFormat['delimiter']];
  if (care && !care.test(value)) return value;
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return safe.includes(delimiter) || /["\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function amountField(minor: number, currency: string, decimalSeparator: string): string {
  const text = formatAmount(minor, currency);
  return decimalSeparator === '.' ? text : text.replace('.', decimalSeparator);
}

/** The fields of REVIEW_CSV_COLUMNS. */
function reviewFields(
  review: ReviewState,
  deletedAt: string | null,
  text: (value: string | null) => string,
): string[] {
  return [
    String(review.reviewedAt !== null),
    review.reviewedAt ?? '',
    String(review.flagged),
    text(review.flagReason),
    text(review.note),
    text(review.tags.join(', ')),
    deletedAt ?? '',
  ];
}

function transactionLine(row: TransactionRow, format: CsvFormat): string {
  const { delimiter } = format;
  const text = (value: string | null) => csvText(value, delimiter);
  return [
    text(row.id),
    row.bookingDate,
    row.valueDate ?? '',
    text(row.bankAccountId),
    text(row.bankAccountNumber),
    text(row.counterparty),
    text(row.description),
    text(row.transactionType),
    amountField(row.amount.minor, row.amount.currency, format.decimalSeparator),
    row.amount.currency,
    String(row.matched),
    text(row.groupId),
    ...reviewFields(row.review, row.deletedAt, text),
  ].join(delimiter);
}

/**
 * The rows a batch may write: the list is fixed when the export starts, but a sync may mark
 * some of them deleted before their batch is read (a trailing window re-read that no longer
 * lists them). A search that leaves deleted rows out leaves those out too, as it leaves out
 * rows gone from the cache.
 */
function liveUnless(includeDeleted: boolean | undefined) {
  return (row: { deletedAt: string | null }) => includeDeleted === true || row.deletedAt === null;
}

/**
 * Writes every row of the search (filters and order; the page is ignored) as CSV. The
 * order is fixed once, from the ids the search matches when the export starts; rows are
 * then read a thousand at a time, yielding between batches so the app stays responsive.
 */
export async function exportTransactionsCsv(
  cache: CacheDb,
  query: TransactionSearchInput,
  options: CsvExportOptions,
): Promise<CsvExportResult> {
  checkTarget(options.file, options.overwrite ?? false);
  const { columns, keys, lines } = transactionCsv(cache, query, options.format);
  return writeCsv(options, columns, keys, lines);
}

/** The same CSV into a sink (`satchel export --out -`). */
export function streamTransactionsCsv(
  cache: CacheDb,
  query: TransactionSearchInput,
  options: CsvStreamOptions,
): Promise<{ rows: number; bytes: number }> {
  const { columns, keys, lines } = transactionCsv(cache, query, options.format);
  return csvPieces(options, columns, keys, lines, options.sink, 'The export was interrupted.');
}

function transactionCsv(cache: CacheDb, query: TransactionSearchInput, format: CsvFormat) {
  const search = TransactionSearch.parse(query);
  const where = transactionWhere(cache.sqlite, search.filters);
  const ids = prepared(
    cache.sqlite,
    `SELECT t.row_id FROM bank_transactions t WHERE ${where.sql} ORDER BY ${orderBy(search.sorting)}`,
  )
    .pluck()
    .all(where.params) as number[];
  const wanted = liveUnless(search.filters.includeDeleted);
  return {
    columns: TRANSACTION_CSV_COLUMNS,
    keys: ids,
    lines: (batch: number[]) =>
      transactionsByRowId(cache, batch)
        .filter(wanted)
        .map((row) => transactionLine(row, format)),
  };
}

export const EXPENSE_CSV_COLUMNS = [
  'id',
  'expense_time',
  'type',
  'status',
  'supplier_id',
  'supplier',
  'merchant',
  'description',
  'booking_text',
  'amount',
  'currency',
  'files',
  'expense_accounts',
  'booked_on',
  ...REVIEW_CSV_COLUMNS,
] as const;

interface Booking {
  /** The lines' expense accounts, each once, in line order: "4930 Office supplies | 4964 …". */
  accounts: string;
  /** The lines' dimension items, each once: "Cost center: 1000 Management | Project: …". */
  bookedOn: string;
}

/** Where the lines of a batch of expenses are booked, named as the app's detail names them. */
function bookings(cache: CacheDb, ids: readonly string[]): Map<string, Booking> {
  const lines = prepared(
    cache.sqlite,
    `SELECT id, expense_id AS expenseId FROM expense_lines
     WHERE expense_id IN (SELECT value FROM json_each(@ids)) ORDER BY expense_id, position`,
  ).all({ ids: JSON.stringify(ids) }) as Array<{ id: string; expenseId: string }>;
  const booked = lineBookings(
    cache,
    lines.map((line) => line.id),
  );
  const texts = new Map<string, { accounts: Set<string>; items: Set<string> }>();
  for (const line of lines) {
    const booking = booked.get(line.id);
    if (!booking) continue;
    const own = texts.get(line.expenseId) ?? { accounts: new Set(), items: new Set() };
    texts.set(line.expenseId, own);
    if (booking.expenseAccount) own.accounts.add(accountText(booking.expenseAccount));
    for (const dimension of booking.dimensions) {
      const text = dimensionText(dimension);
      if (text) own.items.add(text);
    }
  }
  return new Map(
    [...texts].map(([id, own]) => [
      id,
      { accounts: [...own.accounts].join(' | '), bookedOn: [...own.items].join(' | ') },
    ]),
  );
}

function expenseLine(row: ExpenseRow, booking: Booking | undefined, format: CsvFormat): string {
  const { delimiter } = format;
  const text = (value: string | null) => csvText(value, delimiter);
  return [
    text(row.id),
    row.expenseTime ?? '',
    text(row.type),
    text(row.status),
    text(row.supplierId),
    text(row.supplierName),
    text(row.merchantName),
    text(row.description),
    text(row.bookingText),
    row.amount ? amountField(row.amount.minor, row.amount.currency, format.decimalSeparator) : '',
    row.amount?.currency ?? '',
    String(row.fileCount),
    text(booking?.accounts ?? ''),
    text(booking?.bookedOn ?? ''),
    ...reviewFields(row.review, row.deletedAt, text),
  ].join(delimiter);
}

/** The same for an expense search: every expense it finds, in its order, with its review. */
export async function exportExpensesCsv(
  cache: CacheDb,
  query: ExpenseSearchInput,
  options: CsvExportOptions,
): Promise<CsvExportResult> {
  checkTarget(options.file, options.overwrite ?? false);
  const { columns, keys, lines } = expenseCsv(cache, query, options.format);
  return writeCsv(options, columns, keys, lines);
}

/** The same CSV into a sink (`satchel export expenses --out -`). */
export function streamExpensesCsv(
  cache: CacheDb,
  query: ExpenseSearchInput,
  options: CsvStreamOptions,
): Promise<{ rows: number; bytes: number }> {
  const { columns, keys, lines } = expenseCsv(cache, query, options.format);
  return csvPieces(options, columns, keys, lines, options.sink, 'The export was interrupted.');
}

function expenseCsv(cache: CacheDb, query: ExpenseSearchInput, format: CsvFormat) {
  const search = ExpenseSearch.parse(query);
  const ids = expenseIds(cache, search.filters, search.sorting);
  const wanted = liveUnless(search.filters.includeDeleted);
  return {
    columns: EXPENSE_CSV_COLUMNS,
    keys: ids,
    lines: (batch: string[]) => {
      const booked = bookings(cache, batch);
      return expensesById(cache, batch)
        .filter(wanted)
        .map((row) => expenseLine(row, booked.get(row.id), format));
    },
  };
}
