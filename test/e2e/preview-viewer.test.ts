import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { checkScreen } from './axe';
import { testFileUrl, useAppTests } from './harness';
import { largePng, loneReceipts, multiPagePdf, openTransaction } from './receipts';

// The preview as an accountant reads receipts with it: a statement of 200 pages turned and
// zoomed from the keyboard (one page drawn at a time), a photo of 8000 × 6000 pixels fitted to
// the pane and zoomed without breaking it, a receipt asked for offline that opens by itself when
// the network is back, one whose download broke off midway, tried again, and a slow receipt
// left for the next before it arrived, which does not take the next one's place.
const { openConnected } = useAppTests();

describe('reading receipts in the preview', () => {
  it('turns and zooms a long PDF, fits and zooms a large photo, opens a receipt when the network is back', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
    const [statement, photo, offline, cut, slow, quick] = loneReceipts(sandbox, 6);
    if (!statement || !photo || !offline || !cut || !slow || !quick) throw new Error('too few receipts');
    const pages = Array.from({ length: 200 }, (_, i) => `Statement page ${i + 1}`);
    sandbox.control?.replaceFile(statement.fileId, {
      content: multiPagePdf(pages),
      mimeType: 'application/pdf',
      name: 'statement.pdf',
    });
    sandbox.control?.replaceFile(photo.fileId, {
      content: largePng(8000, 6000),
      mimeType: 'image/png',
      name: 'photo.png',
    });
    const app = await openConnected({ sandbox, fileUrl: testFileUrl, serveFiles: true, timeout: 20_000 });
    const { page, core, profile } = app;
    /** Whether anything of the page is wider than the window (a broken layout). */
    const overflows = () => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    try {
      // 200 pages: the first is drawn, and only it.
      let pane = await openTransaction(app, statement.id);
      await pane.getByRole('button', { name: 'Show preview of statement.pdf' }).click();
      const drawnPage = (n: number) =>
        pane.getByRole('img', { name: `statement.pdf, page ${n} of 200` }).and(page.locator('[data-drawn]'));
      await drawnPage(1).waitFor();
      expect(await pane.locator('canvas').count()).toBe(1);
      // The page itself takes the focus (Tab reaches it after the page and zoom buttons), and
      // the keys turn and zoom it there.
      const frame = pane.getByRole('group', { name: /^Page \d+ of 200 of statement\.pdf$/ });
      await frame.focus();
      await page.keyboard.press('End');
      await drawnPage(200).waitFor();
      await expect.poll(() => pane.getByTestId('pdf-text').textContent()).toBe('Statement page 200');
      await page.keyboard.press('PageUp');
      await drawnPage(199).waitFor();
      const canvas = pane.locator('canvas');
      const size = () =>
        // As laid out: at Fit the canvas is the frame's width by CSS (100 %), zoomed in pixels.
        canvas.evaluate((element) => {
          const { width, height } = element.getBoundingClientRect();
          return { width, height };
        });
      const fit = await size();
      expect(fit.height).toBeGreaterThan(fit.width); // A6, upright
      await page.keyboard.press('+');
      await pane.getByText('125 %').waitFor();
      await expect.poll(async () => Math.abs((await size()).width - fit.width * 1.25)).toBeLessThan(2);
      await drawnPage(199).waitFor();
      await page.keyboard.press('0');
      await pane.getByRole('button', { name: 'Fit to the pane (0)', pressed: true }).waitFor();
      await expect.poll(async () => (await size()).width).toBe(fit.width);
      // The buttons do the same; at 400 % "Zoom in" says it can go no further and keeps the focus.
      const zoomIn = pane.getByRole('button', { name: 'Zoom in (+)' });
      for (let i = 0; i < 5; i++) await zoomIn.click();
      await pane.getByText('400 %').waitFor();
      expect(await zoomIn.getAttribute('aria-disabled')).toBe('true');
      await expect.poll(async () => Math.abs((await size()).width - fit.width * 4)).toBeLessThan(5);
      // Zoomed past the pane, the page scrolls inside its frame; the window does not widen.
      expect(await frame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      expect(await overflows()).toBe(false);
      await drawnPage(199).waitFor();
      await checkScreen(app, 'preview-pdf-zoomed');
      await pane.getByRole('button', { name: 'Fit to the pane (0)' }).click();
      // A quarter turn: the page lies on its side, as wide as the pane.
      await frame.focus();
      await page.keyboard.press('r');
      await expect.poll(async () => (await size()).height < (await size()).width).toBe(true);
      await drawnPage(199).waitFor();
      await pane.getByRole('button', { name: 'Turn right (R)' }).click();
      await pane.getByRole('status').getByText('Turned 180°').waitFor();
      await expect.poll(async () => (await size()).height > (await size()).width).toBe(true);
      // None of these keys reached the pane (it is still open, nothing was reviewed).
      expect(await pane.isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // 8000 × 6000 pixels: fitted to the pane at first, larger when zoomed, the layout intact.
      pane = await openTransaction(app, photo.id);
      await pane.getByRole('button', { name: 'Show preview of photo.png' }).click();
      const image = pane.getByRole('img', { name: 'Receipt photo.png' });
      const zoomOfPhoto = pane.getByRole('group', { name: 'Zoom of photo.png' });
      await zoomOfPhoto.waitFor({ timeout: 60_000 });
      const photoFrame = pane.getByRole('group', { name: 'Receipt view of photo.png' });
      const widths = async () => ({
        image: await image.evaluate((element) => element.getBoundingClientRect().width),
        frame: await photoFrame.evaluate((element) => element.clientWidth),
      });
      const fitted = await widths();
      expect(fitted.image).toBeGreaterThan(100);
      expect(fitted.image).toBeLessThanOrEqual(fitted.frame);
      expect(await overflows()).toBe(false);
      await photoFrame.focus();
      await page.keyboard.press('+');
      await page.keyboard.press('+');
      await zoomOfPhoto.getByText('150 %').waitFor();
      await expect.poll(async () => Math.abs((await widths()).image - fitted.image * 1.5)).toBeLessThan(2);
      expect(await photoFrame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      expect(await overflows()).toBe(false);
      await checkScreen(app, 'preview-large-image');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // Asked for while the system has no network: it says so, and opens by itself once the
      // network is back, with no click.
      core.connectivity.setNetwork(false);
      pane = await openTransaction(app, offline.id);
      await pane.getByRole('button', { name: `Show preview of ${offline.fileName}` }).click();
      await pane
        .getByRole('alert')
        .getByText('The receipt opens by itself once the network is back.', { exact: false })
        .waitFor();
      core.connectivity.setNetwork(true);
      await pane
        .getByRole('img', { name: `${offline.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor();
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // The download breaks off midway, every time: a message and "Try again", which opens it
      // once the line holds.
      sandbox.control?.addFault({ match: `/v1/files/${cut.fileId}/content`, truncateBodyAt: 100 });
      pane = await openTransaction(app, cut.id);
      await pane.getByRole('button', { name: `Show preview of ${cut.fileName}` }).click();
      const problem = pane.getByRole('alert');
      await problem.getByText('The download of the receipt broke off', { exact: false }).waitFor();
      expect(await problem.getByText('offline', { exact: false }).count()).toBe(0);
      sandbox.control?.clearFaults();
      await problem.getByRole('button', { name: 'Try again' }).click();
      // Shown (a PDF drawn or an image decoded): its zoom buttons come with it.
      await pane.getByRole('group', { name: `Zoom of ${cut.fileName}` }).waitFor();
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // Moving on before a slow receipt arrives: the next one shows, alone, and stays when the
      // slow answer comes in after it.
      const slowFault = sandbox.control?.addFault({
        match: `/v1/files/${slow.fileId}/content`,
        latencyMs: 3000,
      });
      pane = await openTransaction(app, slow.id);
      await pane.getByRole('button', { name: `Show preview of ${slow.fileName}` }).click();
      await pane.getByText('Downloading the receipt…').waitFor();
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });
      pane = await openTransaction(app, quick.id);
      await pane.getByRole('button', { name: `Show preview of ${quick.fileName}` }).click();
      await pane.getByRole('group', { name: `Zoom of ${quick.fileName}` }).waitFor();
      await expect.poll(() => sandbox.control?.faultFired(slowFault ?? '')).toBe(1);
      // The slow copy is in place now (kept offline), and the pane still shows only this one.
      await expect
        .poll(
          () =>
            core
              .cacheOf(profile.id)
              .sqlite.prepare('SELECT downloaded_at FROM expense_files WHERE id = ?')
              .pluck()
              .get(slow.fileId),
          { timeout: 10_000 },
        )
        .not.toBeNull();
      expect(await pane.getByRole('group', { name: /^Zoom of / }).count()).toBe(1);
      expect(await pane.getByText(slow.fileName).count()).toBe(0);
    } finally {
      await app.close();
    }
  }, 300_000);
});
