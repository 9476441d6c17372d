import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp } from './harness';
import { fillConnectForm, reviewFlagAndNoteByKeyboard } from './steps';

// The review journey in Chromium against a real core and the real sandbox: connect, sync,
// search, open a transaction and its receipt, review it from the keyboard, check the marks in
// the core; edit a supplier while the sandbox is unreachable and push it once it is back.
// Every screen is checked with axe-core and photographed in both themes.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('review journey', () => {
  it('syncs, searches, opens a transaction and its receipt, and reviews it from the keyboard', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 1500, control: true });
    const core = createCore({ dataDir: tempDir(), secrets });
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      await fillConnectForm(page, 'Sandbox GmbH', sandbox);
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      // Its first sync starts by itself.
      await page.keyboard.press('Control+5');
      await page.getByTestId('sync-history').getByText('succeeded').waitFor({ timeout: 60_000 });
      await checkScreen(app, 'review-sync');
      const [profile] = core.profiles.list();
      if (!profile) throw new Error('no profile');
      const { sqlite } = core.cacheOf(profile.id);

      // A card payment whose expense has a receipt: the one to review.
      const target = sqlite
        .prepare(
          `SELECT t.id, t.counterparty, f.name AS fileName FROM bank_transactions t
           JOIN expenses e ON json_extract(e.raw, '$.bankTransactionId') = t.id
           JOIN expense_files f ON f.expense_id = e.id
           WHERE t.counterparty IS NOT NULL LIMIT 1`,
        )
        .get() as { id: string; counterparty: string; fileName: string } | undefined;
      if (!target) throw new Error('the demo data has no transaction with a receipt');

      await page.keyboard.press('Control+1');
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      const total = sqlite
        .prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
        .pluck()
        .get() as number;
      await page
        .getByTestId('totals')
        .getByText(new Intl.NumberFormat('en-US').format(total), { exact: true })
        .waitFor();
      await checkScreen(app, 'review-transactions');

      // Search by id: "/" focuses the search field from the grid.
      await grid.focus();
      await page.keyboard.press('/');
      await page.keyboard.type(target.id);
      await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
      await grid.getByRole('row').nth(1).getByText(target.counterparty).waitFor();

      // Open it with Enter: the pane shows the receipt and takes focus; Esc gives focus back.
      await grid.focus();
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('transaction-pane');
      await pane.getByText(target.fileName).waitFor();
      await pane.getByText('Fees', { exact: true }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('pane-title');
      await checkScreen(app, 'review-transaction-detail');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('grid');

      // Space marks reviewed, f flags with a reason, n writes a note.
      await reviewFlagAndNoteByKeyboard(page, grid, pane);

      // The marks are in the core's cache.
      const marks = sqlite
        .prepare(
          `SELECT reviewed_at, flagged, flag_reason, note FROM review_marks WHERE kind = 'transaction' AND record_id = ?`,
        )
        .get(target.id) as { reviewed_at: string | null; flagged: number; flag_reason: string; note: string };
      expect(marks.reviewed_at).not.toBeNull();
      expect(marks).toMatchObject({
        flagged: 1,
        flag_reason: 'Receipt missing',
        note: 'Asked the card holder for the hotel invoice.',
      });

      // Sort by clicking a header: amount ascending puts the smallest amount first.
      await page
        .getByRole('search', { name: 'Filter transactions' })
        .getByRole('button', { name: /Clear/ })
        .click();
      await page
        .getByTestId('totals')
        .getByText(new Intl.NumberFormat('en-US').format(total), { exact: true })
        .waitFor();
      await grid.getByRole('columnheader', { name: 'Amount' }).getByRole('button').click();
      await grid
        .getByRole('columnheader', { name: /Amount/ })
        .and(page.locator('[aria-sort="descending"]'))
        .waitFor();

      // The whole result marked from the bulk bar, after a confirmation: every transaction but
      // the one reviewed above changes, in slices (the status bar follows a long change).
      const count = (n: number) => new Intl.NumberFormat('en-US').format(n);
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      await bulk.getByRole('button', { name: `Mark all ${count(total)} reviewed…` }).click();
      await bulk
        .getByRole('group', { name: 'Confirm the bulk change' })
        .getByRole('button', { name: `Yes, change ${count(total)}` })
        .click();
      await bulk
        .getByRole('status')
        .getByText(`${count(total - 1)} changed.`)
        .waitFor();
      expect(
        sqlite
          .prepare(`SELECT count(*) FROM review_marks WHERE kind = 'transaction' AND reviewed_at IS NOT NULL`)
          .pluck()
          .get(),
      ).toBe(total);

      // The shortcuts help.
      await grid.focus();
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      await checkScreen(app, 'review-shortcuts');
      // A modal: Tab stays inside it, and Ctrl+digit does not change the area behind it.
      for (let step = 0; step < 3; step += 1) {
        await page.keyboard.press('Tab');
        expect(await help.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
      }
      // The app's key handler (on window) takes the key and leaves the area as it is: a listener
      // after it sees the key claimed, and by then the area would have changed.
      await page.evaluate(() => {
        const host = window as unknown as { __ctrl2Claimed?: boolean };
        window.addEventListener('keydown', function claimed(event) {
          if (event.key !== '2') return;
          window.removeEventListener('keydown', claimed);
          host.__ctrl2Claimed = event.defaultPrevented;
        });
      });
      await page.keyboard.press('Control+2');
      await page.waitForFunction(() => (window as { __ctrl2Claimed?: boolean }).__ctrl2Claimed !== undefined);
      expect(await page.evaluate(() => (window as { __ctrl2Claimed?: boolean }).__ctrl2Claimed)).toBe(true);
      expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Transactions']);
      // Esc closes it and gives the focus back to the grid, where the keys go on.
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
      expect(await grid.evaluate((element) => element === document.activeElement)).toBe(true);

      // Expenses with lines and files.
      await page.keyboard.press('Control+2');
      const expenses = page.getByRole('grid', { name: 'Expenses' });
      await expenses.locator('tbody tr').first().waitFor();
      await expenses.focus();
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await page.getByTestId('expense-pane').getByRole('heading', { name: 'Lines' }).waitFor();
      await checkScreen(app, 'review-expenses');

      // An expense's pane names the bank transaction it documents and opens it in Transactions.
      const expensePane = page.getByTestId('expense-pane');
      const show = expensePane.getByRole('button', { name: 'Show in Transactions' });
      for (let step = 0; step < 30 && !(await show.isVisible()); step += 1) {
        await expenses.focus();
        await page.keyboard.press('j');
        await expensePane.getByRole('heading', { name: 'Lines' }).waitFor();
      }
      const title = (await expensePane.getByRole('heading', { level: 2 }).textContent()) ?? '';
      const fact = (await expensePane.locator('.linked-transaction').textContent()) ?? '';
      await show.click();
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
      expect(await grid.getByRole('row').count()).toBe(2); // the header and the one transaction
      const shownId = await page
        .getByRole('search', { name: 'Filter transactions' })
        .getByLabel('Ids')
        .inputValue();
      // The transaction searched for is the one the pane named, and the expense documents it.
      const shown = sqlite.prepare(`SELECT counterparty FROM bank_transactions WHERE id = ?`).get(shownId) as
        { counterparty: string } | undefined;
      if (!shown) throw new Error(`Transactions searched for ${shownId}, which is not cached`);
      expect(fact).toContain(shown.counterparty);
      await grid.getByRole('row').nth(1).getByText(shown.counterparty).waitFor();
      expect(
        sqlite
          .prepare(
            `SELECT count(*) FROM expenses
             WHERE bank_transaction_id = ? AND coalesce(nullif(description, ''), merchant_name) = ?`,
          )
          .pluck()
          .get(shownId, title),
      ).toBeGreaterThan(0);
      await page.keyboard.press('Control+2');
      await expenses.locator('tbody tr').first().waitFor();

      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      await checkScreen(app, 'review-files');
      await page.keyboard.press('Control+6');
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await checkScreen(app, 'review-settings');
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 240_000);
});
