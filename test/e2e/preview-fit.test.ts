import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { testFileUrl, useAppTests } from './harness';
import { largePng, loneReceipts, multiPagePdf, openTransaction } from './receipts';

// "Fit" follows the pane: a PDF page at Fit is drawn again at the frame's new width when the
// window is made narrower or wider (not left cut off, or small beside empty space), sharp at the
// new size and in its own proportions; a page zoomed to 150 % stays 150 % of the new fit; a photo
// at Fit follows the same way.
const { openConnected } = useAppTests();

/** The canvas as laid out and as drawn, and the width of the frame it fits. */
const canvasState = (frame: Locator) =>
  frame.evaluate((element) => {
    const canvas = element.querySelector('canvas')!;
    const box = canvas.getBoundingClientRect();
    return {
      frame: (element as HTMLElement).offsetWidth,
      width: box.width,
      height: box.height,
      // The drawing's own pixels: the device's density times the laid-out width when it was
      // drawn for this size, not an older drawing stretched or squeezed.
      pixels: canvas.width / window.devicePixelRatio,
      drawn: canvas.hasAttribute('data-drawn'),
    };
  });

describe('Fit follows the pane', () => {
  it('draws a PDF page and a photo at Fit again at the width of the pane as the window changes', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
    const [invoice, photo] = loneReceipts(sandbox, 2);
    if (!invoice || !photo) throw new Error('too few receipts');
    sandbox.control?.replaceFile(invoice.fileId, {
      content: multiPagePdf(['Invoice page one', 'Invoice page two']),
      mimeType: 'application/pdf',
      name: 'invoice.pdf',
    });
    sandbox.control?.replaceFile(photo.fileId, {
      content: largePng(2400, 1600),
      mimeType: 'image/png',
      name: 'photo.png',
    });
    const app = await openConnected({ sandbox, fileUrl: testFileUrl, serveFiles: true, timeout: 20_000 });
    const { page } = app;
    try {
      let pane = await openTransaction(app, invoice.id);
      await pane.getByRole('button', { name: 'Show preview of invoice.pdf' }).click();
      await pane
        .getByRole('img', { name: 'invoice.pdf, page 1 of 2' })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      const frame = pane.getByRole('group', { name: 'Page 1 of 2 of invoice.pdf' });

      const opened = await canvasState(frame);
      expect(Math.abs(opened.width - opened.frame)).toBeLessThanOrEqual(2);
      const tall = opened.height / opened.width; // A6, upright: about 1.41
      expect(tall).toBeGreaterThan(1.3);

      /**
       * Settled at Fit × zoom: laid out at that width, in proportion, and drawn for it. What is
       * not yet so, in words (none once it has settled).
       */
      const settlesAt = async (zoom: number) => {
        await expect
          .poll(async () => {
            const state = await canvasState(frame);
            const wanted = state.frame * zoom;
            const wrong: string[] = [];
            if (!state.drawn) wrong.push('not drawn');
            if (Math.abs(state.width - wanted) > 2) wrong.push(`${state.width} px wide, not ${wanted}`);
            if (Math.abs(state.height / state.width - tall) >= 0.02)
              wrong.push(`${state.width} × ${state.height} px, out of proportion`);
            if (Math.abs(state.pixels - state.width) > 2)
              wrong.push(`drawn for ${state.pixels} px, laid out at ${state.width}`);
            return wrong;
          })
          .toEqual([]);
        return canvasState(frame);
      };

      // Narrower: the page shrinks with the frame, not cut off.
      await page.setViewportSize({ width: 900, height: 800 });
      const narrow = await settlesAt(1);
      expect(narrow.frame).toBeLessThan(opened.frame - 50);
      // Wider again: it grows back, no empty space beside it.
      await page.setViewportSize({ width: 1280, height: 800 });
      const wide = await settlesAt(1);
      expect(Math.abs(wide.frame - opened.frame)).toBeLessThanOrEqual(1);

      // Dragged: many sizes one after the other, the last one is what is drawn (no earlier
      // drawing lands after it), and the page never goes blank on the way: at every frame the
      // middle of the canvas holds the page's paper (pdf.js paints it opaque; a canvas cleared
      // for a drawing still under way is transparent).
      await frame.evaluate((element) => {
        const canvas = element.querySelector('canvas')!;
        const watch = { blank: 0, frames: 0, on: true };
        (window as unknown as { blankWatch: typeof watch }).blankWatch = watch;
        const look = () => {
          if (!watch.on) return;
          const context = canvas.getContext('2d');
          const [, , , alpha] = context!.getImageData(canvas.width >> 1, canvas.height >> 1, 1, 1).data;
          watch.frames += 1;
          if (alpha !== 255) watch.blank += 1;
          requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
      });
      for (const width of [1200, 1100, 1000, 950, 900, 880, 860, 1000, 940]) {
        await page.setViewportSize({ width, height: 800 });
      }
      const dragged = await settlesAt(1);
      expect(dragged.frame).toBeLessThan(opened.frame - 20);
      const watched = await page.evaluate(() => {
        const watch = (window as unknown as { blankWatch: { blank: number; frames: number; on: boolean } })
          .blankWatch;
        watch.on = false;
        return watch;
      });
      expect(watched.frames).toBeGreaterThan(5);
      expect(watched.blank).toBe(0);

      // Zoomed to 150 %: 150 % of the new fit after the window changes.
      await frame.focus();
      await page.keyboard.press('+');
      await page.keyboard.press('+');
      await pane.getByRole('group', { name: 'Zoom of invoice.pdf' }).getByText('150 %').waitFor();
      await settlesAt(1.5);
      await page.setViewportSize({ width: 1280, height: 800 });
      await settlesAt(1.5);
      await page.keyboard.press('0');
      await settlesAt(1);
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // A photo at Fit follows the frame too (it is wider than any pane here).
      pane = await openTransaction(app, photo.id);
      await pane.getByRole('button', { name: 'Show preview of photo.png' }).click();
      await pane.getByRole('group', { name: 'Zoom of photo.png' }).waitFor();
      const photoFrame = pane.getByRole('group', { name: 'Receipt view of photo.png' });
      const image = pane.getByRole('img', { name: 'Receipt photo.png' });
      const fitted = () =>
        expect
          .poll(async () => {
            const frameWidth = await photoFrame.evaluate((element) => (element as HTMLElement).offsetWidth);
            const box = await image.evaluate((element) => element.getBoundingClientRect());
            const wrong: string[] = [];
            if (Math.abs(box.width - frameWidth) > 2) wrong.push(`${box.width} px wide, not ${frameWidth}`);
            if (Math.abs(box.width / box.height - 1.5) >= 0.02)
              wrong.push(`${box.width} × ${box.height} px, out of proportion`);
            return wrong;
          })
          .toEqual([]);
      await fitted();
      const photoWide = await photoFrame.evaluate((element) => (element as HTMLElement).offsetWidth);
      await page.setViewportSize({ width: 900, height: 800 });
      await fitted();
      expect(await photoFrame.evaluate((element) => (element as HTMLElement).offsetWidth)).toBeLessThan(
        photoWide - 50,
      );
      await page.setViewportSize({ width: 1280, height: 800 });
      await fitted();
    } finally {
      await app.close();
    }
  }, 120_000);
});
