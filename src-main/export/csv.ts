import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
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
import { removeStaleTemporaries, temporaryBeside, writeFailure } from '../folders';

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

export interface CsvExportOptions {
  /** Absolute path of the CSV to write. */
  file: string;
  format: CsvFormat;
  /** Replace an existing file (after the user confirmed); refused otherwise. */
  overwrite?: boolean;
  signal?: AbortSignal;
  onProgress?: (written: number, total: number) => void;
}

export interface CsvExportResult {
  file: string;
  rows: number;
  bytes: number;
}

const BATCH = 1000;
const BOM = '\uFEFF';

export function checkTarget(file: string, overwrite: boolean): void {
  if (!path.isAbsolute(file))
    throw new AppError('VALIDATION_ERROR', 'Choose a full path for the export.', 'file');
  let directory;
  try {
    directory = statSync(path.dirname(file));
  } catch {
    throw new AppError('VALIDATION_ERROR', `The folder ${path.dirname(file)} does not exist.`, 'file');
  }
  if (!directory.isDirectory())
    throw new AppError('VALIDATION_ERROR', `${path.dirname(file)} is not a folder.`, 'file');
  let existing;
  try {
    existing = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    throw writeFailure(file, error); // a name too long for the file system, say
  }
  if (existing?.isDirectory()) throw new AppError('VALIDATION_ERROR', `${file} is a folder.`, 'file');
  if (existing && !overwrite)
    throw new AppError(
      'ALREADY_EXISTS',
      `${file} already exists; choose another name or replace it.`,
      'file',
    );
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
  const search = TransactionSearch.parse(query);
  checkTarget(options.file, options.overwrite ?? false);
  const where = transactionWhere(cache.sqlite, search.filters);
  const ids = prepared(
    cache.sqlite,
    `SELECT t.row_id FROM bank_transactions t WHERE ${where.sql} ORDER BY ${orderBy(search.sorting)}`,
  )
    .pluck()
    .all(where.params) as number[];
  const wanted = liveUnless(search.filters.includeDeleted);
  return writeCsv(options, TRANSACTION_CSV_COLUMNS, ids, (batch) =>
    transactionsByRowId(cache, batch)
      .filter(wanted)
      .map((row) => transactionLine(row, options.format)),
  );
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
  const search = ExpenseSearch.parse(query);
  checkTarget(options.file, options.overwrite ?? false);
  const ids = expenseIds(cache, search.filters, search.sorting);
  const wanted = liveUnless(search.filters.includeDeleted);
  return writeCsv(options, EXPENSE_CSV_COLUMNS, ids, (batch) => {
    const booked = bookings(cache, batch);
    return expensesById(cache, batch)
      .filter(wanted)
      .map((row) => expenseLine(row, booked.get(row.id), options.format));
  });
}

/**
 * Writes the header, then the lines of `keys` a batch at a time (`lines` reads a batch's
 * records; ones gone or deleted since the export started are left out), to a temporary file beside the
 * target, synced and renamed over it when complete.
 */
async function writeCsv<K>(
  options: CsvExportOptions,
  columns: readonly string[],
  keys: K[],
  lines: (batch: K[]) => string[],
): Promise<CsvExportResult> {
  // What an export killed here earlier left behind goes now (a day old, of our naming only).
  removeStaleTemporaries(path.dirname(options.file));
  const temporary = temporaryBeside(options.file);
  let fd: number;
  try {
    fd = openSync(temporary, 'wx');
  } catch (error) {
    throw writeFailure(options.file, error);
  }
  let bytes = 0;
  // A write may take only part of what it is given (a disk filling up, a file size limit)
  // without failing; the next one then says why. Written to the end, or failed.
  const write = (text: string) => {
    const buffer = Buffer.from(text, 'utf8');
    for (let done = 0; done < buffer.length;) {
      const taken = writeSync(fd, buffer, done);
      if (taken <= 0) throw Object.assign(new Error('no space left'), { code: 'ENOSPC', syscall: 'write' });
      done += taken;
    }
    bytes += buffer.length;
  };
  try {
    write(`${BOM}${columns.join(options.format.delimiter)}\r\n`);
    let written = 0;
    for (let start = 0; start < keys.length; start += BATCH) {
      if (options.signal?.aborted)
        throw new AppError('CANCELLED', 'The export was cancelled; no file was written.');
      const batch = lines(keys.slice(start, start + BATCH));
      if (batch.length > 0) write(batch.map((line) => `${line}\r\n`).join(''));
      written += batch.length;
      options.onProgress?.(written, keys.length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    fsyncSync(fd);
    closeSync(fd);
    if (options.signal?.aborted)
      throw new AppError('CANCELLED', 'The export was cancelled; no file was written.');
    checkTarget(options.file, options.overwrite ?? false);
    renameSync(temporary, options.file);
    return { file: options.file, rows: written, bytes };
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temporary, { force: true });
    throw writeFailure(options.file, error);
  }
}
