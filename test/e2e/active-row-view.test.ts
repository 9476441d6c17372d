import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { windowOptions } from '../../src-main/shell/window-options';
import { startSandbox } from '../../src-sandbox';
import { useAppTests } from './harness';

// The row the keyboard makes active is brought into view whole: never under the list's header
// row, which stays at the top of what is seen of the list (sticky: in Suppliers at the top of
// the page, which scrolls the list), also when the row comes in from above (Page Up, k, ↑) and
// the header takes two lines; never below the list's bottom edge when it comes in from below
// (Page Down, j, ↓).
const { openConnected } = useAppTests();

const { width, height, minWidth, minHeight } = windowOptions('/preload.cjs');

/** Where the active row is against the header row above it and the bottom of its scroll box. */
async function activePlace(list: Locator): Promise<{
  id: string;
  top: number;
  headTop: number;
  headBottom: number;
  seenTop: number;
  bottom: number;
  boxBottom: number;
}> {
  return list.evaluate((element) => {
    const id = element.getAttribute('aria-activedescendant') ?? '';
    const row = document.getElementById(id)!.getBoundingClientRect();
    // A table's header cells are what stays at the top (each sticky), not its thead.
    const head = (element.querySelector('thead th') ??
      element.querySelector('.grid-head'))!.getBoundingClientRect();
    let box = element as HTMLElement | null;
    while (box && !/(auto|scroll)/.test(getComputedStyle(box).overflowY)) box = box.parentElement;
    // The top of what is seen of the list: the window cut by every box around it.
    let seenTop = 0;
    for (let around = element.parentElement; around; around = around.parentElement)
      if (/(auto|scroll|hidden)/.test(getComputedStyle(around).overflowY))
        seenTop = Math.max(seenTop, around.getBoundingClientRect().top);
    return {
      id,
      top: row.top,
      headTop: head.top,
      headBottom: head.bottom,
      seenTop,
      bottom: row.bottom,
      boxBottom: Math.min(box!.getBoundingClientRect().bottom, window.innerHeight),
    };
  });
}

/** Moves with `key` `times` times; after each move the active row is whole under the header. */
async function expectEachInView(page: Page, list: Locator, key: string, times: number): Promise<void> {
  for (let step = 0; step < times; step += 1) {
    const before = await list.getAttribute('aria-activedescendant');
    await page.keyboard.press(key);
    await expect.poll(() => list.getAttribute('aria-activedescendant')).not.toBe(before);
    // Brought into view on the next frame.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    const place = await activePlace(list);
    expect(place.top, `${key} ${step + 1}: ${JSON.stringify(place)}`).toBeGreaterThanOrEqual(
      place.headBottom - 0.5,
    );
    expect(place.bottom, `${key} ${step + 1}: ${JSON.stringify(place)}`).toBeLessThanOrEqual(
      place.boxBottom + 0.5,
    );
    // The header row itself is in view: it stays at the top of what is seen of the list.
    expect(place.headTop, `${key} ${step + 1}: ${JSON.stringify(place)}`).toBeGreaterThanOrEqual(
      place.seenTop - 0.5,
    );
  }
}

describe('the active row in view', () => {
  for (const [label, size] of [
    ['the usual window', { width, height }],
    ['the smallest window', { width: minWidth, height: minHeight }],
  ] as const)
    it(`keeps it clear of the header row in ${label} (${size.width}×${size.height})`, async () => {
      const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300 });
      const app = await openConnected({ sandbox, timeout: 20_000 });
      const { page } = app;
      try {
        await page.setViewportSize(size);
        const grid = page.getByRole('grid', { name: 'Transactions' });
        await grid.focus();
        await expectEachInView(page, grid, 'j', 20);
        await expectEachInView(page, grid, 'PageDown', 2);
        await page.keyboard.press('End');
        await expectEachInView(page, grid, 'PageUp', 2);
        await expectEachInView(page, grid, 'ArrowUp', 3);

        await page.keyboard.press('Control+2');
        const expenses = page.getByTestId('expenses-grid');
        await expenses.locator('tbody tr').nth(20).waitFor();
        await expenses.focus();
        await expectEachInView(page, expenses, 'j', 20);
        await expectEachInView(page, expenses, 'PageDown', 1);
        await page.keyboard.press('End');
        await expectEachInView(page, expenses, 'PageUp', 2);
        await expectEachInView(page, expenses, 'k', 3);
        await app.screenshot(`active-row-expenses-${size.width}x${size.height}`);

        await page.keyboard.press('Control+3');
        const suppliers = page.getByRole('grid', { name: 'Suppliers' });
        await suppliers.locator('tbody tr').nth(20).waitFor();
        await suppliers.focus();
        await expectEachInView(page, suppliers, 'ArrowDown', 20);
        await expectEachInView(page, suppliers, 'PageDown', 1);
        await page.keyboard.press('End');
        await expectEachInView(page, suppliers, 'PageUp', 2);
        await expectEachInView(page, suppliers, 'ArrowUp', 2);
      } finally {
        await app.close();
      }
    }, 120_000);
});
