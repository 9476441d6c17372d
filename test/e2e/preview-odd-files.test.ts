import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import type { FileReplacement } from '../../src-sandbox/data/state';
import { newFolderDialog } from '../helpers/dialogs';
import { checkScreen } from './axe';
import { testFileUrl, useAppTests } from './harness';
import { loneReceipts, openTransaction, passwordPdf } from './receipts';

// Receipts that are not what they claim, as uploads sometimes are: each says what it is in the
// pane, with a way to save a copy where another app can open it; never an empty pane, a
// "Downloading…" that stays, a misleading "fetch it again" or an error thrown in the page.
const { tempDir, openConnected } = useAppTests();

interface Odd {
  replacement: FileReplacement & { name: string };
  says: string;
  /** Whether the pane offers "Save a copy…" (an empty file has nothing to save). */
  saves: boolean;
}

describe('receipts that are not what they claim', () => {
  it('says what each one is and offers to save a copy, for a damaged, empty, locked or foreign file', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 80, control: true });
    const validPdf = sandbox.state.fileBytes(
      sandbox.state.files.find((file) => file.mimeType === 'application/pdf')!,
    );
    const odd: Odd[] = [
      {
        replacement: { content: validPdf.subarray(0, 200), mimeType: 'application/pdf', name: 'cut.pdf' },
        says: 'This file is not a readable PDF: it is damaged, cut short, or not a PDF at all.',
        saves: true,
      },
      {
        replacement: {
          content: Buffer.from('<html>not a pdf</html>'),
          mimeType: 'application/pdf',
          name: 'bad.pdf',
        },
        says: 'This file is not a readable PDF',
        saves: true,
      },
      {
        replacement: {
          content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]),
          mimeType: 'image/jpeg',
          name: 'scan.jpg',
        },
        says: 'This file is not a readable image (it came as image/jpeg)',
        saves: true,
      },
      {
        // The start of a GIF (its size), and nothing drawable after it.
        replacement: {
          content: Buffer.from('GIF89a, or so it says'),
          mimeType: 'image/gif',
          name: 'slip.gif',
        },
        says: 'This file is not a readable image (it came as image/gif)',
        saves: true,
      },
      {
        replacement: {
          content: Buffer.from('%PDF-1.4, saved as a photo'),
          mimeType: 'image/png',
          name: 'photo.png',
        },
        says: 'This file is not a readable image (it came as image/png)',
        saves: true,
      },
      {
        replacement: { content: new Uint8Array(0), mimeType: 'application/pdf', name: 'empty.pdf' },
        says: 'This file is empty (0 bytes): there is nothing to show.',
        saves: false,
      },
      {
        replacement: { content: new Uint8Array(0), mimeType: 'image/png', name: 'empty.png' },
        says: 'This file is empty (0 bytes)',
        saves: false,
      },
      {
        replacement: { content: passwordPdf(), mimeType: 'application/pdf', name: 'locked.pdf' },
        says: 'This PDF is locked with a password, so Satchel cannot show it.',
        saves: true,
      },
      {
        replacement: { content: Buffer.from('....ftypheic'), mimeType: 'image/heic', name: 'IMG_0001.HEIC' },
        says: 'No preview for this type of file (image/heic).',
        saves: true,
      },
      {
        replacement: {
          content: Buffer.from('PK\u0003\u0004word/document.xml'),
          mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          name: 'invoice.docx',
        },
        says: 'No preview for this type of file (application/vnd.openxmlformats',
        saves: true,
      },
      {
        replacement: {
          content: Buffer.from('PK\u0003\u0004receipts'),
          mimeType: 'application/zip',
          name: 'receipts.zip',
        },
        says: 'No preview for this type of file (application/zip).',
        saves: true,
      },
    ];
    // Seeded before the first sync: the app's records say what these uploads say of themselves.
    const targets = loneReceipts(sandbox, odd.length);
    odd.forEach(({ replacement }, i) => sandbox.control?.replaceFile(targets[i]!.fileId, replacement));
    const folderDialog = newFolderDialog(tempDir, 'Copies');
    const folders = folderDialog.made;
    const app = await openConnected({
      sandbox,
      fileUrl: testFileUrl,
      pickFolder: folderDialog.pick,
      serveFiles: true,
      timeout: 20_000,
    });
    const { page } = app;
    try {
      for (const [i, { replacement, says, saves }] of odd.entries()) {
        const pane = await openTransaction(app, targets[i]!.id);
        await pane.getByRole('button', { name: `Show preview of ${replacement.name}` }).click();
        await pane.getByText(says, { exact: false }).waitFor();
        // Nothing still says it is on its way, and no "fetch it again" for a copy that is there.
        expect(
          await pane
            .getByRole('status')
            .filter({ hasText: /Opening|Downloading/ })
            .count(),
        ).toBe(0);
        expect(await pane.getByRole('button', { name: 'Fetch it again' }).count()).toBe(0);
        expect(await pane.getByRole('button', { name: `Save a copy of ${replacement.name}…` }).count()).toBe(
          saves ? 1 : 0,
        );
        if (replacement.name === 'locked.pdf') await checkScreen(app, 'preview-locked');
        if (replacement.name === 'receipts.zip') await checkScreen(app, 'preview-no-preview');
        await page.keyboard.press('Escape');
        await pane.waitFor({ state: 'detached' });
      }

      // "Save a copy…" puts the file in a folder the user picks; Esc in its dialog closes only
      // the dialog, not the pane around it.
      const damaged = odd.findIndex(({ replacement }) => replacement.name === 'bad.pdf');
      const pane = await openTransaction(app, targets[damaged]!.id);
      // Opened once, so kept offline: the preview shows by itself.
      const save = pane.getByRole('button', { name: 'Save a copy of bad.pdf…' });
      await save.click();
      let dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog
        .getByRole('radio', { name: 'This file (bad.pdf)' })
        .and(page.locator(':checked'))
        .waitFor();
      await checkScreen(app, 'preview-save-copy');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await pane.isVisible()).toBe(true);
      const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
      await expect.poll(focusedLabel).toBe('Save a copy of bad.pdf…');
      await save.click();
      dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('Destination folder').inputValue()).toBe(folders[0]);
      await dialog.getByRole('button', { name: 'Start download' }).click();
      // The note follows the copy to its end, says where it went in the dialog's words, and
      // stays until dismissed; the focus is back on the button the whole time.
      await pane
        .getByRole('status')
        .getByText(`Saved the copy in the destination folder ${folders[0]}.`, { exact: true })
        .waitFor();
      expect(await focusedLabel()).toBe('Save a copy of bad.pdf…');
      expect(await pane.getByText('Saving the copy', { exact: false }).count()).toBe(0);
      await pane.getByRole('button', { name: 'Dismiss the note on the copy' }).click();
      await pane.getByText('Saved the copy', { exact: false }).waitFor({ state: 'detached' });
      expect(await focusedLabel()).toBe('Save a copy of bad.pdf…');
      await expect
        .poll(() => readdirSync(folders[0]!).filter((name) => name.endsWith('bad.pdf')).length, {
          timeout: 20_000,
        })
        .toBe(1);
      const saved = readdirSync(folders[0]!).find((name) => name.endsWith('bad.pdf'))!;
      expect(readFileSync(path.join(folders[0]!, saved)).toString()).toBe('<html>not a pdf</html>');
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // A copy that cannot be saved (it arrives damaged every time) says why, not "Saving".
      const zip = odd.findIndex(({ replacement }) => replacement.name === 'receipts.zip');
      sandbox.control?.addFault({ match: `/v1/files/${targets[zip]!.fileId}/content`, corruptBody: true });
      const zipPane = await openTransaction(app, targets[zip]!.id);
      await zipPane.getByRole('button', { name: 'Show preview of receipts.zip' }).click();
      await zipPane.getByRole('button', { name: 'Save a copy of receipts.zip…' }).click();
      dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('Destination folder').inputValue()).toBe(folders[1]);
      await dialog.getByRole('button', { name: 'Start download' }).click();
      await zipPane
        .getByRole('status')
        .getByText(/^The copy could not be saved: .*sha256 does not match.*gave up after 3 attempts/)
        .waitFor();
      expect(await focusedLabel()).toBe('Save a copy of receipts.zip…');
    } finally {
      await app.close();
    }
  }, 240_000);
});
