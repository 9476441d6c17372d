import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatAmount } from '../../src-shared/money';
import { csvText } from '../export/csv';
import type { ManifestRow } from './queue';

/**
 * The manifest of a bulk download: one CSV row per file of the job, mapping the file in the
 * folder to its expense and bank transaction, for the auditor who receives the folder.
 * UTF-8 with a byte-order mark, comma-separated, CRLF, amounts exact from minor units with a
 * dot, text guarded against spreadsheet formulas (same rules as the transaction export).
 */

/**
 * The manifest's columns, and how each field of a ManifestRow (queue.ts, same order) is
 * written: text (guarded and quoted), a number or code as it is, or the amount (from the
 * row's minor units and currency).
 */
const FIELDS = [
  ['file', 'text'],
  ['status', 'plain'],
  ['file_id', 'text'],
  ['original_name', 'text'],
  ['mime_type', 'text'],
  ['size', 'plain'],
  ['sha256', 'text'],
  ['expense_id', 'text'],
  ['expense_line_id', 'text'],
  ['transaction_id', 'text'],
  ['booking_date', 'plain'],
  ['counterparty', 'text'],
  ['amount', 'amount'],
  ['currency', 'plain'],
  ['account', 'text'],
  ['supplier', 'text'],
  ['error', 'text'],
] as const satisfies ReadonlyArray<readonly [string, 'text' | 'plain' | 'amount']>;

export const MANIFEST_COLUMNS = FIELDS.map(([column]) => column);
const KINDS = FIELDS.map(([, kind]) => kind);
/** Where a row holds the amount's currency. */
const CURRENCY = MANIFEST_COLUMNS.indexOf('currency');

function line(row: ManifestRow): string {
  let out = '';
  for (let i = 0; i < KINDS.length; i += 1) {
    if (i > 0) out += ',';
    const value = row[i];
    if (value === null) continue;
    const kind = KINDS[i];
    if (kind === 'text') out += csvText(value as string, ',');
    else if (kind === 'plain') out += String(value);
    else if (row[CURRENCY]) out += formatAmount(value as number, row[CURRENCY] as string);
  }
  return out;
}

/** Writes (or rewrites, after a retry) the manifest beside the files, atomically. */
export async function writeManifest(destination: string, name: string, rows: ManifestRow[]): Promise<string> {
  const target = path.join(destination, name);
  const temporary = path.join(destination, `.${name}.${randomBytes(4).toString('hex')}.partial`);
  let body = `\uFEFF${MANIFEST_COLUMNS.join(',')}\r\n`;
  for (const row of rows) body += `${line(row)}\r\n`;
  try {
    await writeFile(temporary, body, { encoding: 'utf8', flush: true });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return target;
}
