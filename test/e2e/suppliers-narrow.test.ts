import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { checkScreen } from './axe';
import { useAppTests } from './harness';

// The Suppliers list in an 800×600 window, alone and beside the editor: an IBAN, shown in groups
// of four, a VAT id and a supplier number stay on one line; where the column is too narrow for
// one, it is cut short with an ellipsis, its whole value in the tooltip and in what a screen
// reader reads. The name keeps room, and the list does not scroll sideways. Beside the editor in
// the usual windows (1,200–1,366 px), a name takes two lines at most.
const { openConnected } = useAppTests();

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
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page } = app;
    try {
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
    }
  }, 120_000);

  it('keeps VAT ids and supplier numbers on one line at 800×600, with room for the name and nothing to scroll sideways', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const [supplier, swiss, numbered] = sandbox.state.suppliers
      .filter((candidate) => candidate.status === 'ACTIVE')
      .sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''));
    if (!supplier || !swiss || !numbered) throw new Error('the demo data has too few active suppliers');
    // A Dutch VAT id (14 characters), and a Swiss one as it is printed on invoices (20, with a
    // space, a hyphen and dots a line could break at), beside one of the longest IBANs.
    const dutch = 'NL123456789B01';
    const swissVat = 'CHE-123.456.789 MWST';
    sandbox.control?.corruptRecord({
      resource: 'suppliers',
      id: supplier.id,
      patch: { vatIdNo: dutch, iban: 'MT84MALT011000012345MTLCAST001S' },
    });
    sandbox.control?.corruptRecord({ resource: 'suppliers', id: swiss.id, patch: { vatIdNo: swissVat } });
    // A supplier number may have up to 50 characters.
    const longNumber = 'KREDITOR-2026-000123-MUENCHEN-NORD';
    sandbox.control?.corruptRecord({ resource: 'suppliers', id: numbered.id, patch: { number: longNumber } });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page } = app;
    try {
      await page.setViewportSize({ width: 800, height: 600 });
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const rows = grid.locator('tbody tr');
      const list = page.locator('.list-column');
      const sideways = () => list.evaluate((element) => element.scrollWidth - element.clientWidth);
      const dutchCell = rows
        .filter({ hasText: supplier.name })
        .getByRole('gridcell', { name: dutch, exact: true });
      const swissCell = rows
        .filter({ hasText: swiss.name })
        .getByRole('gridcell', { name: swissVat, exact: true });
      const numberCell = rows
        .filter({ hasText: numbered.name })
        .getByRole('gridcell', { name: longNumber, exact: true });
      await dutchCell.waitFor();
      await swissCell.waitFor();
      expect(await rows.count()).toBeGreaterThan(10);
      const listBox = (await list.boundingBox())!;

      // The list alone: every supplier number and VAT id on one line (a VAT id was broken into
      // pieces of two or three characters), each name with room for a word or two a line and
      // not cut, every Edit button in view, nothing to scroll sideways.
      for (const row of await rows.all()) {
        const [name, number, , vat] = await row.getByRole('gridcell').all();
        expect(await linesOf(number!)).toBe(1);
        expect(await linesOf(vat!)).toBe(1);
        expect((await name!.boundingBox())!.width).toBeGreaterThanOrEqual(100);
        expect(await name!.evaluate((cell) => cell.scrollWidth <= cell.clientWidth)).toBe(true);
        const edit = (await row.getByRole('button', { name: /^Edit / }).boundingBox())!;
        expect(edit.x + edit.width).toBeLessThanOrEqual(listBox.x + listBox.width);
      }
      expect(await sideways()).toBeLessThanOrEqual(0);
      // The Dutch one whole; the Swiss one cut short, the whole of it in the tooltip and in
      // what a screen reader reads (the cell's name above).
      expect(await cutShort(dutchCell)).toBe(false);
      expect(await cutShort(swissCell)).toBe(true);
      expect(await swissCell.getAttribute('title')).toBe(swissVat);
      expect(await cutShort(numberCell)).toBe(true);
      expect(await numberCell.getAttribute('title')).toBe(longNumber);
      await app.screenshot('suppliers-vat-800x600');

      // Beside the editor: still one line, cut short, the whole of it in the tooltip and the
      // cell's accessible name; the list does not scroll sideways.
      await grid.getByRole('button', { name: `Edit ${supplier.name}` }).click();
      await page.getByRole('form', { name: `Edit ${supplier.name}` }).waitFor();
      for (const cell of [dutchCell, swissCell]) {
        expect(await linesOf(cell)).toBe(1);
        expect(await cutShort(cell)).toBe(true);
      }
      expect(await dutchCell.getAttribute('title')).toBe(dutch);
      expect(await sideways()).toBeLessThanOrEqual(0);
      await app.screenshot('suppliers-vat-editor-800x600');
    } finally {
      await app.close();
    }
  }, 120_000);

  it('gives each name room beside the editor in the usual windows: at most two lines, the IBAN still on one', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300 });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page } = app;
    try {
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const rows = grid.locator('tbody tr');
      await rows.first().waitFor();
      const list = page.locator('.list-column');
      const problems: string[] = [];
      // Windows whose list is 481–760 px wide beside the editor; narrower, the VAT id and the
      // IBAN give way instead (the first test).
      for (const [width, height] of [
        [1200, 800],
        [1280, 820],
        [1366, 768],
      ] as const) {
        await page.setViewportSize({ width, height });
        await rows
          .first()
          .getByRole('button', { name: /^Edit / })
          .click();
        await page.getByRole('form', { name: /^Edit / }).waitFor();
        await page.waitForFunction(() => document.fonts.status === 'loaded');
        // The first rows: names of one to four words ("Alpen Facility Management e.K."), which
        // took three lines at 1,280 px: the name's column was held to 8em while the IBAN, which
        // the editor shows whole, took the rest.
        for (const row of (await rows.all()).slice(0, 20)) {
          const [name, , , , iban] = await row.getByRole('gridcell').all();
          const lines = await linesOf(name!);
          const text = (await name!.textContent()) ?? '';
          if (lines > 2) problems.push(`${text} takes ${lines} lines at ${width} px`);
          if ((await linesOf(iban!)) !== 1) problems.push(`${text}'s IBAN wraps at ${width} px`);
        }
        const sideways = await list.evaluate((element) => element.scrollWidth - element.clientWidth);
        if (sideways > 0) problems.push(`the list scrolls ${sideways} px sideways at ${width} px`);
        await page.keyboard.press('Escape');
      }
      expect(problems).toEqual([]);
    } finally {
      await app.close();
    }
  }, 120_000);
});
