import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { checkScreen } from './axe';
import { testFileUrl, useAppTests } from './harness';
import { largePng, loneReceipts, multiPagePdf, openTransaction } from './receipts';

// Receipts photographed or scanned sideways, turned in the preview: a landscape photo turned a
// quarter lies upright in a box of the turned size, fits the pane, and zoomed scrolls to every
// edge; a PDF is drawn turned by pdf.js, every page; each file keeps its own turn for the
// session: while its expense is open, and when another expense is looked at and this one opened
// again; another expense's file starts upright and keeps its own.
const { openConnected } = useAppTests();

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
  width: number;
  height: number;
}

const boxOf = (locator: Locator): Promise<Box> =>
  locator.evaluate((element) => {
    const { left, top, right, bottom, width, height } = element.getBoundingClientRect();
    return { left, top, right, bottom, width, height };
  });

describe('turning a receipt in the preview', () => {
  it('turns a photo and a PDF a quarter at a time, laid out turned, and keeps each file’s turn', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
    // An expense documenting a bank transaction with two files: a photo taken sideways (landscape)
    // and a PDF invoice of two A6 pages.
    const files = new Map<string, string[]>();
    for (const file of sandbox.state.files)
      files.set(file.expenseId, [...(files.get(file.expenseId) ?? []), file.id]);
    const expense = sandbox.state.expenses.find(
      (candidate) => candidate.bankTransactionId && files.get(candidate.id)?.length === 2,
    );
    const [photoId, invoiceId] = expense ? (files.get(expense.id) ?? []) : [];
    if (!expense?.bankTransactionId || !photoId || !invoiceId) throw new Error('no expense with two files');
    sandbox.control?.replaceFile(photoId, {
      content: largePng(1200, 800),
      mimeType: 'image/png',
      name: 'sideways.png',
    });
    sandbox.control?.replaceFile(invoiceId, {
      content: multiPagePdf(['Invoice page one', 'Invoice page two']),
      mimeType: 'application/pdf',
      name: 'invoice.pdf',
    });
    // Another expense's receipt, a photo too.
    const other = loneReceipts(sandbox, 1)[0];
    if (!other) throw new Error('no expense with one file');
    sandbox.control?.replaceFile(other.fileId, {
      content: largePng(600, 900),
      mimeType: 'image/png',
      name: 'other.png',
    });
    const app = await openConnected({ sandbox, fileUrl: testFileUrl, serveFiles: true, timeout: 20_000 });
    const { page } = app;
    try {
      let pane = await openTransaction(app, expense.bankTransactionId);

      // The photo, upright as it came: wider than tall, within the pane.
      await pane.getByRole('button', { name: 'Show preview of sideways.png' }).click();
      let photo = pane.getByRole('figure', { name: 'Image sideways.png' });
      const image = photo.getByRole('img', { name: 'Receipt sideways.png' });
      const frame = photo.getByRole('group', { name: 'Receipt view of sideways.png' });
      await photo.getByRole('group', { name: 'Turn of sideways.png' }).waitFor();
      await photo.getByRole('status').getByText('Not turned').waitFor();
      const frameWidth = await frame.evaluate((element) => element.clientWidth);
      const upright = await boxOf(image);
      expect(upright.width).toBeGreaterThan(upright.height);
      expect(upright.width).toBeLessThanOrEqual(frameWidth);

      // Turned right: taller than wide, as wide as "Fit" allows (the turned width is the photo's
      // 800 pixels of height, or the pane's width), and the whole of it inside the frame with
      // nothing to scroll. An image only rotated by CSS keeps its upright layout: it pokes out
      // above and below the frame, a part of it where no scrolling reaches.
      await photo.getByRole('button', { name: 'Turn right (R)' }).click();
      await photo.getByRole('status').getByText('Turned 90° right').waitFor();
      const fitted = await boxOf(image);
      expect(fitted.height).toBeGreaterThan(fitted.width);
      expect(Math.abs(fitted.width - Math.min(800, frameWidth))).toBeLessThan(2);
      expect(Math.abs(fitted.height / fitted.width - 1.5)).toBeLessThan(0.01);
      const frameBox = await boxOf(frame);
      expect(fitted.left).toBeGreaterThanOrEqual(frameBox.left - 0.5);
      expect(fitted.top).toBeGreaterThanOrEqual(frameBox.top - 0.5);
      expect(fitted.right).toBeLessThanOrEqual(frameBox.right + 0.5);
      expect(fitted.bottom).toBeLessThanOrEqual(frameBox.bottom + 0.5);
      expect(
        await frame.evaluate((element) => ({
          across: element.scrollWidth - element.clientWidth,
          down: element.scrollHeight - element.clientHeight,
        })),
      ).toEqual({ across: 0, down: 0 });
      await checkScreen(app, 'preview-image-turned');

      // Zoomed in, turned: the frame scrolls over exactly the turned image, from its top left
      // corner to its bottom right one.
      const zoomIn = photo.getByRole('button', { name: 'Zoom in (+)' });
      await zoomIn.click();
      await zoomIn.click();
      await photo.getByText('150 %').waitFor();
      await expect
        .poll(async () => Math.abs((await boxOf(image)).width - fitted.width * 1.5))
        .toBeLessThan(2);
      const zoomed = await boxOf(image);
      expect(zoomed.height).toBeGreaterThan(zoomed.width);
      const scrolled = (to: 'start' | 'end') =>
        frame.evaluate((element, end) => {
          element.scrollTo(end ? element.scrollWidth : 0, end ? element.scrollHeight : 0);
          const { left, top } = element.getBoundingClientRect();
          return {
            left,
            top,
            right: left + element.clientWidth,
            bottom: top + element.clientHeight,
            scrollWidth: element.scrollWidth,
            scrollHeight: element.scrollHeight,
          };
        }, to === 'end');
      const start = await scrolled('start');
      expect(start.scrollWidth).toBeGreaterThan(frameWidth);
      expect(Math.abs(start.scrollWidth - zoomed.width)).toBeLessThan(2);
      expect(Math.abs(start.scrollHeight - zoomed.height)).toBeLessThan(2);
      const topLeft = await boxOf(image);
      expect(Math.abs(topLeft.left - start.left)).toBeLessThan(1);
      expect(Math.abs(topLeft.top - start.top)).toBeLessThan(1);
      const end = await scrolled('end');
      const bottomRight = await boxOf(image);
      expect(Math.abs(bottomRight.right - end.right)).toBeLessThan(1);
      expect(Math.abs(bottomRight.bottom - end.bottom)).toBeLessThan(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);

      // The keys, on the image: 0 fits, Shift+R turns left, R right; none of them leaves the
      // preview (the pane stays, nothing is reviewed).
      await frame.focus();
      await page.keyboard.press('0');
      await photo.getByRole('button', { name: 'Fit to the pane (0)', pressed: true }).waitFor();
      await page.keyboard.press('Shift+R');
      await photo.getByRole('status').getByText('Not turned').waitFor();
      expect((await boxOf(image)).width).toBeGreaterThan((await boxOf(image)).height);
      await page.keyboard.press('Shift+R');
      await photo.getByRole('status').getByText('Turned 90° left').waitFor();
      const left = await boxOf(image);
      expect(left.height).toBeGreaterThan(left.width);
      expect(Math.abs(left.width - fitted.width)).toBeLessThan(2);
      await page.keyboard.press('r');
      await photo.getByRole('status').getByText('Not turned').waitFor();
      await page.keyboard.press('r');
      await page.keyboard.press('r');
      await photo.getByRole('status').getByText('Turned 180°').waitFor();
      const upsideDown = await boxOf(image);
      expect(upsideDown.width).toBeGreaterThan(upsideDown.height);
      await page.keyboard.press('Shift+R');
      await photo.getByRole('status').getByText('Turned 90° right').waitFor();
      // Typing an R in the note is typing, not turning.
      const note = pane.getByRole('textbox', { name: 'Note', exact: true });
      await note.focus();
      await page.keyboard.type('Rr');
      expect(await note.inputValue()).toBe('Rr');
      await note.fill('');
      expect(await photo.getByRole('status').textContent()).toBe('Turned 90° right');
      expect(await pane.isVisible()).toBe(true);

      // The PDF, the expense's other file, shown in its place: upright, then turned right, drawn
      // turned (the canvas's own pixels are wide, not an upright canvas rotated) at the screen's
      // density, every page.
      await pane.getByRole('button', { name: 'Hide preview of sideways.png' }).click();
      await pane.getByRole('button', { name: 'Show preview of invoice.pdf' }).click();
      let invoice = pane.getByRole('figure', { name: 'PDF invoice.pdf' });
      const drawn = (n: number) =>
        invoice.getByRole('img', { name: `invoice.pdf, page ${n} of 2` }).and(page.locator('[data-drawn]'));
      const canvas = invoice.locator('canvas');
      const pixels = () =>
        canvas.evaluate((element) => {
          const target = element as HTMLCanvasElement;
          return {
            width: target.width,
            height: target.height,
            cssWidth: target.getBoundingClientRect().width,
            cssHeight: target.getBoundingClientRect().height,
            transform: getComputedStyle(target).transform,
            ratio: window.devicePixelRatio,
          };
        });
      await drawn(1).waitFor();
      await invoice.getByRole('status').getByText('Not turned').waitFor();
      const page1 = await pixels();
      expect(page1.height).toBeGreaterThan(page1.width); // A6, upright
      await invoice.getByRole('button', { name: 'Turn right (R)' }).click();
      await invoice.getByRole('status').getByText('Turned 90° right').waitFor();
      await expect.poll(async () => (await pixels()).width > (await pixels()).height).toBe(true);
      await drawn(1).waitFor();
      const turnedPage = await pixels();
      expect(Math.abs(turnedPage.width / turnedPage.height - page1.height / page1.width)).toBeLessThan(0.02);
      expect(turnedPage.cssWidth).toBeGreaterThan(turnedPage.cssHeight);
      expect(turnedPage.transform).toBe('none');
      expect(turnedPage.width).toBeGreaterThanOrEqual(Math.floor(turnedPage.cssWidth * turnedPage.ratio) - 1);
      await invoice.getByRole('button', { name: 'Next page (Page Down)' }).click();
      await drawn(2).waitFor();
      expect((await pixels()).width).toBeGreaterThan((await pixels()).height);
      await checkScreen(app, 'preview-pdf-turned');

      // Back to the photo: still turned right; and the PDF, shown again, still turned too.
      await pane.getByRole('button', { name: 'Hide preview of invoice.pdf' }).click();
      await pane.getByRole('button', { name: 'Show preview of sideways.png' }).click();
      photo = pane.getByRole('figure', { name: 'Image sideways.png' });
      await photo.getByRole('status').getByText('Turned 90° right').waitFor();
      await expect
        .poll(async () => {
          const box = await boxOf(photo.getByRole('img', { name: 'Receipt sideways.png' }));
          return box.height > box.width;
        })
        .toBe(true);
      await pane.getByRole('button', { name: 'Show preview of invoice.pdf' }).click();
      invoice = pane.getByRole('figure', { name: 'PDF invoice.pdf' });
      await drawn(1).waitFor();
      await invoice.getByRole('status').getByText('Turned 90° right').waitFor();
      expect((await pixels()).width).toBeGreaterThan((await pixels()).height);

      // Another expense (the pane closed, another transaction opened): its photo starts upright,
      // and turned left there it keeps that.
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      pane = await openTransaction(app, other.id);
      let otherPhoto = pane.getByRole('figure', { name: 'Image other.png' });
      const showOther = pane.getByRole('button', { name: 'Show preview of other.png' });
      await otherPhoto.or(showOther).first().waitFor();
      if (await showOther.isVisible()) await showOther.click();
      await otherPhoto.getByRole('status').getByText('Not turned').waitFor();
      await otherPhoto.getByRole('button', { name: 'Turn left (Shift+R)' }).click();
      await otherPhoto.getByRole('status').getByText('Turned 90° left').waitFor();

      // Back to the first expense: each of its files as it was left, turned right, laid out so.
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      pane = await openTransaction(app, expense.bankTransactionId);
      photo = pane.getByRole('figure', { name: 'Image sideways.png' });
      await photo.getByRole('status').getByText('Turned 90° right').waitFor();
      await expect
        .poll(async () => {
          const box = await boxOf(photo.getByRole('img', { name: 'Receipt sideways.png' }));
          return box.height > box.width;
        })
        .toBe(true);
      invoice = pane.getByRole('figure', { name: 'PDF invoice.pdf' });
      await drawn(1).waitFor();
      await invoice.getByRole('status').getByText('Turned 90° right').waitFor();
      await expect.poll(async () => (await pixels()).width > (await pixels()).height).toBe(true);

      // And the other one again: still turned left.
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      pane = await openTransaction(app, other.id);
      otherPhoto = pane.getByRole('figure', { name: 'Image other.png' });
      await otherPhoto.getByRole('status').getByText('Turned 90° left').waitFor();
    } finally {
      await app.close();
    }
  }, 180_000);
});
