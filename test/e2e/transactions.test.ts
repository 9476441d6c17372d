import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { applyReview } from '../../src-main/review';
import { openApp, useSharedOrganisation, type AppPage } from './harness';
import { holdAnswers } from './steps';

// The Transactions grid in Chromium against a real core and one synced sandbox: what the bulk
// bar and the totals line say while a search is being counted, and the grid by keyboard. The
// tests share the organisation (synced once), so its folder lives as long as the file's tests.
const shared = useSharedOrganisation({ seed: 3, transactions: 1500 });

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

function countOf(where: string): number {
  return shared.core
    .cacheOf(shared.profileId)
    .sqlite.prepare(`SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL AND ${where}`)
    .pluck()
    .get() as number;
}

/**
 * After a new transaction search with its count held: the count is asked for and held, and the
 * first page is in (the grid no longer busy, its first row shown).
 */
async function firstPageShown(page: Page, held: { waiting(): Promise<number> }): Promise<void> {
  await expect.poll(held.waiting).toBeGreaterThan(0);
  const grid = page.getByRole('grid', { name: 'Transactions' });
  await expect.poll(() => grid.getAttribute('aria-busy')).toBeNull();
  await grid.getByRole('row').nth(1).waitFor();
}

/** Expenses by its key, once its first row shows; its grid. */
async function showExpenses(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+2');
  const expenses = page.getByRole('grid', { name: 'Expenses' });
  await expenses.locator('tbody tr').first().waitFor();
  return expenses;
}

async function open(): Promise<AppPage> {
  const app = await openApp(shared.core);
  app.page.setDefaultTimeout(15_000);
  await app.page
    .getByTestId('totals')
    .getByText(count(countOf('1')), { exact: true })
    .waitFor();
  return app;
}

describe('transactions grid', () => {
  it('offers to mark the whole result only once it is counted, naming that count', async () => {
    const app = await open();
    const { page } = app;
    try {
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      const filters = page.getByRole('search', { name: 'Filter transactions' });
      const held = await holdAnswers(page, 'transactions.search', { totalsOnly: true });
      // A new search whose first page is full: its rows show, its count is on its way.
      await filters.getByLabel('Matched').selectOption('false');
      const unmatched = countOf('matched = 0');
      expect(unmatched).toBeGreaterThan(100);
      await firstPageShown(page, held);
      await bulk.getByText('Counting…').waitFor();
      expect(await bulk.getByRole('button', { name: /^Mark all/ }).isDisabled()).toBe(true);
      expect(await bulk.getByRole('button', { name: 'Unmark all…' }).isDisabled()).toBe(true);
      expect(await bulk.getByRole('button', { name: /^Mark all \d/ }).count()).toBe(0);

      await held.release();
      const markAll = bulk.getByRole('button', { name: `Mark all ${count(unmatched)} reviewed…` });
      await markAll.click();
      const confirm = bulk.getByRole('group', { name: 'Confirm the bulk change' });
      await confirm.getByText(`Mark all ${count(unmatched)} transactions?`).waitFor();
      await confirm.getByRole('button', { name: `Yes, change ${count(unmatched)}` }).waitFor();

      // The search changes under an open confirmation: it goes, rather than name the old count
      // for the new search.
      await filters.getByLabel('Matched').selectOption('true');
      await confirm.waitFor({ state: 'detached' });
      const matched = countOf('matched = 1');
      await bulk.getByRole('button', { name: `Mark all ${count(matched)} reviewed…` }).waitFor();

      // Typed text is searched after a pause; until then the result on screen is not counted.
      await filters.getByLabel('Search').fill('a');
      expect(await bulk.getByRole('button', { name: /^Mark all/ }).isDisabled()).toBe(true);
      await bulk.getByRole('button', { name: /^Mark all \d/ }).waitFor();
    } finally {
      await app.close();
    }
  });

  it('waits for the count of the expenses on screen too, before offering to mark them all', async () => {
    const app = await open();
    const { page } = app;
    try {
      await showExpenses(page);
      const bulk = page.getByRole('toolbar', { name: 'Expense list' });
      const held = await holdAnswers(page, 'expenses.search');
      await page
        .getByRole('search', { name: 'Filter expenses' })
        .getByLabel('Reviewed')
        .selectOption('false');
      await bulk.getByText('Counting…').waitFor();
      expect(await bulk.getByRole('button', { name: /^Mark all/ }).isDisabled()).toBe(true);
      expect(await bulk.getByRole('button', { name: /^Mark all \d/ }).count()).toBe(0);
      await held.release();
      await bulk.getByRole('button', { name: /^Mark all [\d,]+ reviewed…$/ }).waitFor();
      expect(await bulk.getByText('Counting…').count()).toBe(0);
    } finally {
      await app.close();
    }
  });

  it("says the result is being counted instead of the previous search's figures", async () => {
    const app = await open();
    const { page } = app;
    try {
      const totals = page.getByTestId('totals');
      const everything = count(countOf('1'));
      const held = await holdAnswers(page, 'transactions.search', { totalsOnly: true });
      await page
        .getByRole('search', { name: 'Filter transactions' })
        .getByLabel('Matched')
        .selectOption('false');
      await firstPageShown(page, held);
      // The line is a live region: it says what it knows, never the old count and sums.
      expect(await totals.textContent()).toBe('Counting…');
      expect(await totals.getByText(everything, { exact: true }).count()).toBe(0);
      await held.release();
      await totals.getByText(count(countOf('matched = 0')), { exact: true }).waitFor();
      expect(await totals.locator('.total-sum').count()).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });

  it('shows every review mark of a row, with and without the detail pane', async () => {
    const cache = shared.core.cacheOf(shared.profileId);
    const first = cache.sqlite
      .prepare(
        'SELECT id FROM bank_transactions WHERE deleted_at IS NULL ORDER BY booking_date DESC, id DESC LIMIT 1',
      )
      .pluck()
      .get() as string;
    const target = { by: 'ids' as const, kind: 'transaction' as const, ids: [first] };
    applyReview(cache, target, { action: 'setReviewed' });
    applyReview(cache, target, { action: 'flag', reason: 'Receipt missing' });
    applyReview(cache, target, { action: 'setNote', note: 'Asked for the invoice.' });
    const app = await open();
    const { page } = app;
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const marks = grid.getByRole('row').nth(1).getByRole('gridcell').last();
      await marks.getByText('Note').waitFor();
      // Each mark lies inside its cell, and the cell inside the grid: none is cut off.
      const hidden = () =>
        marks.evaluate((cell) => {
          const box = cell.getBoundingClientRect();
          const grid = cell.closest('[role=grid]')!.getBoundingClientRect();
          return Array.from(cell.querySelectorAll('.badge'))
            .filter((badge) => {
              const mark = badge.getBoundingClientRect();
              return mark.left < box.left || mark.right > Math.min(box.right, grid.right);
            })
            .map((badge) => badge.textContent);
        });
      expect(await marks.locator('.badge').count()).toBe(3);
      expect(await hidden()).toEqual([]);
      await grid.focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('transaction-pane').getByText('Flagged: Receipt missing').waitFor();
      expect(await hidden()).toEqual([]);
      expect(await grid.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0);
      // Screen readers hear each mark in words.
      expect(await marks.getByText('✓ Reviewed').count()).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('gives the focus back after a flag, so the review keys go on working', async () => {
    const app = await open();
    const { page } = app;
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement;
        return element?.getAttribute('role') || element?.id || element?.tagName;
      });
    const reasonFocused = () =>
      expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('placeholder')))
        .toBe('e.g. Receipt missing');
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const pane = page.getByTestId('transaction-pane');
      const row = (index: number) => grid.locator(`#tx-row-${index}`);
      await row(2).waitFor();
      // From the grid: f, a reason, Enter; then Space marks the same row, with no click between.
      await grid.focus();
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      await page.keyboard.press('f');
      await reasonFocused();
      await page.keyboard.type('Receipt missing');
      await page.keyboard.press('Enter');
      await pane.getByText('Flagged: Receipt missing').waitFor();
      await expect.poll(focused).toBe('grid');
      await page.keyboard.press(' ');
      await row(2).getByText('✓ Reviewed').waitFor();

      // From the pane: the same, and the focus goes back to the pane, where n writes a note.
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await expect.poll(focused).toBe('pane-title');
      await page.keyboard.press('f');
      await reasonFocused();
      await page.keyboard.type('Ask the bank');
      await page.keyboard.press('Enter');
      await pane.getByText('Flagged: Ask the bank').waitFor();
      await expect.poll(focused).toBe('pane-title');
      await page.keyboard.press('n');
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    } finally {
      await app.close();
    }
  });

  it('takes the focus when an expense shows its transaction, so the review keys work there', async () => {
    const app = await open();
    const { page } = app;
    try {
      const expenses = await showExpenses(page);
      await expenses.focus();
      await page.keyboard.press('Enter');
      const expensePane = page.getByTestId('expense-pane');
      const show = expensePane.getByRole('button', { name: 'Show in Transactions' });
      await expensePane.getByRole('heading', { name: 'Lines' }).waitFor();
      for (let step = 0; step < 30 && !(await show.isVisible()); step += 1) {
        await expenses.focus();
        await page.keyboard.press('j');
        await expensePane.getByRole('heading', { name: 'Lines' }).waitFor();
      }
      await show.focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
      const shownId = await page
        .getByRole('search', { name: 'Filter transactions' })
        .getByLabel('Ids')
        .inputValue();
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Transactions');
      await page.keyboard.press(' ');
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).getByText('✓ Reviewed').waitFor();
      expect(
        shared.core
          .cacheOf(shared.profileId)
          .sqlite.prepare(
            `SELECT count(*) FROM review_marks WHERE kind = 'transaction' AND record_id = ? AND reviewed_at IS NOT NULL`,
          )
          .pluck()
          .get(shownId),
      ).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('sorts from the keyboard: the column headers are in the Tab order', async () => {
    const app = await open();
    const { page } = app;
    const focusedName = () =>
      page.evaluate(() => {
        const element = document.activeElement;
        const header = element?.closest('[role=columnheader], th');
        return header ? `${element?.tagName} in ${header.textContent}` : element?.getAttribute('aria-label');
      });
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press('Tab');
      expect(await focusedName()).toBe('BUTTON in Booking date ▼');
      for (const _ of ['Counterparty', 'Description', 'Amount']) await page.keyboard.press('Tab');
      expect(await focusedName()).toBe('BUTTON in Amount');
      await page.keyboard.press('Enter');
      await grid.locator('[role=columnheader][aria-sort="descending"]', { hasText: 'Amount' }).waitFor();
      await page.keyboard.press(' ');
      await grid.locator('[role=columnheader][aria-sort="ascending"]', { hasText: 'Amount' }).waitFor();
      expect(await grid.locator('[role=columnheader][aria-sort]').count()).toBe(1);
      // Back in the grid, the arrow keys move between rows as before.
      for (const _ of ['Description', 'Counterparty', 'Booking date', 'grid'])
        await page.keyboard.press('Shift+Tab');
      expect(await focusedName()).toBe('Transactions');
      await page.keyboard.press('ArrowDown');
      expect(await grid.getAttribute('aria-activedescendant')).toBe('tx-row-1');

      const expenses = await showExpenses(page);
      await expenses.focus();
      await page.keyboard.press('Tab');
      expect(await focusedName()).toBe('BUTTON in Date');
      await page.keyboard.press('Enter');
      await expenses.locator('th[aria-sort="ascending"]', { hasText: 'Date' }).waitFor();
      await page.keyboard.press('Tab');
      expect(await focusedName()).toBe('BUTTON in Amount');
      await page.keyboard.press('Enter');
      await expenses.locator('th[aria-sort="descending"]', { hasText: 'Amount' }).waitFor();
    } finally {
      await app.close();
    }
  });

  it('closes the detail pane when the result is empty', async () => {
    const app = await open();
    const { page } = app;
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const pane = page.getByTestId('transaction-pane');
      const filters = page.getByRole('search', { name: 'Filter transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      await pane.getByText('Fees', { exact: true }).waitFor();
      // A search that finds nothing: no transaction of it is left to show or to mark.
      await filters.getByLabel('Search').fill('nothing-is-called-this');
      await page.getByText('No transaction matches these filters.').waitFor();
      await pane.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('search');

      // Marking the last unreviewed transaction of "Reviewed: No" from its pane empties the
      // result: the pane closes and the grid has the focus.
      const [id] = shared.core
        .cacheOf(shared.profileId)
        .sqlite.prepare(
          `SELECT id FROM bank_transactions t WHERE deleted_at IS NULL AND NOT EXISTS
           (SELECT 1 FROM review_marks m WHERE m.kind = 'transaction' AND m.record_id = t.id AND m.reviewed_at IS NOT NULL)
           LIMIT 1`,
        )
        .pluck()
        .all() as string[];
      await filters.getByLabel('Search').fill('');
      await filters.getByLabel('Reviewed').selectOption('false');
      await filters.getByRole('button', { name: 'More filters' }).click();
      await filters.getByLabel('Ids').fill(id!);
      await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      await pane.getByText('Fees', { exact: true }).waitFor();
      await page.keyboard.press(' ');
      await page.getByText('No transaction matches these filters.').waitFor();
      await pane.waitFor({ state: 'detached' });
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Transactions');
    } finally {
      await app.close();
    }
  });

  it("never shows the grid with the other layout's columns while the pane opens or closes", async () => {
    const app = await open();
    const { page } = app;
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const pane = page.getByTestId('transaction-pane');
      await grid.getByRole('row').nth(1).waitFor();
      // Whatever the page shows after each change of its DOM, once the change's own script is
      // done: whether the pane is there, and the grid's column headers. A layout chosen from
      // the width the grid had before the pane came or went would show here, however briefly.
      await page.evaluate(() => {
        const seen: Array<{ pane: boolean; headers: string[] }> = [];
        (window as unknown as { seen: typeof seen }).seen = seen;
        const record = () =>
          seen.push({
            pane: document.querySelector('[data-testid="transaction-pane"]') !== null,
            headers: Array.from(
              document.querySelectorAll('[role="grid"][aria-label="Transactions"] [role="columnheader"]'),
              (header) => header.textContent ?? '',
            ),
          });
        new MutationObserver(record).observe(document.body, {
          childList: true,
          subtree: true,
          attributes: true,
        });
      });
      const headers = () => grid.getByRole('columnheader').allTextContents();
      const settled = async (open: boolean) => {
        await pane.waitFor({ state: open ? 'visible' : 'detached' });
        // The layout once the grid's width has been measured again and nothing changes.
        let last: string[] = [];
        await expect
          .poll(async () => {
            const now = await headers();
            const same = JSON.stringify(now) === JSON.stringify(last);
            last = now;
            return same;
          })
          .toBe(true);
        return last;
      };
      const takeSeen = () =>
        page.evaluate(() =>
          (window as unknown as { seen: Array<{ pane: boolean; headers: string[] }> }).seen.splice(0),
        );
      for (const size of [
        { width: 1280, height: 800 },
        { width: 800, height: 560 },
      ]) {
        await page.setViewportSize(size);
        const alone = await settled(false);
        await takeSeen();
        await grid.focus();
        await page.keyboard.press('Enter');
        const beside = await settled(true);
        // Beside the pane the grid leaves columns out.
        expect(beside.length).toBeLessThan(alone.length);
        await page.keyboard.press('Escape');
        expect(await settled(false)).toEqual(alone);
        const seen = await takeSeen();
        expect(seen.filter((state) => state.pane).length).toBeGreaterThan(0);
        expect(seen.filter((state) => !state.pane).length).toBeGreaterThan(0);
        for (const state of seen)
          expect({ window: size.width, ...state }).toEqual({
            window: size.width,
            pane: state.pane,
            headers: state.pane ? beside : alone,
          });
      }
    } finally {
      await app.close();
    }
  });

  it('moves the focus to the open pane on Enter', async () => {
    const app = await open();
    const { page } = app;
    const focused = () =>
      page.evaluate(() => document.activeElement?.getAttribute('aria-label') || document.activeElement?.id);
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const pane = page.getByTestId('transaction-pane');
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      await pane.getByText('Fees', { exact: true }).waitFor();
      await expect.poll(focused).toBe('pane-title');
      // Back in the grid with the pane open (Shift+Tab over the column headers), a row further.
      for (let step = 0; step < 12 && (await focused()) !== 'Transactions'; step += 1)
        await page.keyboard.press('Shift+Tab');
      expect(await focused()).toBe('Transactions');
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await expect.poll(focused).toBe('pane-title');
    } finally {
      await app.close();
    }
  });
});
