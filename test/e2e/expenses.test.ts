import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { type Core } from '../../src-main/core';
import { startSandbox, type Sandbox } from '../../src-sandbox';
import { type AppPage, useAppTests } from './harness';
import { reviewFlagAndNoteByKeyboard } from './steps';

// The Expenses area by keyboard alone: the review keys in its detail pane, the marks in its
// rows, and where the focus goes as its controls come and go.
const { openConnected } = useAppTests();

interface Opened {
  app: AppPage;
  page: Page;
  grid: Locator;
  core: Core;
  profileId: string;
}

/**
 * A synced sandbox organisation, the app open on Expenses with its list focused. `prepare`
 * changes the sandbox's data (through its control handle) before the sync.
 */
async function withExpenses(
  run: (opened: Opened) => Promise<void>,
  prepare?: (sandbox: Sandbox) => void,
): Promise<void> {
  const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300, control: prepare !== undefined });
  prepare?.(sandbox);
  const app = await openConnected({ sandbox, timeout: 20_000 });
  const { page, core } = app;
  const profileId = app.profile.id;
  try {
    await page.keyboard.press('Control+2');
    const grid = page.getByRole('grid', { name: 'Expenses' });
    await grid.locator('tbody tr').first().waitFor();
    await expect.poll(() => grid.evaluate((node) => node === document.activeElement)).toBe(true);
    await run({ app, page, grid, core, profileId });
  } finally {
    await app.close();
  }
}

/** The expenses' review marks in the core's cache that carry this note. */
function marksWithNote(core: Core, profileId: string, note: string) {
  return core
    .cacheOf(profileId)
    .sqlite.prepare(
      `SELECT reviewed_at, flagged, flag_reason FROM review_marks WHERE kind = 'expense' AND note = ?`,
    )
    .all(note);
}

/**
 * How an Expenses row shows its cells: the description's and the supplier's lines, whether their
 * text is cut short and with an ellipsis; the date's lines and which form it shows (the locale's
 * `short` date, "10/23/26" in en-US, or its `medium` one, "Oct 23, 2026"; else the text shown),
 * and both forms of the row's date; and, for each date, amount and file count shown, whether it
 * is whole in its cell and on one line.
 */
async function shownCells(row: Locator) {
  return row.evaluate((tr) => {
    const lines = (node: Node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      return new Set(
        Array.from(range.getClientRects())
          .filter((box) => box.width > 0)
          .map((box) => Math.round(box.top)),
      ).size;
    };
    const cells = Array.from(tr.querySelectorAll('td'));
    const text = (index: number) => {
      const cell = cells[index]!;
      const clip = cell.querySelector<HTMLElement>('.clip');
      return {
        lines: lines(clip ?? cell),
        cut: clip !== null && clip.scrollWidth > clip.clientWidth,
        ellipsis: clip !== null && getComputedStyle(clip).textOverflow === 'ellipsis',
      };
    };
    const dateCell = cells[1]!;
    const iso = dateCell.querySelector('time')?.dateTime;
    const day = new Date(`${iso}T00:00:00Z`);
    const form = (dateStyle: 'short' | 'medium') =>
      iso ? new Intl.DateTimeFormat(navigator.language, { dateStyle, timeZone: 'UTC' }).format(day) : '';
    const dates = { short: form('short'), medium: form('medium') };
    const shown = dateCell.innerText.trim();
    const date = {
      lines: lines(dateCell),
      form: shown === dates.short ? 'short' : shown === dates.medium ? 'medium' : shown,
    };
    const whole = cells
      .filter((cell) => cell.matches('.date, .number') && cell.checkVisibility())
      .map((cell) => cell.scrollWidth <= cell.clientWidth && lines(cell) === 1);
    return { description: text(2), supplier: text(3), date, dates, whole };
  });
}

const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe('expenses by keyboard', () => {
  it('reviews, flags and notes the expense shown in the pane with Space, f and n', () =>
    withExpenses(async ({ page, grid, core, profileId }) => {
      const row = grid.locator('#ex-row-1');
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await pane.getByRole('heading', { name: 'Lines' }).waitFor();
      await expect.poll(() => activeId(page)).toBe('expense-pane-title');
      const shown = await row.locator('td').nth(2).textContent();
      expect(await pane.getByRole('heading', { level: 2 }).textContent()).toBe(shown);

      // Space in the pane: reviewed, in the pane and in its row; the focus stays in the pane.
      await page.keyboard.press(' ');
      await pane.getByRole('button', { name: '✓ Reviewed' }).waitFor();
      await row.getByText('✓ Reviewed').waitFor();
      expect(await activeId(page)).toBe('expense-pane-title');

      // f: the reason field; Enter flags and gives the focus back to the pane's heading.
      await page.keyboard.press('f');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('placeholder')))
        .toBe('e.g. Receipt missing');
      await page.keyboard.type('Receipt missing');
      await page.keyboard.press('Enter');
      await pane.getByText('Flagged: Receipt missing').waitFor();
      await expect.poll(() => activeId(page)).toBe('expense-pane-title');
      await row.getByText('Flag', { exact: true }).waitFor();

      // n: the note field; Ctrl+Enter saves, and the row shows a Note mark with the note as its title.
      await page.keyboard.press('n');
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
      await page.keyboard.type('Asked for the hotel invoice.');
      await page.keyboard.press('Control+Enter');
      await pane.getByRole('button', { name: 'Save note' }).and(page.locator(':disabled')).waitFor();
      const note = row.getByText('Note', { exact: true });
      await note.waitFor();
      expect(await note.getAttribute('title')).toBe('Asked for the hotel invoice.');

      const [marks, ...others] = marksWithNote(core, profileId, 'Asked for the hotel invoice.');
      expect(others).toEqual([]);
      expect(marks).toMatchObject({ flagged: 1, flag_reason: 'Receipt missing' });
      expect(marks).not.toMatchObject({ reviewed_at: null });
    }));

  it('keeps the focus in the review controls when Remove flag or a tag’s × goes', () =>
    withExpenses(async ({ page, grid }) => {
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await pane.getByRole('heading', { name: 'Lines' }).waitFor();
      await page.keyboard.press('f');
      await page.keyboard.type('Duplicate');
      await page.keyboard.press('Enter');
      await pane.getByText('Flagged: Duplicate').waitFor();
      const tagInput = pane.getByRole('textbox', { name: 'New tag' });
      for (const tag of ['audit', 'travel']) {
        await tagInput.focus();
        await page.keyboard.type(tag);
        await page.keyboard.press('Enter');
        await pane.getByRole('button', { name: `Remove tag ${tag}` }).waitFor();
      }
      const focusedLabel = () =>
        page.evaluate(() => {
          const element = document.activeElement;
          return (
            element?.getAttribute('aria-label') ?? element?.getAttribute('placeholder') ?? element?.tagName
          );
        });

      // A tag's ×: the next tag's × takes the focus, and after the last one the field that adds a tag.
      await pane.getByRole('button', { name: 'Remove tag audit' }).focus();
      await page.keyboard.press('Enter');
      await pane.getByRole('button', { name: 'Remove tag audit' }).waitFor({ state: 'detached' });
      await expect.poll(focusedLabel).toBe('Remove tag travel');
      await page.keyboard.press('Enter');
      await pane.getByRole('button', { name: 'Remove tag travel' }).waitFor({ state: 'detached' });
      await expect.poll(focusedLabel).toBe('Add a tag');

      // Remove flag: the reason field that takes its place has the focus, ready for a new flag.
      await pane.getByRole('button', { name: 'Remove flag' }).focus();
      await page.keyboard.press('Enter');
      await pane.getByText('Flagged: Duplicate').waitFor({ state: 'detached' });
      await expect.poll(focusedLabel).toBe('e.g. Receipt missing');
      await grid.locator('tbody tr').last().getByText('Flag', { exact: true }).waitFor({ state: 'detached' });
    }));

  it('gives the focus to the list when the last expense left to review leaves it from the pane', () =>
    withExpenses(async ({ page, grid, core, profileId }) => {
      const invoice = core
        .cacheOf(profileId)
        .sqlite.prepare(
          `SELECT substr(description, 9) FROM expenses
           WHERE deleted_at IS NULL AND description LIKE 'Invoice RE-%' LIMIT 1`,
        )
        .pluck()
        .get() as string | undefined;
      if (!invoice) throw new Error('the demo data has no invoice expense');
      await page
        .getByRole('search', { name: 'Filter expenses' })
        .getByLabel('Reviewed')
        .selectOption('false');
      await page.keyboard.press('/');
      await page.keyboard.type(invoice);
      await page.getByRole('navigation', { name: 'Expenses pages' }).getByText('· 1 expense').waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await pane.getByRole('heading', { name: 'Lines' }).waitFor();
      // Reviewed, it is no longer in "Reviewed: No": the pane goes and the list has the focus.
      await page.keyboard.press(' ');
      await page.getByText('No expense matches.').waitFor();
      await pane.waitFor({ state: 'detached' });
      await expect.poll(() => grid.evaluate((node) => node === document.activeElement)).toBe(true);
    }));

  it('keeps the focus in the pager while Enter on Next pages to the end', () =>
    withExpenses(async ({ page, grid }) => {
      const pager = page.getByRole('navigation', { name: 'Expenses pages' });
      const next = pager.getByRole('button', { name: 'Next' });
      const previous = pager.getByRole('button', { name: 'Previous' });
      const focused = (button: Locator) => button.evaluate((node) => node === document.activeElement);
      const pages = Number(/Page 1 of (\d+)/.exec((await pager.textContent()) ?? '')?.[1]);
      expect(pages).toBeGreaterThan(2);
      await next.focus();
      for (let shown = 2; shown <= pages; shown += 1) {
        await page.keyboard.press('Enter');
        await pager.getByText(`Page ${shown} of ${pages}`).waitFor();
        await grid.locator('tbody tr').first().waitFor();
        // The last page disables Next: Previous takes the focus.
        await expect.poll(() => focused(shown < pages ? next : previous)).toBe(true);
      }
      await page.keyboard.press('Enter');
      await pager.getByText(`Page ${pages - 1} of ${pages}`).waitFor();
      expect(await focused(previous)).toBe(true);
    }));

  it('keeps each list at least 360 px wide beside its pane in an 800×600 window, its amounts and marks in view', () =>
    withExpenses(async ({ app, page, grid }) => {
      await page.setViewportSize({ width: 800, height: 600 });
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await pane.getByRole('heading', { name: 'Lines' }).waitFor();
      const box = async (locator: Locator) => {
        const found = await locator.boundingBox();
        if (!found) throw new Error('not shown');
        return found;
      };
      // The list's scroll box: at least 360 px, with no row running out of it sideways.
      const list = grid.locator('xpath=..');
      const listBox = await box(list);
      expect(listBox.width).toBeGreaterThanOrEqual(360);
      expect(await list.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(
        0,
      );
      // The pane beside it, whole in the window.
      const paneBox = await box(pane);
      expect(paneBox.width).toBeGreaterThanOrEqual(220);
      expect(paneBox.x).toBeGreaterThanOrEqual(listBox.x + listBox.width);
      expect(paneBox.x + paneBox.width).toBeLessThanOrEqual(800);
      // Still usable: Space marks the expense, and its mark shows in the row in view.
      await page.keyboard.press(' ');
      const reviewed = pane.getByRole('button', { name: '✓ Reviewed' });
      await reviewed.waitFor();
      const buttonBox = await box(reviewed);
      expect(buttonBox.x + buttonBox.width).toBeLessThanOrEqual(paneBox.x + paneBox.width);
      const mark = grid.locator('#ex-row-0').getByText('✓ Reviewed');
      await mark.waitFor();
      const markBox = await box(mark);
      expect(markBox.x + markBox.width).toBeLessThanOrEqual(listBox.x + listBox.width);
      await app.screenshot('expenses-800x600');

      // The transactions grid beside its pane: at least 360 px too, and the amount and every
      // review mark of a row in view without scrolling sideways.
      await page.keyboard.press('Control+1');
      const transactions = page.getByRole('grid', { name: 'Transactions' });
      await transactions.getByRole('row').nth(1).waitFor();
      await transactions.focus();
      await page.keyboard.press('Enter');
      const transactionPane = page.getByTestId('transaction-pane');
      await transactionPane.getByText('Fees', { exact: true }).waitFor();
      const gridBox = await box(transactions);
      expect(gridBox.width).toBeGreaterThanOrEqual(360);
      expect((await box(transactionPane)).width).toBeGreaterThanOrEqual(220);
      await reviewFlagAndNoteByKeyboard(page, transactions, transactionPane);
      const row = transactions.locator('#tx-row-0');
      await row.getByText('Note', { exact: true }).waitFor();
      expect(
        await transactions.evaluate((element) => element.scrollWidth - element.clientWidth),
      ).toBeLessThanOrEqual(0);
      for (const part of [row.locator('.amount'), ...(await row.locator('.marks .badge').all())]) {
        const partBox = await box(part);
        expect(partBox.x).toBeGreaterThanOrEqual(gridBox.x);
        expect(partBox.x + partBox.width).toBeLessThanOrEqual(gridBox.x + gridBox.width);
      }
      expect(await row.locator('.marks .badge').count()).toBe(3);
      await app.screenshot('transactions-800x600');
      // Wider again, the grid has room for its columns beside the pane: the date comes back.
      await page.setViewportSize({ width: 1280, height: 800 });
      await transactions.getByRole('columnheader', { name: 'Booking date' }).waitFor();
    }));

  it('names the line types of the pane briefly, each on one line: "Card" and "FX fee"', () =>
    withExpenses(async ({ app, page, grid, core, profileId }) => {
      // A card payment abroad: its card line and its FX fee line.
      const description = core
        .cacheOf(profileId)
        .sqlite.prepare(
          `SELECT e.description FROM expenses e
           WHERE e.deleted_at IS NULL
             AND EXISTS (SELECT 1 FROM expense_lines l WHERE l.expense_id = e.id AND l.type = 'FX_FEE')
             AND (SELECT count(*) FROM expenses o WHERE o.description = e.description) = 1
           LIMIT 1`,
        )
        .pluck()
        .get() as string | undefined;
      if (!description) throw new Error('the demo data has no expense with an FX fee line');
      await page.setViewportSize({ width: 1280, height: 820 });
      await page.keyboard.press('/');
      await page.keyboard.type(description);
      await page.getByRole('navigation', { name: 'Expenses pages' }).getByText('· 1 expense').waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      const lines = page.getByTestId('expense-pane').getByRole('table', { name: 'Lines' });
      await lines.waitFor();
      // The lines a cell's text takes: the distinct tops of its text's boxes.
      const types = await lines.locator('tbody tr:not(.line-booking) td:nth-child(2)').evaluateAll((cells) =>
        cells.map((cell) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          const tops = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
          return { text: cell.textContent, lines: tops.size };
        }),
      );
      expect(types.map((type) => type.text)).toEqual(['Card', 'FX fee']);
      for (const type of types) expect(type.lines, `"${type.text}"`).toBeLessThanOrEqual(1);
      await app.screenshot('expense-line-types');
    }));

  it('keeps a long description and supplier on one line, cut with an ellipsis, whole in the title and the cell', () => {
    const description =
      'Card payment Hotel Schweizerhof Zürich, three nights for the audit team with breakfast and parking';
    const supplier = 'Bluewater IT-Services and Consulting for the Whole of Europe SE';
    return withExpenses(
      async ({ page, grid }) => {
        await page.keyboard.press('/');
        await page.keyboard.type('breakfast and parking');
        await page.getByRole('navigation', { name: 'Expenses pages' }).getByText('· 1 expense').waitFor();
        const row = grid.locator('tbody tr').first();
        // The cells are named by their whole text, as a screen reader reads them, and the
        // whole text is their tooltip.
        const descriptionCell = row.getByRole('gridcell', { name: description, exact: true });
        const supplierCell = row.getByRole('gridcell', { name: supplier, exact: true });
        expect(await descriptionCell.getAttribute('title')).toBe(description);
        expect(await supplierCell.getAttribute('title')).toBe(supplier);
        // The date cell is named by the one date it shows, and the medium date is its tooltip.
        const { dates } = await shownCells(row);
        expect(dates.short).not.toBe(dates.medium);
        const dateCell = row.locator('td.date');
        expect(await dateCell.getAttribute('title')).toBe(dates.medium);
        const expectDateNamed = async (name: string, context: string) => {
          expect(await row.getByRole('gridcell', { name, exact: true }).count(), context).toBe(1);
          expect(await dateCell.innerText(), context).toBe(name);
        };
        for (const [width, height] of [
          [800, 560],
          [1280, 820],
        ] as const) {
          await page.setViewportSize({ width, height });
          const shown = await shownCells(row);
          expect(shown.description, `${width}`).toEqual({ lines: 1, cut: true, ellipsis: true });
          expect(shown.supplier, `${width}`).toEqual({ lines: 1, cut: true, ellipsis: true });
          expect(shown.date, `${width}`).toEqual({ lines: 1, form: 'medium' });
          await expectDateNamed(dates.medium, `${width}`);
          expect(shown.whole.length, `${width}`).toBeGreaterThanOrEqual(2);
          expect(shown.whole.every(Boolean), `${width}`).toBe(true);
        }
        // Beside the pane in a wide window the list keeps the medium date.
        await grid.focus();
        await page.keyboard.press('Enter');
        const pane = page.getByTestId('expense-pane');
        await pane.getByRole('heading', { level: 2, name: description }).waitFor();
        expect((await shownCells(row)).date).toEqual({ lines: 1, form: 'medium' });
        await expectDateNamed(dates.medium, 'beside the pane at 1280');
        // Beside the pane in the smallest window the list is under 480 px: the date shows
        // short on one line ("10/23/26"; the medium one took two, "Oct 22," over "2026"), and
        // is named by that alone. The description's column is a few words wide: it wraps whole
        // there rather than show only its first word or two, and the pane shows it too.
        await page.setViewportSize({ width: 800, height: 560 });
        await expect.poll(async () => (await shownCells(row)).date).toEqual({ lines: 1, form: 'short' });
        const beside = await shownCells(row);
        await expectDateNamed(dates.short, 'beside the pane at 800');
        expect(await dateCell.getAttribute('title')).toBe(dates.medium);
        expect(beside.description.cut).toBe(false);
        expect(beside.description.lines).toBeGreaterThanOrEqual(3);
        expect(beside.whole.every(Boolean)).toBe(true);
        expect(await descriptionCell.getAttribute('title')).toBe(description);
      },
      (sandbox) => {
        const expense = sandbox.state.expenses.find((e) => e.supplierId !== null && e.description);
        if (!expense) throw new Error('the demo data has no supplier invoice');
        sandbox.control!.updateExpense(expense.id, { description });
        sandbox.control!.updateSupplier(expense.supplierId!, { name: supplier });
      },
    );
  });

  it('keeps its column headings on one line, "Supplier or merchant" included, and gives the names all of that column', () =>
    withExpenses(async ({ page, grid }) => {
      // "Supplier or merchant" wrapped onto two lines wherever its column was held under the
      // heading's width (at 800 and 1,024 px), and the whole header row doubled in height.
      const wrapped: string[] = [];
      for (const [width, height] of [
        [800, 560],
        [1024, 700],
        [1280, 820],
      ] as const) {
        await page.setViewportSize({ width, height });
        await grid.locator('thead th', { hasText: 'Supplier or merchant' }).waitFor();
        const headings = await grid.locator('thead th').evaluateAll((cells) =>
          cells
            .filter((cell) => (cell as HTMLElement).offsetParent !== null)
            .map((cell) => {
              // The heading's own text, not its cell (every cell of the row is as high as the
              // highest): how many lines its words take.
              const range = document.createRange();
              range.selectNodeContents(cell);
              const lineHeight = parseFloat(getComputedStyle(cell).lineHeight);
              return {
                text: cell.textContent?.trim() ?? '',
                lines: Math.round(range.getBoundingClientRect().height / lineHeight),
              };
            }),
        );
        for (const { text, lines } of headings)
          if (lines > 1) wrapped.push(`${text} at ${width} px: ${lines} lines`);
        // A supplier's name has all of its column: none is cut short in a column the heading
        // made wider than the name's share.
        const unused = await grid.locator('tbody td.expense-party').evaluateAll((cells) =>
          cells.flatMap((cell) => {
            const clip = cell.querySelector('.clip');
            if (!clip) return [];
            const style = getComputedStyle(cell);
            const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return room - clip.getBoundingClientRect().width > 1 && clip.scrollWidth > clip.clientWidth
              ? [
                  `${clip.textContent} in ${Math.round(clip.getBoundingClientRect().width)} of ${Math.round(room)} px`,
                ]
              : [];
          }),
        );
        for (const name of unused) wrapped.push(`at ${width} px the name ${name}`);
      }
      expect(wrapped).toEqual([]);
    }));
});
