import { crc32, deflateSync } from 'node:zlib';
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';
import type { Core } from '../../src-main/core';
import type { Expense } from '../../src-shared/api';
import type { AppPage } from './harness';

/**
 * What the preview tests share: receipts made to order (PDFs of several pages, PDFs that are
 * not readable) and the steps to a transaction's pane.
 */

export interface Target {
  id: string;
  fileId: string;
  fileName: string;
}

/** Opens the transaction's pane from the grid by keyboard, after searching for its id. */
export async function openTransaction(app: AppPage, id: string): Promise<Locator> {
  const { page } = app;
  const search = page.getByRole('search', { name: 'Filter transactions' }).getByRole('searchbox');
  // The previous transaction's search also counted 1: the whole list comes in between, so the
  // count of 1 waited for below is this search's, not the last one's still on screen.
  const totals = page.getByTestId('totals');
  await search.fill('');
  await expect.poll(async () => (await totals.innerText()).split(/\s/)[0]).not.toBe('1');
  await search.fill(id);
  await totals.getByText('1', { exact: true }).waitFor();
  const grid = page.getByRole('grid', { name: 'Transactions' });
  await grid.focus();
  await page.keyboard.press('Enter');
  const pane = page.getByTestId('transaction-pane');
  await pane.getByRole('heading', { name: 'Expense and receipts' }).waitFor();
  return pane;
}

/**
 * Transactions of the synced organisation whose expense has exactly one file, newest first,
 * the first `count` of them (of the type, when given).
 */
export function transactionsWithOneFile(
  core: Core,
  profileId: string,
  count: number,
  mimeType?: string,
): Target[] {
  const rows = core
    .cacheOf(profileId)
    .sqlite.prepare(
      `SELECT t.id, f.id AS fileId, f.name AS fileName FROM bank_transactions t
       JOIN expenses e ON json_extract(e.raw, '$.bankTransactionId') = t.id
       JOIN expense_files f ON f.expense_id = e.id
       WHERE (? IS NULL OR f.mime_type = ?) AND f.deleted_at IS NULL AND t.deleted_at IS NULL
         AND (SELECT count(*) FROM expense_files g WHERE g.expense_id = e.id) = 1
       ORDER BY t.booking_date DESC, t.id LIMIT ?`,
    )
    .all(mimeType ?? null, mimeType ?? null, count) as Target[];
  if (rows.length < count) throw new Error(`the demo data has too few transactions with one receipt`);
  return rows;
}

/**
 * Receipts of the sandbox that are alone on an expense documenting a bank transaction: what a
 * test replaces (`control.replaceFile`) before the first sync, so the app syncs them as such.
 */
export function loneReceipts(
  sandbox: { state: { expenses: Expense[]; files: Array<{ id: string; expenseId: string; name: string }> } },
  count: number,
): Target[] {
  const perExpense = new Map<string, number>();
  for (const file of sandbox.state.files)
    perExpense.set(file.expenseId, (perExpense.get(file.expenseId) ?? 0) + 1);
  const found: Target[] = [];
  for (const expense of sandbox.state.expenses) {
    if (found.length === count) break;
    if (!expense.bankTransactionId || perExpense.get(expense.id) !== 1) continue;
    const file = sandbox.state.files.find((candidate) => candidate.expenseId === expense.id);
    if (file) found.push({ id: expense.bankTransactionId, fileId: file.id, fileName: file.name });
  }
  if (found.length < count) throw new Error('the demo data has too few transactions with one receipt');
  return found;
}

/** A PDF of `objects` (object 1 the catalog), with its cross-reference table. */
export function pdfFile(objects: string[], trailer = ''): Buffer {
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A PDF of several A6 pages, one line of text each (the sandbox's receipts have one page). */
export function multiPagePdf(lines: string[]): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
  const kids: string[] = [];
  for (const line of lines) {
    const page = objects.length + 1;
    const content = `BT /F1 18 Tf 24 360 Td (${line}) Tj ET`;
    kids.push(`${page} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents ${page + 1} 0 R /Resources << /Font << /F1 ${3 + lines.length * 2} 0 R >> >> >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${lines.length} >>`;
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  return pdfFile(objects);
}

/**
 * A one-page PDF locked with a password to open (the standard security handler, RC4 40-bit):
 * its /U entry matches no empty password, so a reader must ask for one.
 */
export function passwordPdf(): Buffer {
  const hex = (fill: string) => `<${fill.repeat(64)}>`;
  return pdfFile(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] >>',
      `<< /Filter /Standard /V 1 /R 2 /O ${hex('3')} /U ${hex('7')} /P -44 >>`,
    ],
    ' /Encrypt 4 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]',
  );
}

/**
 * A PNG of `width` × `height` pixels (black and white, one bit a pixel, so that a photo's size
 * costs little to make): white with a black frame and diagonal band, as a large scan.
 */
export function largePng(width: number, height: number): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const raw = Buffer.alloc((rowBytes + 1) * height, 0xff);
  for (let y = 0; y < height; y++) {
    const row = y * (rowBytes + 1);
    raw[row] = 0; // filter: none
    const black = (x: number) => {
      const at = row + 1 + (x >> 3);
      raw[at] = (raw[at] ?? 0) & ~(0x80 >> (x & 7));
    };
    if (y < 40 || y >= height - 40) for (let x = 0; x < width; x++) black(x);
    else {
      for (let x = 0; x < 40; x++) {
        black(x);
        black(width - 1 - x);
      }
      const band = Math.floor((y / height) * width);
      for (let x = band; x < Math.min(width, band + 80); x++) black(x);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, tail]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8); // 1 bit, greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
