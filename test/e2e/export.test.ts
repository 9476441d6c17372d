import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { EXPENSE_CSV_COLUMNS } from '../../src-main/export';
import { applyReview } from '../../src-main/review';
import { startSandbox } from '../../src-sandbox';
import { queuedFileDialog } from '../helpers/dialogs';
import { checkScreen } from './axe';
import { useAppTests } from './harness';
import { holdAnswers } from './steps';

// Exports and imports from the app in Chromium against a real core and the real sandbox: the
// current search written as CSV from the Transactions bulk bar (file from the system's save
// dialog only, separators chosen, a file already there replaced only when asked) and from Expenses
// (after marking a selection and then the whole expense result reviewed; the separators
// remembered), and the review
// handed over from Needs attention (export, import, a bad file refused). The system's dialogs
// are answered by the test. Every screen is checked with axe-core in both themes.
const { tempDir, connect, openConnected } = useAppTests();

describe('export and import from the app', () => {
  it('exports the search as CSV and hands the review to a colleague', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const folder = tempDir();
    const fileDialog = queuedFileDialog();
    const { answers, asked } = fileDialog;
    const { core, profile, open } = await connect({ sandbox, pickFile: fileDialog.pick, timeout: 20_000 });
    const cache = core.cacheOf(profile.id);
    const live = cache.sqlite
      .prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
      .pluck()
      .get() as number;
    const someIds = cache.sqlite
      .prepare('SELECT id FROM bank_transactions WHERE deleted_at IS NULL ORDER BY id LIMIT 3')
      .pluck()
      .all() as string[];
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: someIds }, { action: 'flag', reason: 'Ask' });

    const app = await open();
    const { page } = app;
    const count = (n: number) => new Intl.NumberFormat('en-US').format(n);
    try {
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });

      // The whole result, to a file picked in the save dialog (the extension is added).
      await bulk.getByRole('button', { name: 'Export as CSV…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export as CSV' });
      await dialog.getByText(`All ${count(live)} transactions of this search`).waitFor();
      answers.push(path.join(folder, 'March'));
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      const csv = path.join(folder, 'March.csv');
      await expect.poll(() => dialog.getByLabel('File', { exact: true }).inputValue()).toBe(csv);
      expect(asked.at(-1)).toMatchObject({
        mode: 'save',
        extension: 'csv',
        title: 'Export transactions as CSV',
      });
      expect(asked.at(-1)?.defaultPath).toMatch(/^Transactions \d{4}-\d{2}-\d{2}\.csv$/);
      expect(await dialog.getByLabel('Replace the file if it is already there').isChecked()).toBe(true);
      await dialog.getByRole('radio', { name: /Semicolons, with a decimal comma/ }).check();
      await checkScreen(app, 'export-dialog');
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      await bulk
        .getByRole('status')
        .getByText(`${count(live)} transactions written to ${csv}.`)
        .waitFor();
      const text = readFileSync(csv, 'utf8');
      expect(text.startsWith('\uFEFFid;booking_date;')).toBe(true);
      const lines = text.split('\r\n').filter((line) => line !== '');
      expect(lines).toHaveLength(live + 1);
      expect(lines.filter((line) => line.includes(';Ask;'))).toHaveLength(3);
      expect(lines[1]).toMatch(/;-?\d+,\d{2};[A-Z]{3};/); // decimal comma, exact amount

      // The file is chosen, never typed; the same file chosen again is there, so it is replaced
      // only when asked to, and the refused try keeps the choice for the next one.
      await bulk.getByRole('button', { name: 'Export as CSV…' }).click();
      const fileField = dialog.getByLabel('File', { exact: true });
      expect(await fileField.isEditable()).toBe(false);
      await fileField.focus();
      await page.keyboard.type(path.join(folder, 'typed.csv'));
      expect(await fileField.inputValue()).toBe('');
      answers.push(csv);
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => fileField.inputValue()).toBe(csv);
      await dialog.getByLabel('Replace the file if it is already there').uncheck();
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await dialog.getByText(/already exists; choose another name or replace it/).waitFor();
      expect(await dialog.getByLabel('File', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      await dialog.getByLabel('Replace the file if it is already there').check();
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });

      // The expenses of their search, from the Expenses area, with the separators remembered.
      const expenseCount = cache.sqlite
        .prepare('SELECT count(*) FROM expenses WHERE deleted_at IS NULL')
        .pluck()
        .get() as number;
      await page.keyboard.press('Control+2');
      await page.getByRole('grid', { name: 'Expenses' }).locator('tbody tr').first().waitFor();
      const expenseBar = page.getByRole('toolbar', { name: 'Expense list' });
      // Two expenses selected from the keyboard (x, j, x) and marked reviewed.
      const expenseGrid = page.getByRole('grid', { name: 'Expenses' });
      await expenseGrid.focus();
      await page.keyboard.press('x');
      await page.keyboard.press('j');
      await page.keyboard.press('x');
      await expenseBar.getByText('2 selected').waitFor();
      expect(await expenseGrid.getByRole('checkbox', { checked: true }).count()).toBe(2);
      await expenseBar.getByRole('button', { name: 'Mark selected reviewed' }).click();
      await expenseBar.getByRole('status').getByText('2 changed.').waitFor();
      await expenseBar.getByRole('button', { name: 'Clear selection' }).click();
      await expenseBar.getByText('Select rows with x or their box').waitFor();

      // Every expense of the search marked reviewed, after a confirmation naming the number.
      await expenseBar.getByRole('button', { name: `Mark all ${count(expenseCount)} reviewed…` }).click();
      await expenseBar
        .getByRole('group', { name: 'Confirm the bulk change' })
        .getByText(`Mark all ${count(expenseCount)} expenses?`)
        .waitFor();
      await expenseBar.getByRole('button', { name: `Yes, change ${count(expenseCount)}` }).click();
      await expenseBar
        .getByRole('status')
        .getByText(`${count(expenseCount - 2)} changed.`)
        .waitFor();
      await expenseBar.getByRole('button', { name: 'Export as CSV…' }).click();
      await dialog.getByText(`All ${count(expenseCount)} expenses of this search`).waitFor();
      expect(await dialog.getByRole('radio', { name: /Semicolons, with a decimal comma/ }).isChecked()).toBe(
        true,
      );
      answers.push(path.join(folder, 'expenses'));
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      const expensesCsv = path.join(folder, 'expenses.csv');
      await expect.poll(() => dialog.getByLabel('File', { exact: true }).inputValue()).toBe(expensesCsv);
      expect(asked.at(-1)).toMatchObject({ title: 'Export expenses as CSV', extension: 'csv' });
      expect(path.basename(asked.at(-1)?.defaultPath ?? '')).toMatch(/^Expenses \d{4}-\d{2}-\d{2}\.csv$/);
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      await expenseBar.getByText(`${count(expenseCount)} expenses written to ${expensesCsv}.`).waitFor();
      const expenseLines = readFileSync(expensesCsv, 'utf8')
        .split('\r\n')
        .filter((line) => line !== '');
      expect(expenseLines[0]).toBe(`\uFEFF${EXPENSE_CSV_COLUMNS.join(';')}`);
      expect(expenseLines).toHaveLength(expenseCount + 1);
      const reviewedColumn = EXPENSE_CSV_COLUMNS.indexOf('reviewed');
      expect(expenseLines.slice(1).every((line) => line.split(';')[reviewedColumn] === 'true')).toBe(true);

      // The review, handed over from Needs attention.
      await page.keyboard.press('Control+7');
      await page.getByRole('heading', { level: 1, name: 'Needs attention' }).waitFor();
      const section = page.getByRole('region', { name: 'Hand the review to a colleague' });
      answers.push(path.join(folder, 'review'));
      await section.getByRole('button', { name: 'Export review marks…' }).click();
      const reviewFile = path.join(folder, 'review.json');
      // Three flags, and every expense marked reviewed above.
      const marks = count(3 + expenseCount);
      await section.getByText(`${marks} review marks written to ${reviewFile}.`).waitFor();
      // Suggested in the folder of the CSV picked before.
      expect(path.dirname(asked.at(-1)?.defaultPath ?? '')).toBe(folder);
      expect(path.basename(asked.at(-1)?.defaultPath ?? '')).toMatch(
        /^Review Sandbox GmbH \d{4}-\d{2}-\d{2}\.json$/,
      );
      expect(JSON.parse(readFileSync(reviewFile, 'utf8'))).toMatchObject({ marks: expect.any(Array) });

      answers.push(reviewFile);
      await section.getByRole('button', { name: 'Import review marks…' }).click();
      await section
        .getByText(
          `${marks} review marks read; nothing changed: this copy had every mark of the file already, or a newer one.`,
        )
        .waitFor();
      expect(asked.at(-1)).toMatchObject({ mode: 'open', title: 'Import review marks' });

      // Cancelled: nothing happens.
      answers.push(null);
      await section.getByRole('button', { name: 'Import review marks…' }).click();
      await expect.poll(() => asked.length).toBe(6);
      expect(await section.getByRole('status').count()).toBe(0);

      const bad = path.join(folder, 'notes.json');
      writeFileSync(bad, 'these are my notes');
      answers.push(bad);
      await section.getByRole('button', { name: 'Import review marks…' }).click();
      await section
        .getByRole('alert')
        .getByText(/is not a review export \(it is not JSON\)/)
        .waitFor();
      await checkScreen(app, 'export-review-file');
    } finally {
      await app.close();
    }
  }, 240_000);

  it('says so in the bulk bar when an export closed while it ran fails', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 100 });
    const folder = path.join(tempDir(), 'Exports');
    mkdirSync(folder);
    const app = await openConnected({
      sandbox,
      pickFile: () => Promise.resolve(path.join(folder, 'All.csv')),
    });
    const { page } = app;
    try {
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      const exportButton = bulk.getByRole('button', { name: 'Export as CSV…' });
      await exportButton.click();
      const dialog = page.getByRole('dialog', { name: 'Export as CSV' });
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('File', { exact: true }).inputValue()).not.toBe('');
      // The folder goes (a USB stick pulled out) while the export is on its way, and the
      // accountant closes the dialog to go on working meanwhile.
      rmSync(folder, { recursive: true });
      const held = await holdAnswers(page, 'transactions.exportCsv');
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await expect.poll(() => held.waiting()).toBe(1);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect
        .poll(() => exportButton.evaluate((button) => button === document.activeElement))
        .toBe(true);
      await held.release();
      await bulk
        .getByRole('alert')
        .getByText(
          `The export of transactions failed: The folder ${folder} does not exist. Nothing was written; choose another place.`,
          {
            exact: false,
          },
        )
        .waitFor();
      // A new export starts without the old failure.
      await exportButton.click();
      await dialog.waitFor();
      expect(await bulk.getByRole('alert').count()).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('clears the export from the status bar when it ends short of its total', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 2100 });
    const folder = tempDir();
    const { core, profile, open } = await connect({
      sandbox,
      pickFile: () => Promise.resolve(path.join(folder, 'All.csv')),
    });
    const cache = core.cacheOf(profile.id);
    // A sync marks the rest of the result deleted once the first thousand rows are written:
    // they are left out, so the export's count never reaches its total.
    let reported = 0;
    const stop = core.events.subscribe((name) => {
      if (name !== 'export.progress' || ++reported !== 1) return;
      cache.sqlite.prepare("UPDATE bank_transactions SET deleted_at = '2026-01-01T00:00:00.000Z'").run();
    });
    const app = await open();
    const { page } = app;
    try {
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      await bulk.getByRole('button', { name: 'Export as CSV…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export as CSV' });
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('File', { exact: true }).inputValue()).not.toBe('');
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await bulk.getByText(`1,000 transactions written to ${path.join(folder, 'All.csv')}.`).waitFor();
      await expect.poll(() => page.getByTestId('running-export').count()).toBe(0);
    } finally {
      stop();
      await app.close();
    }
  }, 120_000);
  it("shows its own export's count while another export of the organisation runs", async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300 });
    const folder = tempDir();
    const fileDialog = queuedFileDialog();
    const { core, profile, open } = await connect({ sandbox, pickFile: fileDialog.pick });
    const cache = core.cacheOf(profile.id);
    const live = cache.sqlite
      .prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
      .pluck()
      .get() as number;
    const expenses = cache.sqlite
      .prepare('SELECT count(*) FROM expenses WHERE deleted_at IS NULL')
      .pluck()
      .get() as number;
    expect(expenses).not.toBe(live);
    const count = (n: number) => new Intl.NumberFormat('en-US').format(n);
    const app = await open();
    const { page } = app;
    try {
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      await bulk.getByRole('button', { name: 'Export as CSV…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export as CSV' });
      fileDialog.answers.push(path.join(folder, 'Transactions.csv'));
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('File', { exact: true }).inputValue()).not.toBe('');
      // The dialog's export is written, its answer held: the dialog still counts it.
      const held = await holdAnswers(page, 'transactions.exportCsv');
      await dialog.getByRole('button', { name: 'Export', exact: true }).click();
      await expect.poll(() => held.waiting()).toBe(1);
      const progress = dialog.getByTestId('export-progress');
      await progress.getByText(`Exporting ${count(live)} of ${count(live)}…`).waitFor();

      // Meanwhile another export of the organisation runs (one a dialog closed earlier started)
      // through the same handler table; its events reach the page too.
      const handlers = createHandlers(core);
      fileDialog.answers.push(path.join(folder, 'Expenses.csv'));
      expect(await dispatch(handlers, 'dialog.pickFile', { purpose: 'expensesCsv' })).toMatchObject({
        ok: true,
      });
      expect(
        await dispatch(handlers, 'expenses.exportCsv', {
          profileId: profile.id,
          search: {},
          file: path.join(folder, 'Expenses.csv'),
        }),
      ).toMatchObject({ ok: true, value: { rows: expenses } });
      // Its events were sent to the page before this; once they are handled and drawn, the
      // dialog still shows its own count.
      await page.evaluate(
        () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
      );
      expect(await progress.textContent()).toBe(`Exporting ${count(live)} of ${count(live)}…`);

      await held.release();
      await bulk
        .getByText(`${count(live)} transactions written to ${path.join(folder, 'Transactions.csv')}.`)
        .waitFor();
    } finally {
      await app.close();
    }
  }, 120_000);
});
