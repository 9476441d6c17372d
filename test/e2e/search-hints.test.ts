import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { windowOptions } from '../../src-main/shell/window-options';
import { startSandbox } from '../../src-sandbox';
import { useAppTests } from './harness';

// Each list's search field says what it searches and the key that reaches it ("(/)") in its
// placeholder. A placeholder does not wrap: one wider than its field is cut where the field ends,
// and the key went first ("Counterparty, id, group or account n" was all the Transactions
// field showed, in the smallest window and the usual one alike). So every hint is held to its
// field at both sizes, and what it leaves out is in the field's tooltip.
const { openConnected } = useAppTests();

const { width, height, minWidth, minHeight } = windowOptions('/preload.cjs');

/**
 * How far the placeholder reaches past the room the empty field gives it, in px (0 when it fits),
 * and the field's tooltip. A search field keeps room for its clear button even while it is empty,
 * so the room is not the field's width less its padding: the hint is put in as the field's value
 * for a moment, where the field's own scroll width says whether it fits beside that button.
 */
async function hintOverflow(field: Locator): Promise<{ hint: string; overflow: number; title: string }> {
  return field.evaluate((element) => {
    const input = element as HTMLInputElement;
    const kept = input.value;
    input.value = input.placeholder;
    const overflow = input.scrollWidth - input.clientWidth;
    input.value = kept;
    return { hint: input.placeholder, overflow, title: input.title };
  });
}

/** The field's accessible name and description, as Chromium gives them to a screen reader. */
async function accessible(page: Page, field: Locator): Promise<{ name: string; description: string }> {
  const id = await field.evaluate((element) => element.id);
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', {
      nodeId: root.nodeId,
      selector: `[id="${id}"]`,
    });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const node = nodes[0];
    return { name: String(node?.name?.value ?? ''), description: String(node?.description?.value ?? '') };
  } finally {
    await cdp.detach();
  }
}

interface Area {
  key: string;
  heading: string;
  field: (page: Page) => Locator;
}

const AREAS: Area[] = [
  {
    key: 'Control+1',
    heading: 'Transactions',
    field: (page) => page.getByRole('search', { name: 'Filter transactions' }).getByRole('searchbox'),
  },
  { key: 'Control+2', heading: 'Expenses', field: (page) => page.locator('[data-search-input]') },
  { key: 'Control+3', heading: 'Suppliers', field: (page) => page.locator('[data-search-input]') },
  { key: 'Control+8', heading: 'Dimensions', field: (page) => page.locator('[data-search-input]') },
];

describe('search hints', () => {
  it('fit their fields, key included, in the smallest and the usual window', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 60 });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page } = app;
    try {
      await page.waitForFunction(() => document.fonts.status === 'loaded');
      const cut: string[] = [];
      for (const [w, h] of [
        [minWidth, minHeight],
        [width, height],
      ] as const) {
        await page.setViewportSize({ width: w, height: h });
        for (const area of AREAS) {
          await page.keyboard.press(area.key);
          await page.getByRole('heading', { level: 1, name: area.heading }).waitFor();
          const field = area.field(page);
          await field.waitFor();
          const { hint, overflow, title } = await hintOverflow(field);
          expect(hint).toMatch(/\(\/\)$/);
          // What a short hint leaves out, the tooltip says whole (and a screen reader reads it as
          // the field's description).
          expect(title).toMatch(/^Searches .+\. Press \/ to come here\.$/);
          const read = await accessible(page, field);
          expect(read.name).toMatch(/^Search/);
          expect(read.description).toBe(title);
          if (overflow > 0) cut.push(`${area.heading} at ${w}×${h}: "${hint}" is ${overflow} px too wide`);
        }
      }
      expect(cut).toEqual([]);
    } finally {
      await app.close();
      await sandbox.stop();
    }
  }, 120_000);
});
