import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { startSandbox } from '../../src-sandbox';
import { checkScreen, seriousViolations } from './axe';
import { openApp, testFileUrl, useAppTests } from './harness';
import { multiPagePdf, openTransaction, pdfFile, type Target } from './receipts';
import { connectSandbox } from './steps';

// Receipts previewed in the app, in Chromium against a real core and the real sandbox: a PDF
// drawn by pdf.js (its bundled worker, no eval) and a PNG shown as an image, both read through
// the app's own satchel-file: answer; a file that is not downloaded while the API is unreachable
// says so. The pane with a receipt is checked with axe and photographed in both themes.
const { tempDir, secrets, connect } = useAppTests();

/**
 * A one-page receipt in Japanese as many are made: a font it does not embed, its text coded
 * through Adobe's predefined UniJIS-UCS2-H CMap, which pdf.js must be given to read it.
 */
function japanesePdf(line: string): Buffer {
  const hex = [...line].map((char) => (char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')).join('');
  const content = `BT /F1 24 Tf 24 360 Td <${hex}> Tj ET`;
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type0 /BaseFont /HeiseiMin-W3 /Encoding /UniJIS-UCS2-H /DescendantFonts [6 0 R] >>',
    '<< /Type /Font /Subtype /CIDFontType0 /BaseFont /HeiseiMin-W3 /CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 2 >> /FontDescriptor 7 0 R >>',
    '<< /Type /FontDescriptor /FontName /HeiseiMin-W3 /Flags 6 /FontBBox [0 -141 1000 859] /ItalicAngle 0 /Ascent 859 /Descent -141 /CapHeight 709 /StemV 69 >>',
  ]);
}

/** A sandbox of its own and a core connected to it whose files the page is served (timeout 20 s). */
async function connectServingFiles() {
  const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
  const connected = await connect({ sandbox, fileUrl: testFileUrl, serveFiles: true, timeout: 20_000 });
  return { ...connected, sandbox, sqlite: connected.core.cacheOf(connected.profile.id).sqlite };
}

/**
 * Transactions whose expense has exactly one file, `where` (on `f`, the file, and `t`) holds:
 * newest first, at most `limit`.
 */
function withOneReceipt(sqlite: Database.Database, where: string, limit: number): Target[] {
  return sqlite
    .prepare(
      `SELECT t.id, f.id AS fileId, f.name AS fileName FROM bank_transactions t
       JOIN expenses e ON json_extract(e.raw, '$.bankTransactionId') = t.id
       JOIN expense_files f ON f.expense_id = e.id
       WHERE (${where}) AND f.deleted_at IS NULL AND t.deleted_at IS NULL
         AND (SELECT count(*) FROM expense_files g WHERE g.expense_id = e.id) = 1
       ORDER BY t.booking_date DESC LIMIT ?`,
    )
    .all(limit) as Target[];
}

describe('receipt preview', () => {
  it('draws a PDF receipt with pdf.js and shows a PNG receipt, from the offline file cache', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 400, control: true });
    const core = createCore({ dataDir: tempDir(), secrets, fileUrl: testFileUrl });
    const profile = await connectSandbox(core, sandbox);
    const { sqlite } = core.cacheOf(profile.id);
    const withFile = (mimeType: string, skip: string[] = []) => {
      const row = sqlite
        .prepare(
          `SELECT t.id, f.id AS fileId, f.name AS fileName FROM bank_transactions t
           JOIN expenses e ON json_extract(e.raw, '$.bankTransactionId') = t.id
           JOIN expense_files f ON f.expense_id = e.id
           WHERE f.mime_type = ? AND f.deleted_at IS NULL AND t.deleted_at IS NULL
             AND (SELECT count(*) FROM expense_files g WHERE g.expense_id = e.id) = 1
             AND t.id NOT IN (SELECT value FROM json_each(?))
           ORDER BY t.booking_date DESC LIMIT 1`,
        )
        .get(mimeType, JSON.stringify(skip)) as Target | undefined;
      if (!row) throw new Error(`the demo data has no transaction with one ${mimeType} receipt`);
      return row;
    };
    const pdf = withFile('application/pdf');
    const png = withFile('image/png', [pdf.id]);
    const unreachable = withFile('application/pdf', [pdf.id, png.id]);
    // A three-page invoice already kept offline: its record and copy as a finished download leaves them.
    const statement = withFile('application/pdf', [pdf.id, png.id, unreachable.id]);
    const root = core.files.filesRoot(profile.id);
    mkdirSync(root, { recursive: true });
    /** `bytes` as the kept copy of the file, its record as a finished download leaves it. */
    const keepOffline = (fileId: string, bytes: Buffer) => {
      writeFileSync(path.join(root, `${fileId}.pdf`), bytes);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      sqlite
        .prepare(
          `UPDATE expense_files SET size = ?, sha256 = ?, local_path = ?, local_sha256 = ?, downloaded_at = ? WHERE id = ?`,
        )
        .run(bytes.length, sha256, `${fileId}.pdf`, sha256, new Date().toISOString(), fileId);
    };
    keepOffline(
      statement.fileId,
      multiPagePdf(['First page of the invoice', 'Second page: the lines', 'Third page: totals']),
    );
    // A receipt in Japanese, also kept offline.
    const japanese = withFile('application/pdf', [pdf.id, png.id, unreachable.id, statement.id]);
    keepOffline(japanese.fileId, japanesePdf('領収書・合計1200円'));

    const app = await openApp(core, { serveFiles: true });
    const { page } = app;
    page.setDefaultTimeout(20_000);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      // pdf.js is not part of the first screen.
      expect(requests.filter((url) => /pdf/i.test(url))).toEqual([]);

      // A PDF receipt: not downloaded yet, so it opens when asked.
      let pane = await openTransaction(app, pdf.id);
      await pane.getByText(pdf.fileName).waitFor();
      await pane.getByRole('button', { name: `Show preview of ${pdf.fileName}` }).click();
      const canvas = pane.getByRole('img', { name: `${pdf.fileName}, page 1 of 1` });
      await canvas.and(page.locator('[data-drawn]')).waitFor();
      const inked = await canvas.evaluate((element) => {
        const target = element as HTMLCanvasElement;
        const context = target.getContext('2d');
        if (!context) return -1;
        const { data } = context.getImageData(0, 0, target.width, target.height);
        let dark = 0;
        for (let i = 0; i < data.length; i += 4)
          if ((data[i] ?? 255) < 128 && (data[i + 1] ?? 255) < 128 && (data[i + 2] ?? 255) < 128) dark += 1;
        return dark;
      });
      expect(inked, 'dark pixels of text on the drawn page').toBeGreaterThan(200);
      // The text alternative: the receipt's own words, from pdf.js's text content.
      const record = sandbox.state.files.find((file) => file.id === pdf.fileId);
      const firstLine = record?.text[0];
      if (!firstLine) throw new Error('the sandbox file has no text');
      await expect.poll(() => pane.getByTestId('pdf-text').textContent()).toContain('Total');
      expect(await pane.getByTestId('pdf-text').textContent()).toContain(firstLine.slice(0, 12));
      await pane.getByRole('button', { name: 'Show the text of the page' }).click();
      await pane.getByTestId('pdf-text').waitFor({ state: 'visible' });
      // The worker is the bundled file, started as a worker, and the bytes came from the file route.
      expect(requests.some((url) => /\/assets\/pdf\.worker[^/]*\.mjs$/.test(url))).toBe(true);
      expect(requests).toContain(testFileUrl(profile.id, `${pdf.fileId}.pdf`));
      const workers = page.workers().map((worker) => worker.url());
      expect(workers.some((url) => /\/assets\/pdf\.worker[^/]*\.mjs$/.test(url))).toBe(true);

      await pane.getByText(pdf.fileName).evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await checkScreen(app, 'preview-pdf');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // A PNG receipt, shown as an image.
      pane = await openTransaction(app, png.id);
      await pane.getByRole('button', { name: `Show preview of ${png.fileName}` }).click();
      const image = pane.getByRole('img', { name: `Receipt ${png.fileName}` });
      await image.waitFor();
      await expect
        .poll(() => image.evaluate((element) => (element as HTMLImageElement).naturalWidth))
        .toBeGreaterThan(0);
      expect(await image.getAttribute('src')).toBe(testFileUrl(profile.id, `${png.fileId}.png`));
      await pane.getByText(png.fileName).evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await checkScreen(app, 'preview-png');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // Opened once, kept: the PDF now opens by itself, without asking the API again.
      const fileRequests = () => sandbox.control?.requests('getFileContent').length;
      const before = fileRequests();
      pane = await openTransaction(app, pdf.id);
      await pane
        .getByRole('img', { name: `${pdf.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      expect(fileRequests()).toBe(before);
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // The copy went away after it was shown (evicted to stay within the offline space): the
      // pane says so and fetches it again when asked.
      rmSync(path.join(root, `${pdf.fileId}.pdf`));
      pane = await openTransaction(app, pdf.id);
      await pane.getByRole('alert').getByText('could not be read', { exact: false }).waitFor();
      await pane.getByRole('button', { name: 'Fetch it again' }).click();
      await pane
        .getByRole('img', { name: `${pdf.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      expect(fileRequests()).toBe((before ?? 0) + 1);
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // A PDF of three pages, kept offline: it opens by itself; the pages turn with the buttons and
      // with Page Down, Page Up, Home and End while the focus is on them.
      pane = await openTransaction(app, statement.id);
      const pageImage = (n: number) =>
        pane
          .getByRole('img', { name: `${statement.fileName}, page ${n} of 3` })
          .and(page.locator('[data-drawn]'));
      await pageImage(1).waitFor();
      const text = pane.getByTestId('pdf-text');
      await expect.poll(() => text.textContent()).toBe('First page of the invoice');
      const previous = pane.getByRole('button', { name: 'Previous page (Page Up)' });
      const next = pane.getByRole('button', { name: 'Next page (Page Down)' });
      expect(await previous.getAttribute('aria-disabled')).toBe('true');
      await next.focus();
      await page.keyboard.press('Enter');
      await pageImage(2).waitFor();
      await expect.poll(() => text.textContent()).toBe('Second page: the lines');
      await pane
        .getByRole('group', { name: `Pages of ${statement.fileName}` })
        .getByText('Page 2 of 3')
        .waitFor();
      await page.keyboard.press('PageDown');
      await pageImage(3).waitFor();
      expect(await next.getAttribute('aria-disabled')).toBe('true');
      await previous.focus();
      await page.keyboard.press('Home');
      await pageImage(1).waitFor();
      await next.focus();
      await page.keyboard.press('End');
      await pageImage(3).waitFor();
      await expect.poll(() => text.textContent()).toBe('Third page: totals');
      // At the last page "Next" does nothing and keeps the focus.
      await page.keyboard.press('Enter');
      expect(await next.evaluate((element) => element === document.activeElement)).toBe(true);
      await pageImage(3).waitFor();
      // The pane's own keys stay with the pane: the page keys did not close or review anything.
      expect(await pane.isVisible()).toBe(true);
      const statementPreview = pane.getByTestId('file-preview');
      await statementPreview.evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await checkScreen(app, 'preview-pages');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // A receipt in Japanese: its text is read through Adobe's CMaps, which come from chunks
      // of the app's own bundle.
      pane = await openTransaction(app, japanese.id);
      await pane
        .getByRole('img', { name: `${japanese.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      await expect.poll(() => pane.getByTestId('pdf-text').textContent()).toBe('領収書・合計1200円');
      expect(requests.some((url) => /\/assets\/UniJIS-UCS2-H-[^/]*\.js$/.test(url))).toBe(true);
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // The expense pane shows the same preview among the expense's files.
      const expense = sqlite
        .prepare(
          `SELECT coalesce(e.booking_text, e.description, e.merchant_name) AS text FROM expenses e
           JOIN expense_files f ON f.expense_id = e.id WHERE f.id = ?`,
        )
        .get(statement.fileId) as { text: string | null } | undefined;
      if (!expense?.text) throw new Error('the invoice has no text to find its expense by');
      await page.keyboard.press('Control+2');
      await page.getByRole('heading', { level: 1, name: 'Expenses' }).waitFor();
      await page.getByRole('search', { name: 'Filter expenses' }).getByRole('searchbox').fill(expense.text);
      // The text names one expense (merchant or supplier and date): the first row is it.
      const expenseRow = page.getByRole('grid', { name: 'Expenses' }).locator('tbody tr').first();
      await page
        .getByRole('navigation', { name: 'Expenses pages' })
        .getByText(/· 1 expense$/)
        .waitFor();
      await expenseRow.click();
      await page.keyboard.press('Enter');
      const expensePane = page.getByTestId('expense-pane');
      await expensePane
        .getByRole('img', { name: `${statement.fileName}, page 1 of 3` })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+1');
      await page.getByRole('grid', { name: 'Transactions' }).waitFor();

      // Not downloaded and the API unreachable: the pane says what is going on.
      await sandbox.setReachable(false);
      pane = await openTransaction(app, unreachable.id);
      await pane.getByRole('button', { name: `Show preview of ${unreachable.fileName}` }).click();
      await pane
        .getByRole('alert')
        .getByText('Not downloaded yet and Satchel is offline', { exact: false })
        .waitFor({ timeout: 60_000 });
      await checkScreen(app, 'preview-offline');
      // Back online, "Try again" opens it, and the focus stays in the pane (Esc closes it).
      await sandbox.setReachable(true);
      await pane.getByRole('button', { name: 'Try again' }).click();
      await pane
        .getByRole('img', { name: `${unreachable.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor({ timeout: 60_000 });
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      expect(consoleErrors.filter((text) => /Content Security Policy|Refused/i.test(text))).toEqual([]);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 240_000);

  it('shows a receipt as kept offline once the fill that a sync started puts it in place', async () => {
    const { sandbox, core, profile, open, sqlite } = await connectServingFiles();
    const [target] = withOneReceipt(sqlite, 'TRUE', 1);
    if (!target) throw new Error('the demo data has no transaction with one receipt');
    // Every file to be kept, none on disk yet (the fill of the first sync had nothing to keep).
    await core.files.fillOffline(profile.id);
    core.files.setOfflineScope(profile.id, { mode: 'all' });

    const app = await open();
    try {
      const pane = await openTransaction(app, target.id);
      await pane.getByText('Not downloaded yet', { exact: true }).waitFor();
      // The next sync refreshes the pane when it finishes; the fill it starts puts this receipt
      // in place seconds later, and nothing else happens in the app meanwhile.
      sandbox.control?.addFault({ match: `/v1/files/${target.fileId}/content`, latencyMs: 3000 });
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      await core.files.fillOffline(profile.id);
      expect(sandbox.control?.requests('getFileContent').map((entry) => entry.path)).toContain(
        `/v1/files/${target.fileId}/content`,
      );
      await pane.getByText('Kept offline', { exact: true }).waitFor();
      expect(await pane.getByText('Not downloaded yet', { exact: true }).count()).toBe(0);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('previews a receipt sent without its type by its name, and says what to do with a file it cannot show', async () => {
    const { sandbox, open, sqlite } = await connectServingFiles();
    const [generic, xml] = withOneReceipt(
      sqlite,
      `f.mime_type = 'application/pdf' AND f.name LIKE '%.pdf'`,
      2,
    );
    if (!generic || !xml) throw new Error('the demo data has too few transactions with one PDF receipt');
    // Uploaded through a tool that sends every file as bytes of no particular type.
    sqlite
      .prepare(`UPDATE expense_files SET mime_type = 'application/octet-stream' WHERE id = ?`)
      .run(generic.fileId);
    // An e-invoice, which has no preview.
    sqlite
      .prepare(`UPDATE expense_files SET mime_type = 'application/xml', name = 'invoice.xml' WHERE id = ?`)
      .run(xml.fileId);

    const app = await open();
    const { page } = app;
    try {
      let pane = await openTransaction(app, generic.id);
      await pane.getByRole('button', { name: `Show preview of ${generic.fileName}` }).click();
      await pane
        .getByRole('img', { name: `${generic.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      pane = await openTransaction(app, xml.id);
      await pane.getByRole('button', { name: 'Show preview of invoice.xml' }).click();
      await pane.getByText('No preview for this type of file (application/xml)', { exact: false }).waitFor();
      await pane.getByRole('button', { name: 'Save a copy of invoice.xml…' }).waitFor();
      expect(sandbox.control?.requests('getFileContent').map((entry) => entry.path)).toEqual([
        `/v1/files/${generic.fileId}/content`,
      ]);
    } finally {
      await app.close();
    }
  }, 120_000);
});
