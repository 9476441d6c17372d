import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatAmount } from '../../src-shared/money';
import { csvText } from '../export/csv';
import type { ItemRow } from './queue';

/**
 * The manifest of a bulk download: one CSV row per file of the job, mapping the file in the
 * folder to its expense and bank transaction, for the auditor who receives the folder.
 * UTF-8 with a byte-order mark, comma-separated, CRLF, amounts exact from minor units with a
 * dot, text guarded against spreadsheet formulas (same rules as the transaction export).
 */

export const MANIFEST_COLUMNS = [
  'file',
  'status',
  'file_id',
  'original_name',
  'mime_type',
  'size',
  'sha256',
  'expense_id',
  'expense_line_id',
  'transaction_id',
  'booking_date',
  'counterparty',
  'amount',
  'currency',
  'account',
  'supplier',
  'error',
] as const;

function line(item: ItemRow): string {
  const text = (value: string | null) => csvText(value, ',');
  return [
    text(item.relativePath),
    item.status,
    text(item.fileId),
    text(item.originalName),
    text(item.mimeType),
    item.size === null ? '' : String(item.size),
    text(item.sha256),
    text(item.expenseId),
    text(item.expenseLineId),
    text(item.transactionId),
    item.bookingDate ?? '',
    text(item.counterparty),
    item.amountMinor !== null && item.amountCurrency
      ? formatAmount(item.amountMinor, item.amountCurrency)
      : '',
    item.amountCurrency ?? '',
    text(item.account),
    text(item.supplier),
    text(item.error),
  ].join(',');
}

/** Writes (or rewrites, after a retry) the manifest beside the files, atomically. */
export async function writeManifest(destination: string, name: string, items: ItemRow[]): Promise<string> {
  const target = path.join(destination, name);
  const temporary = path.join(destination, `.${name}.${randomBytes(4).toString('hex')}.partial`);
  const body = `\uFEFF${MANIFEST_COLUMNS.join(',')}\r\n${items.map((item) => `${line(item)}\r\n`).join('')}`;
  try {
    await writeFile(temporary, body, { encoding: 'utf8', flush: true });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return target;
}
