import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src-main/core';
import { applyReview, needsAttention } from '../../src-main/review';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { seriousViolations } from './axe';
import { closeBrowser, openApp, type AppPage } from './harness';

// Every screen of the app over demo-like data (a real core synced from the real sandbox), in
// the light and the dark theme chosen in Settings: photographed and checked with axe-core.
// Also the organisation switcher (remembered across a reload, falling back when removed), the
// theme setting (applied before the app renders) and "Needs attention" opening its lists.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

const count = (value: number) => new Intl.NumberFormat('en-US').format(value);

async function checkScreen(app: AppPage, name: string, theme: 'light' | 'dark') {
  const shown = await app.page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
  expect(shown, `${name} is shown in the ${theme} theme`).toBe(theme);
  const violations = await seriousViolations(app.page);
  expect(violations, `${name} (${theme}): ${JSON.stringify(violations, null, 1)}`).toEqual([]);
  await app.screenshot(`screens-${name}-${theme}`);
}

async function connect(core: Core, name: string, sandbox: Awaited<ReturnType<typeof startSandbox>>) {
  const profile = await core.addProfile({
    name,
    baseUrl: sandbox.url,
    auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
  });
  expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
  return profile;
}

describe('screens', () => {
  it('shows every area in both themes with no serious accessibility issue', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 1500 });
    const other = await startSandbox({ port: 0, seed: 8, transactions: 200 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      const main = await connect(core, 'Sandbox GmbH', sandbox);
      const second = await connect(core, 'Zweite AG', other);
      // Some open questions, so that every "needs attention" group has items.
      const cache = core.cacheOf(main.id);
      const [transaction] = cache.sqlite
        .prepare('SELECT id FROM bank_transactions WHERE deleted_at IS NULL LIMIT 2')
        .pluck()
        .all() as string[];
      const [expense] = cache.sqlite.prepare('SELECT id FROM expenses LIMIT 1').pluck().all() as string[];
      if (!transaction || !expense) throw new Error('the demo data has no transaction or expense');
      applyReview(
        cache,
        { by: 'ids', kind: 'transaction', ids: [transaction] },
        { action: 'flag', reason: 'Ask for the invoice' },
      );
      applyReview(cache, { by: 'ids', kind: 'expense', ids: [expense] }, { action: 'flag', reason: 'Odd' });
      const groups = Object.fromEntries(needsAttention(cache).map((group) => [group.group, group.count]));

      // The switcher lists both organisations; the choice survives a reload.
      await page.reload();
      const switcher = page.getByLabel('Organisation');
      await switcher.waitFor();
      await expect(switcher.locator('option').allTextContents()).resolves.toEqual([
        'Sandbox GmbH',
        'Zweite AG',
      ]);
      await switcher.selectOption({ label: 'Zweite AG' });
      const otherTotal = core
        .cacheOf(second.id)
        .sqlite.prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
        .pluck()
        .get() as number;
      await page.getByTestId('totals').getByText(count(otherTotal), { exact: true }).waitFor();
      await page.reload();
      await expect.poll(() => page.getByLabel('Organisation').inputValue()).toBe(second.id);
      await page.getByTestId('totals').getByText(count(otherTotal), { exact: true }).waitFor();
      await page.getByLabel('Organisation').selectOption({ label: 'Sandbox GmbH' });

      for (const theme of ['light', 'dark'] as const) {
        // The system says the opposite: the setting wins.
        await page.emulateMedia({ colorScheme: theme === 'light' ? 'dark' : 'light' });
        await page.keyboard.press('Control+6');
        await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
        await page
          .getByTestId('theme-choice')
          .getByLabel(theme === 'light' ? 'Light' : 'Dark', { exact: true })
          .check();
        await expect.poll(() => page.evaluate(() => document.documentElement.dataset['theme'])).toBe(theme);
        await page.getByTestId('keychain-status').getByText('Keychain: available').waitFor();
        await page.getByTestId('app-info').getByText(core.info().dataDir).waitFor();
        await checkScreen(app, 'settings', theme);

        // Transactions with the detail pane open.
        await page.keyboard.press('Control+1');
        const grid = page.getByRole('grid', { name: 'Transactions' });
        await grid.getByRole('row').nth(1).locator('.amount').waitFor();
        await grid.focus();
        await page.keyboard.press('Enter');
        await page.getByTestId('transaction-pane').getByText('Fees', { exact: true }).waitFor();
        // Nothing hidden for screen readers stretches the window: the page itself never scrolls.
        expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(800);
        // Beside the pane the grid leaves out what the pane repeats (type, account, matched), so
        // the review marks stay in view and the grid does not scroll sideways; in this window the
        // description goes too, so that the counterparty can be read (transactions-beside-pane).
        const headers = () => grid.getByRole('columnheader').allTextContents();
        const everyColumn = [
          ...['Selected', 'Booking date ▼', 'Counterparty', 'Description', 'Amount'],
          ...['Type', 'Account', 'Matched', 'Review'],
        ];
        const repeated = ['Type', 'Account', 'Matched', 'Description'];
        expect(await headers()).toEqual(everyColumn.filter((name) => !repeated.includes(name)));
        const sideways = await grid.evaluate((box) => box.scrollWidth - box.clientWidth);
        expect(sideways).toBe(0);
        expect(await grid.getAttribute('aria-colcount')).toBe('5');
        await checkScreen(app, 'transactions', theme);
        await page.keyboard.press('Escape');
        await page.getByTestId('transaction-pane').waitFor({ state: 'detached' });
        expect(await headers()).toEqual(everyColumn);

        await page.keyboard.press('Control+2');
        const expenses = page.getByRole('grid', { name: 'Expenses' });
        await expenses.locator('tbody tr').first().waitFor();
        await expenses.focus();
        await page.keyboard.press('Enter');
        await page.getByTestId('expense-pane').getByRole('heading', { name: 'Lines' }).waitFor();
        // With the pane open, the date, status, amount, file count and review cells keep to
        // one line each (the text columns wrap instead): no "Oct / 30, / 2026" down a row.
        const oneLine = await expenses
          .locator('tbody tr')
          .first()
          .evaluate((row) => {
            const cells = Array.from(row.querySelectorAll('td'));
            const lineHeight = parseFloat(getComputedStyle(cells[1]!).lineHeight);
            return [1, 4, 5, 6, 7].map((index) => {
              const text = document.createRange();
              text.selectNodeContents(cells[index]!);
              return text.getBoundingClientRect().height < lineHeight * 1.5;
            });
          });
        expect(oneLine).toEqual([true, true, true, true, true]);
        // And every column the list keeps is in view: the list does not scroll sideways (the
        // supplier or merchant and the status, which the pane shows, make way).
        const fits = await expenses.evaluate((table) => {
          const list = table.parentElement!;
          const review = table.querySelector('th:last-child')!.getBoundingClientRect();
          return {
            overflow: list.scrollWidth - list.clientWidth,
            reviewInside: review.right <= list.getBoundingClientRect().right + 1,
          };
        });
        expect(fits).toEqual({ overflow: 0, reviewInside: true });
        await checkScreen(app, 'expenses', theme);

        await page.keyboard.press('Control+3');
        const suppliers = page.getByRole('grid', { name: 'Suppliers' });
        await suppliers.locator('tbody tr').first().waitFor();
        await suppliers
          .getByRole('button', { name: /^Edit / })
          .first()
          .click();
        await page
          .getByRole('form', { name: /^Edit / })
          .getByLabel('Name')
          .waitFor();
        await checkScreen(app, 'suppliers', theme);

        await page.keyboard.press('Control+4');
        await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
        await checkScreen(app, 'files', theme);

        await page.keyboard.press('Control+5');
        await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
        await page.getByTestId('sync-history').getByText('succeeded').waitFor();
        await page.getByTestId('sync-last').getByText('Succeeded', { exact: false }).waitFor();
        await page.getByTestId('sync-online').getByText('Online').waitFor();
        await page
          .getByTestId('rate-limits')
          .getByText(/ left until /)
          .first()
          .waitFor();
        await checkScreen(app, 'sync', theme);

        await page.keyboard.press('Control+7');
        const attention = page.getByTestId('attention');
        await attention.waitFor();
        for (const [group, value] of Object.entries(groups))
          await expect(
            attention.locator(`[data-group="${group}"] .attention-count`).textContent(),
          ).resolves.toBe(count(value));
        await checkScreen(app, 'attention', theme);

        await page.keyboard.press('?');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
        await checkScreen(app, 'shortcuts', theme);
        await page.keyboard.press('Escape');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'hidden' });
      }

      // The dark choice is applied before the app renders, after a reload too.
      await page.emulateMedia({ colorScheme: 'light' });
      await page.reload();
      expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe('dark');

      // "Needs attention": one key opens the unmatched transactions, filtered.
      await page.keyboard.press('Control+7');
      await page.getByTestId('attention').waitFor();
      await page.keyboard.press('1');
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      await page
        .getByTestId('totals')
        .getByText(count(groups['unmatchedTransactions'] ?? -1), { exact: true })
        .waitFor();
      const filters = page.getByRole('search', { name: 'Filter transactions' });
      await expect(filters.getByLabel('Matched').inputValue()).resolves.toBe('false');
      await expect(filters.getByLabel('Reviewed').inputValue()).resolves.toBe('false');
      // A click opens the flagged expenses in Expenses.
      await page.keyboard.press('Control+7');
      await page.getByRole('button', { name: 'Open Flagged expenses' }).click();
      const expenses = page.getByRole('grid', { name: 'Expenses' });
      await expenses.locator('tbody tr').first().waitFor();
      await expect(expenses.locator('tbody tr').count()).resolves.toBe(groups['flaggedExpenses']);
      await expect(
        page.getByRole('search', { name: 'Filter expenses' }).getByLabel('Flagged').inputValue(),
      ).resolves.toBe('true');

      // The organisation shown is removed: the app falls back to the other one.
      await page.getByLabel('Organisation').selectOption({ label: 'Zweite AG' });
      await page.keyboard.press('Control+6');
      await page
        .getByRole('listitem', { name: 'Zweite AG' })
        .getByRole('button', { name: 'Remove…' })
        .click();
      await page
        .getByRole('group', { name: 'Remove Zweite AG' })
        .getByRole('button', { name: 'Remove' })
        .click();
      await page.getByRole('listitem', { name: 'Zweite AG' }).waitFor({ state: 'detached' });
      await expect.poll(() => page.getByLabel('Organisation').inputValue()).toBe(main.id);
      await expect(page.getByLabel('Organisation').locator('option').allTextContents()).resolves.toEqual([
        'Sandbox GmbH',
      ]);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
      await other.stop();
    }
  }, 300_000);
});
