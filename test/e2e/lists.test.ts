import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, useSharedOrganisation, type AppPage } from './harness';
import { holdAnswers } from './steps';

// The lists of Transactions, Expenses, Suppliers and Dimensions while a search is read, from
// their search fields, and as screen readers are told about them. The tests share one synced
// organisation; only the first marks two expenses reviewed.
const shared = useSharedOrganisation({ seed: 5, transactions: 300 });

async function withApp(run: (app: AppPage, page: Page) => Promise<void>): Promise<void> {
  const app = await openApp(shared.core);
  app.page.setDefaultTimeout(20_000);
  try {
    await app.page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
    await run(app, app.page);
  } finally {
    await app.close();
  }
}

const isFocused = (element: Locator) => element.evaluate((node) => node === document.activeElement);

describe('lists while another search is read', () => {
  it('keeps the expenses and the open pane on screen, and the pane on its expense if the new result holds it', () =>
    withApp(async (_app, page) => {
      await page.keyboard.press('Control+2');
      const grid = page.getByRole('grid', { name: 'Expenses' });
      const rows = grid.locator('tbody tr');
      await rows.first().waitFor();
      await expect.poll(() => isFocused(grid)).toBe(true);
      // The first two expenses reviewed, the third opened: under "Reviewed: No" it comes first.
      for (const index of [0, 1]) {
        await page.keyboard.press(' ');
        await page.locator(`#ex-row-${index}`).getByText('✓ Reviewed').waitFor();
        await page.keyboard.press('j');
      }
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await pane.getByRole('heading', { name: 'Lines' }).waitFor();
      const opened = await page.locator('#ex-row-2').innerText();
      const title = pane.getByRole('heading', { level: 2 });
      const heading = await title.textContent();
      const shown = await rows.count();
      const filters = page.getByRole('search', { name: 'Filter expenses' });

      // While the new search is read, the rows and the pane stay as they were.
      let held = await holdAnswers(page, 'expenses.search');
      await filters.getByLabel('Reviewed').selectOption('false');
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await rows.count()).toBe(shown);
      expect(await title.textContent()).toBe(heading);
      await held.release();
      // Read: the pane shows the same expense, highlighted where it now is (first).
      await expect.poll(() => grid.getAttribute('aria-activedescendant')).toBe('ex-row-0');
      expect(await page.locator('#ex-row-0').innerText()).toBe(opened);
      expect(await title.textContent()).toBe(heading);

      // A search it is not in: the pane stays while it is read, and goes with the answer.
      held = await holdAnswers(page, 'expenses.search');
      await filters.getByLabel('Search').fill('nothing-is-called-this');
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await rows.count()).toBeGreaterThan(0);
      expect(await pane.isVisible()).toBe(true);
      await held.release();
      await page.getByText('No expense matches.').waitFor();
      await pane.waitFor({ state: 'detached' });
    }));

  it('keeps an open transaction in its pane through another search or order, highlighted where it now is', () =>
    withApp(async (_app, page) => {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const active = () => grid.getAttribute('aria-activedescendant');
      const matchedOf = (index: number) => page.locator(`#tx-row-${index} [aria-colindex="8"]`).innerText();
      // A row is opened that, under "Matched" set to its value, keeps some rows above it (not
      // the new first) but fewer (not the same place).
      const values: string[] = [];
      for (let index = 0; index < 16; index++) values.push(await matchedOf(index));
      const placeUnder = (index: number) => values.slice(0, index).filter((v) => v === values[index]).length;
      const opened = values.findIndex((_, index) => placeUnder(index) > 0 && placeUnder(index) < index);
      expect(opened, 'the first rows mix matched and unmatched').toBeGreaterThan(0);
      const matched = values[opened];
      const expected = placeUnder(opened);
      await grid.focus();
      for (let index = 0; index < opened; index++) await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('transaction-pane');
      const shownId = pane.locator('dt:text-is("Id") + dd');
      await shownId.waitFor();
      const id = await shownId.textContent();
      const rowText = await page.locator(`#tx-row-${opened}`).innerText();
      const filters = page.getByRole('search', { name: 'Filter transactions' });

      // While the new search is read, the pane stays on its transaction.
      let held = await holdAnswers(page, 'transactions.search');
      await filters.getByLabel('Matched').selectOption(matched === 'Yes' ? 'true' : 'false');
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await shownId.textContent()).toBe(id);
      await held.release();
      // Read: still on it, highlighted where it now is — not on the new result's first row.
      await expect.poll(active).toBe(`tx-row-${expected}`);
      expect(await page.locator(`#tx-row-${expected}`).innerText()).toBe(rowText);
      expect(await shownId.textContent()).toBe(id);

      // The other order puts it past the first page the grid reads: it is found there.
      held = await holdAnswers(page, 'transactions.search');
      await grid.getByRole('button', { name: 'Booking date' }).click();
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await shownId.textContent()).toBe(id);
      await held.release();
      await expect
        .poll(async () => Number((await active())?.replace('tx-row-', '') ?? -1))
        .toBeGreaterThan(100);
      const now = await active();
      await expect.poll(() => page.locator(`#${now}`).innerText()).toBe(rowText);
      expect(await shownId.textContent()).toBe(id);
      // Scrolled to: whole between the header row and the grid's bottom edge.
      const place = await grid.evaluate((box, rowId) => {
        const row = document.getElementById(rowId)!.getBoundingClientRect();
        const head = box.querySelector('.grid-head')!.getBoundingClientRect();
        return { top: row.top - head.bottom, bottom: box.getBoundingClientRect().bottom - row.bottom };
      }, now!);
      expect(place.top).toBeGreaterThanOrEqual(-0.5);
      expect(place.bottom).toBeGreaterThanOrEqual(-0.5);

      // A search it is not in: the pane stays while it is read, and goes with the answer.
      held = await holdAnswers(page, 'transactions.search');
      await filters.getByLabel('Search').fill('nothing-is-called-this');
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await pane.isVisible()).toBe(true);
      await held.release();
      await page.getByText('No transaction matches these filters.').waitFor();
      await pane.waitFor({ state: 'detached' });
    }));

  it('keeps the suppliers and a dimension’s items on screen while their search is read', () =>
    withApp(async (_app, page) => {
      await page.keyboard.press('Control+3');
      const suppliers = page.getByRole('grid', { name: 'Suppliers' }).locator('tbody tr');
      await suppliers.first().waitFor();
      const supplier = shared.sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE');
      if (!supplier) throw new Error('the demo data has no active supplier');
      const listed = await suppliers.count();
      expect(listed).toBeGreaterThan(1);
      let held = await holdAnswers(page, 'suppliers.search');
      await page.getByLabel('Search').fill(supplier.number);
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await suppliers.count()).toBe(listed);
      await held.release();
      await expect.poll(() => suppliers.allInnerTexts()).toEqual([expect.stringContaining(supplier.name)]);

      await page.keyboard.press('Control+8');
      const dimensions = page.getByRole('grid', { name: 'Dimensions' });
      await dimensions.locator('tbody tr').nth(2).waitFor();
      await dimensions.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      const project = shared.sandbox.state.dimensions.find((d) => d.name === 'Project');
      const item = shared.sandbox.state.items.find(
        (i) => i.dimensionId === project?.id && i.status !== 'DELETED',
      );
      if (!item) throw new Error('the demo data has no Project item');
      const items = page.getByRole('grid', { name: 'Items of Project' }).locator('tbody tr');
      await items.first().waitFor();
      const itemCount = await items.count();
      expect(itemCount).toBeGreaterThan(1);
      held = await holdAnswers(page, 'dimensionItems.search');
      await page.getByLabel('Search items').fill(item.code);
      await expect.poll(held.waiting).toBeGreaterThan(0);
      expect(await items.count()).toBe(itemCount);
      await held.release();
      await expect.poll(() => items.allInnerTexts()).toEqual([expect.stringContaining(item.name)]);
    }));
});

describe('search fields', () => {
  it('hands the focus to the list on Esc, the text and its search kept', () =>
    withApp(async (_app, page) => {
      const lists: Array<{ key: string; grid: string; field: string; text: string }> = [
        { key: 'Control+1', grid: 'Transactions', field: 'Search', text: 'a' },
        { key: 'Control+2', grid: 'Expenses', field: 'Search', text: 'e' },
        { key: 'Control+3', grid: 'Suppliers', field: 'Search', text: 'e' },
        { key: 'Control+8', grid: 'Items of Cost carrier', field: 'Search items', text: '1' },
      ];
      for (const list of lists) {
        await page.keyboard.press(list.key);
        const grid = page.getByRole('grid', { name: list.grid });
        await grid.getByRole('row').nth(1).waitFor();
        await page.keyboard.press('/');
        const field = page.getByLabel(list.field, { exact: true });
        await expect.poll(() => isFocused(field)).toBe(true);
        await page.keyboard.type(list.text);
        await page.keyboard.press('Escape');
        await expect.poll(() => isFocused(grid), { message: list.grid }).toBe(true);
        expect(await field.inputValue()).toBe(list.text);
      }
    }));
});

describe('selection in the lists', () => {
  it('tells screen readers the same in Transactions and Expenses: the highlighted row is active, aria-selected is the x selection', () =>
    withApp(async (_app, page) => {
      for (const [key, name] of [
        ['Control+1', 'Transactions'],
        ['Control+2', 'Expenses'],
      ] as const) {
        await page.keyboard.press(key);
        const grid = page.getByRole('grid', { name });
        await grid.getByRole('row').nth(2).waitFor();
        await grid.focus();
        expect(await grid.getAttribute('aria-multiselectable')).toBe('true');
        const active = () => grid.getAttribute('aria-activedescendant');
        const selected = (id: string | null) => page.locator(`#${id}`).getAttribute('aria-selected');
        const first = await active();
        expect(await selected(first)).toBe('false');
        // x selects the highlighted row; moving on leaves it selected and the next one not.
        await page.keyboard.press('x');
        await expect.poll(() => selected(first)).toBe('true');
        await page.keyboard.press('j');
        await expect.poll(active).not.toBe(first);
        const second = await active();
        expect(await selected(second)).toBe('false');
        expect(await selected(first)).toBe('true');
        await page.keyboard.press('x');
        await expect.poll(() => selected(second)).toBe('true');
        await page.keyboard.press('x');
        await expect.poll(() => selected(second)).toBe('false');
      }
    }));
});

describe('the order beside a narrow pane', () => {
  it('says the order of a column the grid leaves out, and reverses it from the keyboard', () =>
    withApp(async (app, page) => {
      await page.setViewportSize({ width: 800, height: 600 });
      const grid = page.getByRole('grid', { name: 'Transactions' });
      const note = page.getByTestId('sort-note');
      // Alone, the sorted column's header says the order: no note.
      await grid.getByRole('columnheader', { name: 'Booking date' }).waitFor();
      expect(await note.count()).toBe(0);
      await grid.focus();
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('transaction-pane');
      const shownId = pane.locator('dt:text-is("Id") + dd');
      await shownId.waitFor();
      const id = await shownId.textContent();
      // Beside the narrow pane the booking date is left out; the note says the order instead.
      await grid.getByRole('columnheader', { name: 'Booking date' }).waitFor({ state: 'detached' });
      expect(await note.innerText()).toContain('Sorted by booking date ↓');
      expect(await note.textContent()).toContain('descending');
      // The totals line counted, as it is on screen once the totals thread (started at the
      // first count, a second or more in tests, where it loads from source) has answered.
      const live = shared.core
        .cacheOf(shared.profileId)
        .sqlite.prepare('SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL')
        .pluck()
        .get() as number;
      await page
        .getByTestId('totals')
        .getByText(new Intl.NumberFormat('en-US').format(live), { exact: true })
        .waitFor();
      await app.screenshot('transactions-sort-note-800x600');

      // Shift+Tab from the grid reaches its button; Enter reverses the order: the newest
      // transaction, first before, is now last (past the first page), and the pane stays on it.
      await grid.focus();
      await page.keyboard.press('Shift+Tab');
      const reverse = note.getByRole('button', { name: 'Reverse order' });
      await expect.poll(() => reverse.evaluate((node) => node === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => note.textContent()).toContain('ascending');
      expect(await note.innerText()).toContain('Sorted by booking date ↑');
      await expect
        .poll(async () =>
          Number((await grid.getAttribute('aria-activedescendant'))?.replace('tx-row-', '') ?? -1),
        )
        .toBeGreaterThan(100);
      expect(await shownId.textContent()).toBe(id);

      // A column shown beside the pane takes the order with its header; the note goes.
      await grid.getByRole('button', { name: 'Amount' }).click();
      await grid.locator('[role=columnheader][aria-sort="descending"]', { hasText: 'Amount' }).waitFor();
      await note.waitFor({ state: 'detached' });
      await page.setViewportSize({ width: 1280, height: 800 });
    }));
});

describe('paging as soon as a list opens', () => {
  it('keeps the page moved to within the search field’s pause, in Expenses and Suppliers', () =>
    withApp(async (_app, page) => {
      // Each list opened once first, so that its code is loaded: a list loaded on first use is
      // shown after a pause of React's own, which a held clock would never end.
      for (const [key, name] of [
        ['Control+2', 'Expenses'],
        ['Control+3', 'Suppliers'],
        ['Control+1', 'Transactions'],
      ] as const) {
        await page.keyboard.press(key);
        await page.getByRole('grid', { name }).getByRole('row').nth(1).waitFor();
      }
      // The page's clock stands still from here: only what is due now runs (the answers'
      // callbacks), so Next is pressed well inside the 200 ms pause a search field waits for.
      await page.clock.install();
      await page.clock.pauseAt(Date.now() + 1_000);
      /** Runs what is due now until the condition holds, the clock held where it is. */
      const settle = async (what: string, holds: () => Promise<boolean>) => {
        for (let turn = 0; !(await holds()); turn += 1) {
          if (turn > 2_000) throw new Error(`${what}: not reached with the clock held`);
          await page.clock.runFor(0);
        }
      };
      for (const [key, name] of [
        ['Control+2', 'Expenses'],
        ['Control+3', 'Suppliers'],
      ] as const) {
        await page.keyboard.press(key);
        const rows = page.getByRole('grid', { name }).locator('tbody tr');
        const pager = page.getByRole('navigation', { name: `${name} pages` });
        const says = async (pattern: RegExp) =>
          (await pager.count()) > 0 && pattern.test((await pager.textContent()) ?? '');
        await settle(
          `${name}'s first page`,
          async () => (await rows.count()) > 0 && (await says(/Page 1 of \d+/)),
        );
        expect(Number(/Page 1 of (\d+)/.exec((await pager.textContent()) ?? '')?.[1])).toBeGreaterThan(1);
        const first = await rows.first().textContent();
        await pager.getByRole('button', { name: 'Next' }).click();
        await settle(
          `${name}'s second page`,
          async () => (await says(/Page 2 of/)) && (await rows.first().textContent()) !== first,
        );
        // The pause passes with nothing typed: the list stays on the page it was moved to. (The
        // old code's timer put it back on page 1 at once; the wait lets the page draw that.)
        await page.clock.runFor(1_000);
        await page.waitForTimeout(300);
        expect(await pager.textContent()).toMatch(/Page 2 of/);
        expect(await rows.first().textContent()).not.toBe(first);
      }
    }));
});

describe('the result’s buttons as soon as Transactions opens', () => {
  it('enables them once the result is counted, without waiting for the search form’s pause', () =>
    withApp(async (_app, page) => {
      // Transactions' code is loaded (it opened first); the clock is held before it opens again,
      // so the buttons are read inside the 200 ms pause the search form waits after a change.
      await page.keyboard.press('Control+2');
      await page.getByRole('grid', { name: 'Expenses' }).getByRole('row').nth(1).waitFor();
      await page.clock.install();
      await page.clock.pauseAt(Date.now() + 1_000);
      await page.keyboard.press('Control+1');
      const totals = page.getByTestId('totals');
      for (
        let turn = 0;
        !/\d+\s+transactions/.test((await totals.count()) ? await totals.innerText() : '');
        turn++
      ) {
        if (turn > 2_000) throw new Error('Transactions: not counted with the clock held');
        await page.clock.runFor(0);
      }
      // Nothing was typed: the form as opened is no pending change. (The old form held the
      // result's buttons disabled until its pause had passed.)
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      for (const name of ['Export as CSV…', 'Download files of this result…'])
        expect(await bulk.getByRole('button', { name }).isEnabled(), name).toBe(true);
    }));
});

describe('a search that finds one transaction', () => {
  it('says one transaction of a search that finds one, in the bulk change, the export and the download', () =>
    withApp(async (_app, page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      const id = shared.core
        .cacheOf(shared.profileId)
        .sqlite.prepare('SELECT id FROM bank_transactions WHERE deleted_at IS NULL ORDER BY id LIMIT 1')
        .pluck()
        .get() as string;
      await page.getByLabel('Search', { exact: true }).fill(id);
      const bulk = page.getByRole('toolbar', { name: 'Bulk review' });
      const mark = bulk.getByRole('button', { name: 'Mark all 1 reviewed…' });
      await expect.poll(() => mark.isEnabled()).toBe(true);
      // "Mark all 1 transactions?", "All 1 transactions of this search" were shown.
      await mark.click();
      const confirm = page.getByRole('group', { name: 'Confirm the bulk change' });
      expect(await confirm.innerText()).toMatch(/^Mark the 1 transaction\?/);
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await bulk.getByRole('button', { name: 'Export as CSV…' }).click();
      const exporting = page.getByRole('dialog', { name: 'Export as CSV' });
      await exporting.getByText('The 1 transaction of this search, with its review marks.').waitFor();
      await page.keyboard.press('Escape');
      await exporting.waitFor({ state: 'hidden' });
      await bulk.getByRole('button', { name: 'Download files of this result…' }).click();
      const download = page.getByRole('dialog', { name: 'Download files' });
      await download.getByText('The 1 transaction of this search', { exact: true }).waitFor();
      await page.keyboard.press('Escape');
      await download.waitFor({ state: 'hidden' });
    }));
});

describe('the focus handed to a list in an area that scrolls as a page', () => {
  /**
   * Whether the element is whole in what is seen of the page (above the status bar), to within
   * a pixel: the page scrolls by whole pixels.
   */
  const inView = (element: Locator) =>
    element.evaluate((node) => {
      const box = node.getBoundingClientRect();
      const seen = document.getElementById('content')!.getBoundingClientRect();
      return box.top >= seen.top - 1 && box.bottom <= seen.bottom + 1;
    });

  it('keeps the Suppliers heading and search field in view, an edited supplier beside its editor, and a dimension’s items brought into view', () =>
    withApp(async (_app, page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      // Opened by key, the list takes the focus: the page stays at its top. Opened a second
      // time, its rows are there from the start (read before), so the list is already as tall
      // as its rows when it takes the focus.
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const rows = grid.locator('tbody tr');
      await page.keyboard.press('Control+3');
      await rows.nth(1).waitFor();
      await page.keyboard.press('Control+1');
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await page.keyboard.press('Control+3');
      await rows.nth(1).waitFor();
      await expect.poll(() => isFocused(grid)).toBe(true);
      const search = page.getByLabel('Search', { exact: true });
      const heading = page.getByRole('heading', { level: 1, name: 'Suppliers' });
      expect(await grid.evaluate((node) => node.getBoundingClientRect().height)).toBeGreaterThan(800);
      expect([await inView(heading), await inView(search)]).toEqual([true, true]);

      // Esc in the search field: the list has the focus, the field stays in view.
      await page.keyboard.press('/');
      await expect.poll(() => isFocused(search)).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => isFocused(grid)).toBe(true);
      expect([await inView(heading), await inView(search)]).toEqual([true, true]);

      // The editor closed: the same, and the row it edited in view.
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      const editor = page.getByRole('complementary', { name: 'Supplier editor' });
      await editor.waitFor();
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'detached' });
      await expect.poll(() => isFocused(grid)).toBe(true);
      expect([await inView(heading), await inView(search), await inView(rows.nth(1))]).toEqual([
        true,
        true,
        true,
      ]);

      // The last row edited: its editor opens beside it, the page where it was (the editor at
      // the top of what is seen, the row brought back into view once the narrower list is laid
      // out again); closing the editor leaves that row in view.
      await page.keyboard.press('End');
      await expect.poll(() => inView(rows.last())).toBe(true);
      await page.keyboard.press('Enter');
      await editor.waitFor();
      const name = editor.getByLabel('Name', { exact: true });
      await expect.poll(() => isFocused(name)).toBe(true);
      await expect.poll(() => inView(rows.last())).toBe(true);
      expect([await inView(name), await inView(editor.getByRole('heading'))]).toEqual([true, true]);
      await page.keyboard.press('Escape');
      await editor.waitFor({ state: 'detached' });
      await expect.poll(() => isFocused(grid)).toBe(true);
      expect(await inView(rows.last())).toBe(true);

      // In the least window, Enter on a system dimension hands the focus to its items, below
      // the dimensions: their list is brought into view, its header and first row whole.
      await page.setViewportSize({ width: 800, height: 560 });
      await page.keyboard.press('Control+8');
      const dimensions = page.getByRole('grid', { name: 'Dimensions' });
      await dimensions.locator('tbody tr').nth(1).waitFor();
      await expect.poll(() => isFocused(dimensions)).toBe(true);
      const items = page.getByRole('grid', { name: /^Items of / });
      await items.locator('tbody tr').first().waitFor();
      await page.keyboard.press('Enter');
      await expect.poll(() => isFocused(items)).toBe(true);
      expect([await inView(items.locator('thead')), await inView(items.locator('tbody tr').first())]).toEqual(
        [true, true],
      );
    }));

  it('starts a new page at its top, its first row highlighted, with Next in view and keeping the focus', () =>
    withApp(async (_app, page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      for (const [key, name, prefix] of [
        ['Control+2', 'Expenses', 'ex-row'],
        ['Control+3', 'Suppliers', 'sup-row'],
      ] as const) {
        await page.keyboard.press(key);
        const grid = page.getByRole('grid', { name });
        const rows = grid.locator('tbody tr');
        await rows.nth(1).waitFor();
        await expect.poll(() => isFocused(grid)).toBe(true);
        // A row some way down highlighted, then Next reached: the pager was under the rows'
        // end, so reaching it scrolled the list there (Expenses' list box to 997 px).
        for (let press = 0; press < 20; press++) await page.keyboard.press('j');
        const pager = page.getByRole('navigation', { name: `${name} pages` });
        const next = pager.getByRole('button', { name: 'Next' });
        expect(await inView(next), `${name}: Next in view before it is reached`).toBe(true);
        await next.focus();
        const first = await rows.first().textContent();
        await page.keyboard.press('Enter');
        await expect.poll(() => pager.textContent()).toMatch(/Page 2 of/);
        await expect.poll(() => rows.first().textContent()).not.toBe(first);
        // The new page from its top: its first row highlighted and in view, Next still in view
        // with the focus.
        await expect.poll(() => grid.getAttribute('aria-activedescendant')).toBe(`${prefix}-0`);
        await expect
          .poll(() => inView(rows.first()), { message: `${name}: the new page's first row` })
          .toBe(true);
        expect([await inView(next), await isFocused(next)], name).toEqual([true, true]);
        // The keys go on from there: a row brought in from below lands above the pager.
        await grid.focus();
        for (let press = 0; press < 20; press++) await page.keyboard.press('j');
        await expect.poll(() => grid.getAttribute('aria-activedescendant')).toBe(`${prefix}-20`);
        await expect.poll(() => inView(rows.nth(20))).toBe(true);
        const [rowBottom, pagerTop] = await Promise.all([
          rows.nth(20).evaluate((row) => row.getBoundingClientRect().bottom),
          pager.evaluate((nav) => nav.getBoundingClientRect().top),
        ]);
        expect(rowBottom, `${name}: the 21st row above the pager`).toBeLessThanOrEqual(pagerTop + 1);
      }
    }));

  it('leaves as much room under the Suppliers pager’s buttons as above them, stuck at the window’s foot or under the list', () =>
    withApp(async (_app, page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.keyboard.press('Control+3');
      await page.getByRole('grid', { name: 'Suppliers' }).locator('tbody tr').nth(1).waitFor();
      const content = page.locator('#content');
      const pager = page.getByRole('navigation', { name: 'Suppliers pages' });
      const next = pager.getByRole('button', { name: 'Next' });
      const measure = async () => {
        const [seen, nav, button] = await Promise.all(
          [content, pager, next].map((element) =>
            element.evaluate((node) => {
              const box = node.getBoundingClientRect();
              return { top: box.top, bottom: box.bottom };
            }),
          ),
        );
        return {
          above: button!.top - nav!.top,
          below: nav!.bottom - button!.bottom,
          atFoot: seen!.bottom - nav!.bottom,
        };
      };
      // Mid-page the pager sticks at the foot of what is seen, no rows under it.
      await content.evaluate((node) => node.scrollTo(0, 500));
      const stuck = await measure();
      expect(Math.abs(stuck.atFoot), 'the stuck pager at the foot of the window').toBeLessThanOrEqual(1);
      // At the page's end it sits under the list, with its usual room. It used to keep the
      // page's bottom room there too: 24 px more under Next than above it, and as much more
      // before "Waiting to be sent".
      await content.evaluate((node) => node.scrollTo(0, node.scrollHeight));
      const placed = await measure();
      expect(placed.atFoot, 'the pager under the list, above the page’s foot').toBeGreaterThan(24);
      for (const [where, room] of [
        ['stuck', stuck],
        ['under the list', placed],
      ] as const) {
        expect(
          Math.abs(room.below - room.above),
          `${where}: room under Next less room above`,
        ).toBeLessThanOrEqual(1);
      }
    }));

  it('keeps an open expense highlighted when a search from a later page finds it, not the new first row', () =>
    withApp(async (_app, page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.keyboard.press('Control+2');
      const grid = page.getByRole('grid', { name: 'Expenses' });
      const rows = grid.locator('tbody tr');
      await rows.nth(1).waitFor();
      const description = (row: Locator) => row.locator('td').nth(2).innerText();
      const firstPage = new Set(
        await rows.evaluateAll((all) => all.map((row) => row.children[2]?.textContent ?? '')),
      );
      const pager = page.getByRole('navigation', { name: 'Expenses pages' });
      await pager.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => pager.textContent()).toMatch(/Page 2 of/);
      await expect.poll(async () => firstPage.has((await rows.first().textContent()) ?? '')).toBe(false);
      // An expense of page 2 whose description page 1 has too (a newer one): searched for, it
      // is not the first row found.
      const texts = await rows.evaluateAll((all) => all.map((row) => row.children[2]?.textContent ?? ''));
      const index = texts.findIndex((text) => firstPage.has(text));
      expect(index, 'an expense of page 2 described as one of page 1').toBeGreaterThanOrEqual(0);
      const wanted = await description(rows.nth(index));
      await rows.nth(index).click();
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await expect.poll(() => pane.getByRole('heading', { level: 2 }).first().innerText()).toBe(wanted);
      await page.getByLabel('Search', { exact: true }).fill(wanted);
      await expect.poll(() => pager.textContent()).toMatch(/Page 1 of 1 /);
      // The pane stays on its expense, highlighted where the result has it (not the first row).
      await expect.poll(() => grid.getAttribute('aria-activedescendant')).not.toBe('ex-row-0');
      const active = page.locator(`#${await grid.getAttribute('aria-activedescendant')}`);
      expect(await description(active)).toBe(wanted);
      expect(await pane.getByRole('heading', { level: 2 }).first().innerText()).toBe(wanted);
    }));

  it('leaves the page where it is when Tab or a click gives the Suppliers list the focus, Tab bringing its highlighted row into view', () =>
    withApp(async (_app, page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.keyboard.press('Control+3');
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const rows = grid.locator('tbody tr');
      await rows.nth(1).waitFor();
      await expect.poll(() => isFocused(grid)).toBe(true);
      const search = page.getByLabel('Search', { exact: true });
      const heading = page.getByRole('heading', { level: 1, name: 'Suppliers' });
      const content = page.locator('#content');
      const scrolled = () => content.evaluate((node) => node.scrollTop);
      const active = () => grid.getAttribute('aria-activedescendant');

      // Out to "New supplier" and back with Tab: the heading and the search field stay in view.
      // (The browser scrolled the list, taller than the window, to its top edge: 85 px.)
      for (let press = 0; press < 3; press++) await page.keyboard.press('j');
      await page.keyboard.press('Shift+Tab');
      await expect.poll(() => isFocused(page.getByRole('button', { name: 'New supplier' }))).toBe(true);
      await page.keyboard.press('Tab');
      await expect.poll(() => isFocused(grid)).toBe(true);
      await page.waitForTimeout(100);
      expect([await inView(heading), await inView(search), await inView(rows.nth(3))]).toEqual([
        true,
        true,
        true,
      ]);

      // The last row highlighted, the page scrolled back to its top with the wheel, and the list
      // taken by Tab from "New supplier": the highlighted row is brought into view.
      await page.keyboard.press('End');
      await expect.poll(() => inView(rows.last())).toBe(true);
      await content.hover();
      await page.mouse.wheel(0, -10_000);
      await expect.poll(scrolled).toBe(0);
      await page.getByRole('button', { name: 'New supplier' }).focus();
      await page.keyboard.press('Tab');
      await expect.poll(() => isFocused(grid)).toBe(true);
      await expect.poll(() => inView(rows.last())).toBe(true);

      // A click on a row in view, the highlighted one out of view: the clicked row is the
      // highlighted one and the page does not move (no scroll to the old row, or to the list's top).
      await page.mouse.wheel(0, -10_000);
      await expect.poll(scrolled).toBe(0);
      await search.click();
      // Pressed and released a tenth of a second apart, as a hand does: frames are drawn between.
      const cell = await rows.nth(2).locator('td').first().boundingBox();
      if (!cell) throw new Error('The third supplier is not drawn');
      await page.mouse.move(cell.x + 10, cell.y + cell.height / 2);
      await page.mouse.down();
      await page.waitForTimeout(100);
      await page.mouse.up();
      await expect.poll(active).toBe('sup-row-2');
      await expect.poll(() => isFocused(grid)).toBe(true);
      await page.waitForTimeout(100);
      expect(await scrolled()).toBe(0);
      expect([await inView(heading), await inView(search)]).toEqual([true, true]);
    }));
});
