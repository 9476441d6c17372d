import { randomUUID } from 'node:crypto';
import type { Locator } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp } from './harness';
import { connectSandbox } from './steps';

// The Suppliers list in an 800×600 window, alone and beside the editor: an IBAN, shown in groups
// of four, stays on one line; where the column is too narrow for it, it is cut short with an
// ellipsis, its whole value in the tooltip and in what a screen reader reads.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

/** How many lines the cell's text takes: a text has one box per line it is laid out on. */
const linesOf = (cell: Locator) =>
  cell.evaluate((element) => {
    const tops = new Set<number>();
    const texts = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(text);
      for (const box of Array.from(range.getClientRects())) if (box.width > 0) tops.add(Math.round(box.top));
    }
    return tops.size;
  });

/** Whether the text is wider than the room it is shown in (then the ellipsis shows). */
const cutShort = (cell: Locator) =>
  cell.evaluate((element) => {
    const shown = element.querySelector('.clip') ?? element;
    return shown.scrollWidth > shown.clientWidth;
  });

describe('the Suppliers list in a narrow window', () => {
  it('keeps an IBAN on one line, cut short beside the editor with its whole value in the tooltip', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const supplier = sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE');
    if (!supplier) throw new Error('the demo data has no active supplier');
    // One of the longest IBANs there are: Malta's, 31 characters, 39 in groups of four.
    const iban = 'MT84MALT011000012345MTLCAST001S';
    const grouped = 'MT84 MALT 0110 0001 2345 MTLC AST0 01S';
    sandbox.control?.corruptRecord({ resource: 'suppliers', id: supplier.id, patch: { iban } });
    const core = createCore({ dataDir: tempDir(), secrets });
    await connectSandbox(core, sandbox);
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type(supplier.number);
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const row = grid.locator('tbody tr').filter({ hasText: supplier.name }).first();
      await row.waitFor();
      const cell = row.getByRole('gridcell', { name: grouped, exact: true });
      const list = page.locator('.list-column');
      const sideways = () => list.evaluate((element) => element.scrollWidth - element.clientWidth);

      // In a window of 1280 × 800 there is room for the whole of it.
      await cell.waitFor();
      expect(await linesOf(cell)).toBe(1);
      expect(await cutShort(cell)).toBe(false);

      // Alone in an 800×600 window: on one line, cut short, the whole of it in the tooltip;
      // nothing to scroll sideways.
      await page.setViewportSize({ width: 800, height: 600 });
      await expect.poll(() => linesOf(cell)).toBe(1);
      expect(await cutShort(cell)).toBe(true);
      expect(await cell.getAttribute('title')).toBe(grouped);
      expect(await sideways()).toBeLessThanOrEqual(0);
      await app.screenshot('suppliers-800x600');

      // Beside the editor: still one line, cut short, the whole of it in the tooltip and the
      // cell's accessible name; the list does not scroll sideways.
      await grid.getByRole('button', { name: `Edit ${supplier.name}` }).click();
      await page.getByRole('form', { name: `Edit ${supplier.name}` }).waitFor();
      await cell.waitFor();
      expect(await linesOf(cell)).toBe(1);
      expect(await cutShort(cell)).toBe(true);
      expect(await cell.getAttribute('title')).toBe(grouped);
      expect(await sideways()).toBeLessThanOrEqual(0);
      await app.screenshot('suppliers-editor-800x600');
      await checkScreen(app, 'suppliers-editor-800x600');
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 120_000);
});
