import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { createCore } from '../../src-main/core';
import { startSandbox } from '../../src-sandbox';
import { openApp, useAppTests } from './harness';

// Keyboard work going on across areas: after an area is changed by key the focus is in the new
// area, so the next key acts there instead of falling on the page.
const { tempDir, secrets, openConnected } = useAppTests();

async function focused(element: Locator): Promise<boolean> {
  return element.evaluate((node) => node === document.activeElement);
}

describe('keyboard across areas', () => {
  it('keeps the keys working: focus in the new area after Ctrl+digit and 1…4, Page Up/Down in a list', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300 });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page, core, profile } = app;
    try {
      const transactions = page.getByRole('grid', { name: 'Transactions' });
      await transactions.getByRole('row').nth(1).waitFor();
      await transactions.focus();

      // Expenses (loaded on first use): its list has the focus, and Space marks the first row.
      await page.keyboard.press('Control+2');
      const expenses = page.getByRole('grid', { name: 'Expenses' });
      await expenses.locator('tbody tr').first().waitFor();
      await expect.poll(() => focused(expenses)).toBe(true);
      await page.keyboard.press(' ');
      await expenses.locator('tbody tr').first().getByText('✓ Reviewed').waitFor();
      // Page Down moves a screen of rows and brings the row into view; Page Up goes back.
      const activeIndex = async () =>
        Number((await expenses.getAttribute('aria-activedescendant'))?.replace('ex-row-', ''));
      await page.keyboard.press('PageDown');
      await expect.poll(activeIndex).toBeGreaterThan(5);
      const moved = await activeIndex();
      expect(moved).toBeLessThan((await expenses.locator('tbody tr').count()) - 1);
      await expect
        .poll(async () => (await page.locator(`#ex-row-${moved}`).boundingBox())?.y ?? Infinity)
        .toBeLessThan(800);
      await page.keyboard.press('PageUp');
      await expect.poll(activeIndex).toBe(0);

      // Areas without a list: their heading, its focus ring round the word, not across the page
      // (a heading alone on its line took the whole width, in Settings and Sync).
      const ringRoundWord = (name: string) =>
        page.getByRole('heading', { level: 1, name }).evaluate((heading) => {
          const text = document.createRange();
          text.selectNodeContents(heading);
          return heading.getBoundingClientRect().width - text.getBoundingClientRect().width;
        });
      for (const [key, name] of [
        ['Control+5', 'Sync'],
        ['Control+4', 'Files'],
        ['Control+6', 'Settings'],
      ] as const) {
        await page.keyboard.press(key);
        await expect.poll(() => focused(page.getByRole('heading', { level: 1, name }))).toBe(true);
        expect(await ringRoundWord(name), name).toBeLessThan(12);
      }
      await page.keyboard.press('Control+7');
      const attention = page.getByRole('heading', { level: 1, name: 'Needs attention' });
      await expect.poll(() => focused(attention)).toBe(true);

      // 1 opens the unmatched transactions; the grid has the focus and j, Space act on it.
      await page.getByTestId('attention').waitFor();
      await page.keyboard.press('1');
      await transactions.getByRole('row').nth(2).waitFor();
      await expect.poll(() => focused(transactions)).toBe(true);
      await page.keyboard.press('j');
      await expect.poll(() => transactions.getAttribute('aria-activedescendant')).toBe('tx-row-1');
      await page.keyboard.press(' ');
      const reviewed = () =>
        core
          .cacheOf(profile.id)
          .sqlite.prepare(
            `SELECT count(*) FROM review_marks WHERE kind = 'transaction' AND reviewed_at IS NOT NULL`,
          )
          .pluck()
          .get();
      await expect.poll(reviewed).toBe(1);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('names the shortcuts with ⌘ on macOS, where Cmd+digit changes the area as Ctrl+digit does', async () => {
    const core = createCore({ dataDir: tempDir(), secrets, platform: 'darwin' });
    const app = await openApp(core);
    const { page } = app;
    try {
      const transactions = page.getByRole('navigation', { name: 'Areas' }).getByRole('button', {
        name: 'Transactions',
      });
      await expect.poll(() => transactions.getAttribute('title')).toBe('Transactions (⌘1)');
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.getByRole('rowheader', { name: '⌘1…8' }).waitFor();
      expect(await help.getByText('Ctrl+').count()).toBe(0);
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached' });
      // The menu's Cmd+digit reaches the page through the menu in the app; the page takes the
      // key itself too (Meta is Cmd).
      await page.keyboard.press('Meta+6');
      await expect.poll(() => focused(page.getByRole('heading', { level: 1, name: 'Settings' }))).toBe(true);
    } finally {
      await app.close();
      await core.close();
    }
  });
});
