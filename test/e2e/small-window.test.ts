import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { windowOptions } from '../../src-main/shell/window-options';
import { startSandbox } from '../../src-sandbox';
import { useReadOnlyFolders } from '../helpers/read-only';
import { writeColleagueReview } from '../helpers/review-file';
import { queuedFileDialog } from '../helpers/dialogs';
import { useTempDirs } from '../helpers/temp-dir';
import { holdThreadPool } from '../helpers/thread-pool';
import { closeBrowser, openApp, openReadOnlyCopy, type AppPage } from './harness';
import { artifactsDir } from './paths';
import { openTransaction, transactionsWithOneFile } from './receipts';
import { connectSandbox } from './steps';

// Every area in the smallest window Satchel allows (the window options' minimum, which is the
// page's size: the options measure the content, not the frame): the page never scrolls
// sideways, every control is inside the window and clear of the others, each one Tab reaches
// is in view when focused, and no word is broken into pieces of a few characters. The checks
// are of the layout's shape, not of pixels, so a font a little wider or narrower passes.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

const { minWidth, minHeight } = windowOptions('/preload.cjs');

/**
 * What is wrong with the layout as shown, in words (empty when nothing is): the page scrolls
 * sideways; a control reaches past the window's sides or is cut off by a box that does not
 * scroll; two controls of `scope` overlap; a control's own text does not fit it; a word is
 * broken across lines into short pieces.
 */
async function layoutProblems(page: Page, scope = 'main'): Promise<string[]> {
  return page.evaluate((selector) => {
    const problems: string[] = [];
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()} "${(
        element.getAttribute('aria-label') ??
        element.getAttribute('title') ??
        (element as HTMLInputElement).labels?.[0]?.textContent ??
        element.textContent ??
        ''
      )
        .trim()
        .slice(0, 40)}"`;
    const page = document.scrollingElement!;
    if (page.scrollWidth > page.clientWidth)
      problems.push(`the page scrolls sideways (${page.scrollWidth} > ${page.clientWidth})`);

    const controls = Array.from(
      document.querySelectorAll<HTMLElement>('button, input:not([type="hidden"]), select, textarea, a[href]'),
    ).filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && element.checkVisibility({ visibilityProperty: true });
    });
    // The boxes an element is shown inside: those that clip it, and whether they scroll.
    const clippers = (element: Element) => {
      const found: Array<{ box: DOMRect; scrolls: boolean }> = [];
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up);
        const clipsX = style.overflowX !== 'visible';
        const clipsY = style.overflowY !== 'visible';
        if (clipsX || clipsY)
          found.push({
            box: up.getBoundingClientRect(),
            scrolls: /auto|scroll/.test(style.overflowX + style.overflowY),
          });
      }
      return found;
    };
    const whole: HTMLElement[] = [];
    for (const control of controls) {
      const box = control.getBoundingClientRect();
      if (box.left < -1 || box.right > window.innerWidth + 1)
        problems.push(
          `${name(control)} reaches past the window's side (${Math.round(box.left)}–${Math.round(box.right)})`,
        );
      let inView = true;
      for (const clip of clippers(control)) {
        const out =
          box.left < clip.box.left - 0.5 ||
          box.right > clip.box.right + 0.5 ||
          box.top < clip.box.top - 0.5 ||
          box.bottom > clip.box.bottom + 0.5;
        if (!out) continue;
        inView = false;
        // Scrolled partly out of a list is fine (it scrolls into view; the boxes around the
        // list then clip it too); cut off by a box that does not scroll is not.
        if (!clip.scrolls) problems.push(`${name(control)} is cut off by the box it is in`);
        break;
      }
      if (inView) whole.push(control);
      // A button's own words fit it, or it says them whole in its tooltip.
      if (control.tagName === 'BUTTON' && !control.title && control.scrollWidth > control.clientWidth + 1)
        problems.push(`${name(control)}'s text does not fit it`);
    }

    const region = document.querySelector(selector);
    // A list of the region that scrolls sideways hides its last columns (and their controls).
    for (const box of Array.from(region?.querySelectorAll<HTMLElement>('*') ?? [])) {
      if (!/auto|scroll/.test(getComputedStyle(box).overflowX)) continue;
      if (box.scrollWidth <= box.clientWidth + 1) continue;
      // Named by what reaches furthest past its right side.
      const edge = box.getBoundingClientRect().right;
      let widest: Element | null = null;
      for (const inner of Array.from(box.querySelectorAll('*')))
        if (inner.getBoundingClientRect().right >= (widest?.getBoundingClientRect().right ?? edge + 1))
          widest = inner;
      problems.push(
        `${box.tagName.toLowerCase()}.${box.className} scrolls sideways (${box.scrollWidth} > ${box.clientWidth}): ${widest ? `${widest.tagName.toLowerCase()}.${widest.className} "${widest.textContent?.slice(0, 40)}"` : '?'}`,
      );
    }
    // A row's control scrolled under the list's header row or its pager, which stick over the
    // rows, is hidden there as when scrolled out of the list: it overlaps nothing.
    const stuck = Array.from(document.querySelectorAll<HTMLElement>('table.list-grid th, .pager')).filter(
      (element) => getComputedStyle(element).position === 'sticky',
    );
    const underStuck = (control: HTMLElement) =>
      stuck.some((over) => {
        if (over.contains(control)) return false;
        const p = over.getBoundingClientRect();
        const q = control.getBoundingClientRect();
        return (
          Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 0 &&
          Math.min(p.right, q.right) > Math.max(p.left, q.left)
        );
      });
    const inRegion = whole.filter((control) => region?.contains(control) && !underStuck(control));
    for (let i = 0; i < inRegion.length; i += 1) {
      for (let j = i + 1; j < inRegion.length; j += 1) {
        const a = inRegion[i]!;
        const b = inRegion[j]!;
        if (a.contains(b) || b.contains(a)) continue;
        const p = a.getBoundingClientRect();
        const q = b.getBoundingClientRect();
        const wide = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const high = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (wide > 2 && high > 2) problems.push(`${name(a)} and ${name(b)} overlap`);
      }
    }

    // Words of the region broken across lines into short pieces (a column squeezed to a few
    // characters). A long path or address may wrap, in long pieces, and any word at a hyphen.
    const texts = document.createTreeWalker(region ?? document.body, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text; text = texts.nextNode()) {
      const value = text.textContent ?? '';
      if (!(text.parentElement?.checkVisibility() ?? false)) continue;
      for (const match of value.matchAll(/[^\s-]{4,}-?/g)) {
        const range = document.createRange();
        range.setStart(text, match.index);
        range.setEnd(text, match.index + match[0].length);
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((box) => box.width > 0)
            .map((box) => Math.round(box.top)),
        );
        if (tops.size < 2) continue;
        // Characters a line: the longest piece of the word.
        const perLine = new Map<number, number>();
        for (let k = 0; k < match[0].length; k += 1) {
          range.setStart(text, match.index + k);
          range.setEnd(text, match.index + k + 1);
          const box = range.getBoundingClientRect();
          if (box.width === 0) continue;
          const top = Math.round(box.top);
          perLine.set(top, (perLine.get(top) ?? 0) + 1);
        }
        const longest = Math.max(...perLine.values());
        if (match[0].length < 16 || longest < 8)
          problems.push(`"${match[0].slice(0, 40)}" is broken across ${tops.size} lines`);
      }
    }
    return [...new Set(problems)];
  }, scope);
}

/**
 * Tabs through every control once, from the start of the page: each one focused is inside the
 * window and not hidden under another element. Returns what is wrong, in words.
 */
async function focusProblems(page: Page, scope = 'body'): Promise<string[]> {
  const problems: string[] = [];
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const seen = new Set<string>();
  let first: string | undefined;
  for (let step = 0; step < 150; step += 1) {
    await page.keyboard.press('Tab');
    const where = await page.evaluate((selector) => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return null;
      const box = element.getBoundingClientRect();
      const path: string[] = [];
      for (let up: Element | null = element; up; up = up.parentElement)
        path.push(`${up.tagName}${Array.from(up.parentElement?.children ?? []).indexOf(up)}`);
      const label = `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}"`;
      const inside = document.querySelector(selector)?.contains(element) ?? false;
      const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
      const y = Math.min(Math.max(box.top + Math.min(box.height / 2, 8), 0), window.innerHeight - 1);
      const top = document.elementFromPoint(x, y);
      return {
        key: path.join('/'),
        box: [box.left, box.top, box.right, box.bottom].map(Math.round).join(' '),
        label,
        inside,
        // Its whole width, and its first line (a text box shows the caret's line when focused);
        // of a list taller than the window, the part scrolled to.
        inWindow:
          box.left >= -1 &&
          box.right <= window.innerWidth + 1 &&
          (box.height > window.innerHeight
            ? box.top < window.innerHeight && box.bottom > 0
            : box.top >= -1 && box.top + Math.min(box.height, 20) <= window.innerHeight + 1),
        covered: !(top && (element.contains(top) || top.contains(element))),
      };
    }, scope);
    if (!where) continue;
    // Round to the first control again (Tab may stop more than once in one, as in the day,
    // month and year of a date).
    if (seen.size > 0 && where.key === first) break;
    if (seen.has(where.key)) continue;
    first ??= where.key;
    seen.add(where.key);
    if (!where.inside) continue;
    if (!where.inWindow) problems.push(`${where.label} is out of the window when focused (${where.box})`);
    if (where.covered) problems.push(`${where.label} is hidden under something else when focused`);
  }
  expect(seen.size).toBeGreaterThan(1);
  return problems;
}

async function sweep(app: AppPage, shot: string, scope = 'main'): Promise<void> {
  await app.screenshot(`small-${shot}`);
  expect(await layoutProblems(app.page, scope)).toEqual([]);
}

async function openArea(app: AppPage, key: string, title: string): Promise<void> {
  await app.page.keyboard.press(`Control+${key}`);
  await app.page.getByRole('heading', { level: 1, name: title }).waitFor();
}

describe(`the smallest window (${minWidth}×${minHeight})`, () => {
  it('shows every area whole: nothing sideways, no control cut off or overlapping, each in view when focused', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const folder = tempDir();
    const fileDialog = queuedFileDialog();
    const core = createCore({ dataDir: tempDir(), secrets, pickFile: fileDialog.pick });
    const profile = await connectSandbox(core, sandbox);
    // A finished download and one broken off, so the Files area lists jobs with their controls.
    const ids = sandbox.state.files.slice(0, 3).map((file) => file.id);
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'file', ids },
      destination: path.join(tempDir(), 'Audit 2026 with a rather long folder name for the small window'),
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 500 });
    await core.files.start(profile.id, { scope: { by: 'all' }, destination: path.join(tempDir(), 'Halted') });
    await core.files.stopAll();
    sandbox.control?.clearFaults();
    // A colleague's review marks to import, so that the review section has marks to export.
    const colleague = path.join(folder, 'colleague.json');
    writeColleagueReview(colleague, 2_000);
    const [target] = transactionsWithOneFile(core, profile.id, 1);
    const app = await openApp(core, { serveFiles: true });
    const { page } = app;
    page.setDefaultTimeout(20_000);
    let pool: { release(): void } | null = null;
    try {
      await page.setViewportSize({ width: minWidth, height: minHeight });
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();

      // Transactions: the list, then a row's pane with its receipt's preview, then the
      // review bar of two rows chosen.
      await sweep(app, 'transactions');
      expect(await focusProblems(page)).toEqual([]);
      await openTransaction(app, target!.id);
      await page.getByTestId('transaction-pane').getByText(target!.fileName).first().waitFor();
      await sweep(app, 'transaction-pane');
      expect(await focusProblems(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('search', { name: 'Filter transactions' }).getByRole('searchbox').fill('');
      await grid.getByRole('row').nth(2).waitFor();
      await grid.focus();
      await page.keyboard.press('x');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('x');
      await sweep(app, 'transactions-chosen');

      for (const [key, title] of [
        ['2', 'Expenses'],
        ['3', 'Suppliers'],
        ['8', 'Dimensions'],
      ] as const) {
        await openArea(app, key, title);
        await page.locator('main [role="grid"] tbody tr').first().waitFor();
        await sweep(app, title.toLowerCase());
        expect(await focusProblems(page)).toEqual([]);
        if (title !== 'Expenses') continue;
        // An expense's pane beside the list: its facts, lines and files.
        await page.getByTestId('expenses-grid').focus();
        await page.keyboard.press('Enter');
        await page.getByTestId('expense-pane').locator('.facts').first().waitFor();
        await sweep(app, 'expense-pane');
        expect(await focusProblems(page)).toEqual([]);
        await page.keyboard.press('Escape');
        // Two rows chosen: the bulk bar's selection buttons join its result ones, drawn closer
        // in the short window as with nothing chosen.
        await page.getByTestId('expenses-grid').focus();
        await page.keyboard.press('x');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('x');
        await page.getByText('2 selected').waitFor();
        await sweep(app, 'expenses-chosen');
        await page.getByRole('button', { name: 'Clear selection' }).click();
      }

      // Files: the jobs and the offline section, then the bulk download form.
      await openArea(app, '4', 'Files');
      await page.getByTestId('download-job').filter({ hasText: 'Halted' }).getByText('Interrupted').waitFor();
      await page.getByTestId('offline-usage').waitFor();
      await sweep(app, 'files');
      expect(await focusProblems(page)).toEqual([]);
      await page.getByRole('button', { name: 'Download files…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog.waitFor();
      await sweep(app, 'files-download-form', '[role="dialog"]');
      expect(await focusProblems(page, '[role="dialog"]')).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await openArea(app, '5', 'Sync');
      await page.getByTestId('sync-history').getByText('succeeded').first().waitFor();
      await sweep(app, 'sync');
      expect(await focusProblems(page)).toEqual([]);

      // Needs attention, then its review section with an export's bar held on screen.
      await openArea(app, '7', 'Needs attention');
      const section = page.getByRole('region', { name: 'Hand the review to a colleague' });
      fileDialog.answers.push(colleague);
      await section.getByRole('button', { name: 'Import review marks…' }).click();
      await section
        .getByTestId('review-file-result')
        .getByText('review marks read', { exact: false })
        .waitFor();
      await sweep(app, 'attention');
      expect(await focusProblems(page)).toEqual([]);
      const stop = core.events.subscribe((event) => {
        if (event === 'review.fileProgress' && !pool) pool = holdThreadPool(tempDir());
      });
      fileDialog.answers.push(path.join(folder, 'review.json'));
      await section.getByRole('button', { name: 'Export review marks…' }).click();
      await section.getByRole('progressbar').waitFor();
      stop();
      await section.getByRole('progressbar').scrollIntoViewIfNeeded();
      // The harness's screenshot writes on the held pool: this one is written synchronously.
      mkdirSync(artifactsDir, { recursive: true });
      writeFileSync(path.join(artifactsDir, 'small-attention-progress.png'), await page.screenshot());
      expect(await layoutProblems(page)).toEqual([]);
      (pool as { release(): void } | null)?.release();
      await section.getByTestId('review-file-result').getByText('written to', { exact: false }).waitFor();

      // Settings: the organisations, then the connect form.
      await openArea(app, '6', 'Settings');
      await page.getByRole('button', { name: 'Add an organisation…' }).waitFor();
      await sweep(app, 'settings');
      expect(await focusProblems(page)).toEqual([]);
      await page.getByRole('button', { name: 'Add an organisation…' }).click();
      await page.getByRole('form', { name: 'Connect an organisation' }).waitFor();
      await sweep(app, 'settings-connect');
      expect(await focusProblems(page)).toEqual([]);
    } finally {
      (pool as { release(): void } | null)?.release();
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 240_000);

  const makeReadOnly = useReadOnlyFolders();

  it('keeps the read-only banner and the areas under it whole', async () => {
    const { sandbox, core, app, page } = await openReadOnlyCopy(
      { seed: 7, transactions: 40 },
      { dataDir: tempDir(), secrets, makeReadOnly },
    );
    try {
      await page.setViewportSize({ width: minWidth, height: minHeight });
      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await sweep(app, 'read-only-transactions', 'body');
      // The banner leaves the list room for several rows (its whole text, under three lines, was
      // left a row and a half); what it cuts short is in its tooltip.
      expect((await grid.boundingBox())!.height).toBeGreaterThanOrEqual(150);
      expect(await banner.locator('p').getAttribute('title')).toBe(await banner.locator('p').textContent());
      expect(await focusProblems(page)).toEqual([]);
      await openArea(app, '4', 'Files');
      await page.getByTestId('offline-usage').waitFor();
      await sweep(app, 'read-only-files', 'body');
      expect(await focusProblems(page)).toEqual([]);
      await openArea(app, '5', 'Sync');
      await sweep(app, 'read-only-sync', 'body');
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 120_000);
});
