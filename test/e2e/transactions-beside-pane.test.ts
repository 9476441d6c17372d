import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { useAppTests } from './harness';

// The Transactions grid beside an open detail pane, across the window widths between the
// smallest and a large one. At the usual 1,280 px the counterparty and the description each got
// about 100 px ("Card stat…", "Credit card…") and the "Counterparty" header itself was cut; at
// 1,200 px the grid scrolled 70 px sideways, the review marks partly out of view; a 1,100 px
// window showed the counterparty wider (182 px) than a 1,280 px one did; and the booking date's
// header ("Booking date ▼", the default order) ran 7 px into its cell's padding at every width,
// alone or beside the pane.
const { openConnected } = useAppTests();

// Common sizes, and each side of the two widths where the grid changes its columns beside the
// pane (a grid of 512 px, the booking date back; 740 px, the description back), where a column's
// least width is all it gets.
const WINDOWS = [
  { width: 1100, height: 760 },
  { width: 1173, height: 760 },
  { width: 1174, height: 760 },
  { width: 1200, height: 800 },
  { width: 1280, height: 820 },
  { width: 1366, height: 768 },
  { width: 1401, height: 900 },
  { width: 1402, height: 900 },
  { width: 1440, height: 900 },
  { width: 1600, height: 900 },
];

interface Measured {
  window: number;
  grid: number;
  sideways: number;
  headers: string[];
  /** Headers whose text reaches past their cell, by how many px. */
  cutHeaders: string[];
  counterparty: number;
}

/** The grid's width, sideways scroll, headers shown and any cut, and the counterparty column's width. */
function measure(grid: Locator, window: number): Promise<Measured> {
  return grid.evaluate((box, window) => {
    const grid = box as HTMLElement;
    const cells = Array.from(grid.querySelectorAll<HTMLElement>('[role=columnheader]'));
    const cutHeaders: string[] = [];
    let counterparty = 0;
    for (const cell of cells) {
      const text = cell.textContent?.trim() ?? '';
      if (text === 'Selected') continue; // visually hidden: the checkbox column
      // The label's own width, laid out alone in the header's font, against its cell's content
      // box: a label wider than that runs into the padding and is cut short with an ellipsis
      // ("Counterparty…") or clipped, and a label cut either way is measured whole like this.
      const label = cell.querySelector('button') ?? cell;
      const probe = document.createElement('span');
      probe.textContent = label.textContent;
      probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
      probe.style.font = getComputedStyle(label).font;
      document.body.append(probe);
      const natural = probe.getBoundingClientRect().width;
      probe.remove();
      const style = getComputedStyle(cell);
      const reach =
        natural - (cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight));
      if (reach > 0.5) cutHeaders.push(`${text} by ${Math.round(reach)} px`);
      if (text === 'Counterparty') counterparty = cell.getBoundingClientRect().width;
    }
    return {
      window,
      grid: grid.clientWidth,
      sideways: grid.scrollWidth - grid.clientWidth,
      headers: cells.map((cell) => cell.textContent?.trim() ?? ''),
      cutHeaders,
      counterparty,
    };
  }, window);
}

async function settledLayout(grid: Locator, window: number): Promise<Measured> {
  let last = '';
  let measured: Measured | null = null;
  await expect
    .poll(async () => {
      measured = await measure(grid, window);
      const now = JSON.stringify(measured);
      const same = now === last;
      last = now;
      return same;
    })
    .toBe(true);
  return measured!;
}

describe('the Transactions grid beside the detail pane', () => {
  it('keeps its headers whole and its marks in view, and gives the counterparty room at every width', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 300 });
    const app = await openConnected({ sandbox, timeout: 30_000 });
    const { page } = app;
    try {
      await page.waitForFunction(() => document.fonts.status === 'loaded');
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const pane = page.getByTestId('transaction-pane');
      await grid.getByRole('row').nth(1).locator('.amount').waitFor();
      const seen: Measured[] = [];
      const aloneProblems: string[] = [];
      for (const size of WINDOWS) {
        await page.setViewportSize(size);
        // Alone, the headers are whole and nothing scrolls sideways either.
        const alone = await settledLayout(grid, size.width);
        for (const cut of alone.cutHeaders)
          aloneProblems.push(`at ${size.width} px alone the header ${cut} is cut`);
        if (alone.sideways > 0)
          aloneProblems.push(`at ${size.width} px alone the grid scrolls ${alone.sideways} px sideways`);
        await grid.focus();
        await page.keyboard.press('Enter');
        await pane.waitFor();
        const measured = await settledLayout(grid, size.width);
        seen.push(measured);
        if (size.width === 1280)
          await page.screenshot({ path: 'test/e2e/artifacts/transactions-beside-pane-1280.png' });
        await page.keyboard.press('Escape');
        await pane.waitFor({ state: 'detached' });
      }
      const problems: string[] = [];
      let narrower: Measured | null = null;
      for (const measured of seen) {
        const at = `at ${measured.window} px (grid ${measured.grid} px)`;
        if (measured.sideways > 0) problems.push(`${at} the grid scrolls ${measured.sideways} px sideways`);
        for (const cut of measured.cutHeaders) problems.push(`${at} the header ${cut} is cut`);
        if (!measured.headers.includes('Review')) problems.push(`${at} no review marks`);
        // From a grid of 512 px on, the booking date is shown beside the pane.
        if (measured.grid >= 512 && !measured.headers.some((name) => name.startsWith('Booking date')))
          problems.push(`${at} no booking date`);
        // With the same columns, a wider window never narrows the counterparty (a column coming
        // back, the date or the description, takes its share).
        const sameColumns = narrower && JSON.stringify(narrower.headers) === JSON.stringify(measured.headers);
        if (narrower && sameColumns && measured.counterparty + 0.5 < narrower.counterparty)
          problems.push(
            `${at} the counterparty is ${Math.round(measured.counterparty)} px, narrower than at ${narrower.window} px (${Math.round(narrower.counterparty)})`,
          );
        if (measured.counterparty < 120)
          problems.push(`${at} the counterparty is ${Math.round(measured.counterparty)} px`);
        narrower = measured;
      }
      expect([...aloneProblems, ...problems]).toEqual([]);
      // The windows reach both boundaries: a grid just under and at each of them.
      const grids = seen.map((measured) => measured.grid);
      for (const boundary of [512, 740]) {
        expect(grids).toContain(boundary - 1);
        expect(grids).toContain(boundary);
      }
      // At the usual size the counterparty has the room of two text columns, about 250 px.
      const usual = seen.find((measured) => measured.window === 1280)!;
      expect(usual.counterparty).toBeGreaterThanOrEqual(200);
      // Wide enough, the description comes back beside the pane.
      expect(seen.at(-1)!.headers).toContain('Description');
    } finally {
      await app.close();
      await sandbox.stop();
    }
  }, 180_000);

  it('shows a cut counterparty or description whole in its tooltip', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 60 });
    const app = await openConnected({ sandbox, timeout: 30_000 });
    const { page } = app;
    try {
      await page.setViewportSize({ width: 1600, height: 900 });
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).locator('.amount').waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('transaction-pane').waitFor();
      await grid.getByRole('columnheader', { name: 'Description' }).waitFor();
      const cells = await grid
        .getByRole('row')
        .nth(1)
        .getByRole('gridcell')
        .evaluateAll((found) =>
          found.map((cell) => ({ text: cell.textContent ?? '', title: cell.getAttribute('title') })),
        );
      // The checkbox, the booking date, the counterparty, the description, the amount, the marks.
      expect(cells).toHaveLength(6);
      const [, date, counterparty, description, amount, marks] = cells;
      expect(counterparty!.text).not.toBe('');
      expect(counterparty!.title).toBe(counterparty!.text);
      expect(description!.title).toBe(description!.text);
      // Dates, amounts and marks are never cut: they carry no tooltip.
      for (const cell of [date, amount, marks]) expect(cell!.title).toBeNull();
    } finally {
      await app.close();
      await sandbox.stop();
    }
  }, 120_000);
});
