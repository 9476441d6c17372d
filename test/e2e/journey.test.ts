import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { scopedFiles } from '../../src-main/files/scope';
import { searchTransactions } from '../../src-main/search';
import { createKeychainSecrets } from '../../src-main/secrets';
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from '../../src-shared/demo';
import type { DownloadProgress } from '../../src-shared/files';
import { newFolderDialog } from '../helpers/dialogs';
import { readManifest, sha256Of } from '../helpers/files';
import { useTempDirs } from '../helpers/temp-dir';
import { reviewFlagAndNoteByKeyboard, sendWaitingEditUnreachable } from './steps';
import { closeBrowser, openApp, testFileUrl } from './harness';

// The main journey in one app session, through the UI only, as a new user would walk it: open
// the demo organisation from the first screen, sync it, search, open a transaction and its
// receipt, mark it reviewed, flag it and note it from the keyboard; edit a supplier while the
// API is unreachable, bring the API back and see the edit sent; download every file in bulk
// and watch it finish. The in-app demo sandbox is started with its /__control routes (only the
// tests ask for them) so the test can drop its connections and lift the fault again.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

/** Calls the demo sandbox's test-control surface (faults on or off). */
async function control(baseUrl: string, method: 'POST' | 'DELETE', route: string, body?: unknown) {
  const response = await fetch(`${baseUrl}/__control/${route}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} /__control/${route}: ${response.status}`);
}

/** The supplier as the demo API itself has it, read with a token of its own. */
async function serverSupplier(baseUrl: string, id: string): Promise<{ name: string }> {
  const token = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT_ID,
      client_secret: DEMO_CLIENT_SECRET,
      scope: 'read',
    }).toString(),
  });
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const response = await fetch(`${baseUrl}/v1/suppliers/${id}`, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`GET /v1/suppliers/${id}: ${response.status}`);
  return (await response.json()) as { name: string };
}

describe('the main journey', () => {
  it('opens the demo, syncs, searches, reviews a receipt, edits a supplier offline and downloads every file', async () => {
    const folderDialog = newFolderDialog(tempDir, 'Journey');
    const destinations = folderDialog.made;
    const core = createCore({
      dataDir: tempDir(),
      secrets,
      demoSandbox: { transactions: 600, control: true },
      fileUrl: testFileUrl,
      // The system folder dialog, answered by the test with a new empty folder.
      pickFolder: folderDialog.pick,
    });
    const app = await openApp(core, { serveFiles: true });
    const { page } = app;
    page.setDefaultTimeout(30_000);
    try {
      // 1. First run: the demo organisation, synced at once.
      await page.getByRole('heading', { level: 1, name: 'Welcome to Satchel' }).waitFor();
      await app.screenshot('journey-first-run');
      await page.getByRole('button', { name: 'Try the demo organisation' }).click();
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      await page.getByTestId('sync-history').getByText('succeeded').waitFor({ timeout: 90_000 });
      await app.screenshot('journey-synced');
      const [profile] = core.profiles.list();
      if (!profile) throw new Error('no profile');
      expect(profile).toMatchObject({ name: 'Demo organisation', demo: true });
      const demoUrl = core.demo.url();
      if (!demoUrl) throw new Error('the demo sandbox is not running');
      expect(profile.baseUrl).toBe(demoUrl);
      const cache = core.cacheOf(profile.id);

      // A card payment whose expense has one PDF receipt: the one to review.
      const target = cache.sqlite
        .prepare(
          `SELECT t.id, t.counterparty, f.id AS fileId, f.name AS fileName FROM bank_transactions t
           JOIN expenses e ON json_extract(e.raw, '$.bankTransactionId') = t.id
           JOIN expense_files f ON f.expense_id = e.id
           WHERE f.mime_type = 'application/pdf' AND f.deleted_at IS NULL AND t.deleted_at IS NULL
             AND t.counterparty IS NOT NULL
             AND (SELECT count(*) FROM expense_files g WHERE g.expense_id = e.id) = 1
           ORDER BY t.booking_date DESC LIMIT 1`,
        )
        .get() as { id: string; counterparty: string; fileId: string; fileName: string } | undefined;
      if (!target) throw new Error('the demo data has no transaction with one PDF receipt');

      // 2. Search: "/" focuses the search field from the grid; the id finds one transaction.
      await page.keyboard.press('Control+1');
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      const total = searchTransactions(cache, {}).totals?.count ?? 0;
      expect(total).toBeGreaterThan(500);
      await page
        .getByTestId('totals')
        .getByText(new Intl.NumberFormat('en-US').format(total), { exact: true })
        .waitFor();
      await grid.focus();
      await page.keyboard.press('/');
      await page.keyboard.type(target.id);
      await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
      await grid.getByRole('row').nth(1).getByText(target.counterparty, { exact: true }).waitFor();

      // 3. Enter opens the transaction; its PDF receipt is fetched and drawn by pdf.js.
      await grid.focus();
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('transaction-pane');
      await pane.getByText(target.fileName).waitFor();
      await pane.getByRole('button', { name: `Show preview of ${target.fileName}` }).click();
      await pane
        .getByRole('img', { name: `${target.fileName}, page 1 of 1` })
        .and(page.locator('[data-drawn]'))
        .waitFor({ timeout: 60_000 });
      await expect.poll(() => pane.getByTestId('pdf-text').textContent()).toContain('Total');
      await pane.getByText(target.fileName).evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await app.screenshot('journey-receipt');
      // Opened once, kept offline.
      expect(
        cache.sqlite.prepare('SELECT local_path FROM expense_files WHERE id = ?').pluck().get(target.fileId),
      ).toBe(`${target.fileId}.pdf`);
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // 4. Space marks it reviewed, f flags it with a reason, n writes a note.
      await reviewFlagAndNoteByKeyboard(page, grid, pane);
      await app.screenshot('journey-reviewed');
      // The core has the marks: the review filters find exactly this transaction.
      const marked = searchTransactions(cache, {
        filters: { reviewed: true, flagged: true, hasNote: true },
      });
      expect(marked.totals?.count).toBe(1);
      expect(marked.rows[0]?.id).toBe(target.id);
      expect(marked.rows[0]?.review).toMatchObject({
        flagged: true,
        flagReason: 'Receipt missing',
        note: 'Asked the card holder for the hotel invoice.',
      });
      expect(marked.rows[0]?.review.reviewedAt).not.toBeNull();
      await page.keyboard.press('Escape');
      await pane.waitFor({ state: 'detached' });

      // 5. A supplier edited while the API is unreachable waits, and goes out once it is back.
      const supplier = cache.sqlite
        .prepare(
          `SELECT id, name, number FROM suppliers
           WHERE status = 'ACTIVE' AND deleted_at IS NULL AND number IS NOT NULL
           ORDER BY id LIMIT 1`,
        )
        .get() as { id: string; name: string; number: string } | undefined;
      if (!supplier) throw new Error('the demo data has no active supplier');
      const newName = `${supplier.name} (renamed)`;
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const suppliers = page.getByRole('grid', { name: 'Suppliers' });
      await suppliers.locator('tbody tr').first().waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type(supplier.number);
      await suppliers.locator('tbody tr').filter({ hasText: supplier.name }).first().waitFor();

      // The demo's server breaks every connection before answering: the edit waits, and the
      // app says why without calling itself offline (the network works).
      await control(demoUrl, 'POST', 'faults', { match: '*', drop: true });
      await suppliers.getByRole('button', { name: `Edit ${supplier.name}`, exact: true }).click();
      const editor = page.getByRole('form', { name: `Edit ${supplier.name}` });
      await editor.getByLabel('Name').fill(newName);
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('supplier-saved').waitFor();
      await sendWaitingEditUnreachable(page, 90_000);
      const edits = page.getByTestId('edits');
      await edits
        .getByText(/Not sent: The connection to \S+ was reset before the server answered\./)
        .waitFor();
      await page.getByTestId('online').waitFor();
      expect(core.connectivity.state()).toMatchObject({ online: true, reason: null });
      expect(core.outbox.list(profile.id)).toHaveLength(1);
      await app.screenshot('journey-supplier-pending');

      // The server answers again: the edit goes out, the list empties and the API has the new name.
      await control(demoUrl, 'DELETE', 'faults');
      expect((await serverSupplier(demoUrl, supplier.id)).name).toBe(supplier.name);
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor({ timeout: 90_000 });
      await page.getByTestId('pending-edits').getByText('No edits waiting').waitFor();
      await page.getByTestId('online').waitFor();
      expect(core.outbox.list(profile.id)).toEqual([]);
      expect((await serverSupplier(demoUrl, supplier.id)).name).toBe(newName);
      await app.screenshot('journey-supplier-sent');

      // 6. Every file of the organisation into a folder, followed to the end.
      const files = scopedFiles(cache, { by: 'all' });
      expect(files.length).toBeGreaterThan(20);
      await page.keyboard.press('Control+4');
      await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
      await page.getByRole('button', { name: 'Download files…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Download files' });
      await dialog.waitFor();
      await dialog.getByRole('radio', { name: 'Every file of the organisation' }).check();
      await dialog.getByRole('radio', { name: /By month/ }).check();
      await dialog.getByRole('button', { name: 'Choose…' }).click();
      await expect.poll(() => dialog.getByLabel('Destination folder').inputValue()).not.toBe('');
      const destination = destinations[0] ?? '';
      expect(await dialog.getByLabel('Destination folder').inputValue()).toBe(destination);
      // File bodies a little slow, so the download takes a moment to follow; every progress
      // event the core sends the page is recorded.
      await control(demoUrl, 'POST', 'faults', { match: 'getFileContent', latencyMs: 40 });
      const progress: DownloadProgress[] = [];
      const stopWatching = core.events.subscribe((name, payload) => {
        if (name === 'downloads.progress') progress.push(payload as DownloadProgress);
      });
      await dialog.getByRole('button', { name: 'Start download' }).click();
      await dialog.waitFor({ state: 'detached' });

      const job = page.getByTestId('download-job');
      const bar = job.getByRole('progressbar');
      await bar.waitFor();
      expect(Number(await bar.getAttribute('aria-valuemax'))).toBe(files.length);
      await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
      await job.and(page.locator('[data-status="completed"]')).waitFor({ timeout: 120_000 });
      stopWatching();
      await control(demoUrl, 'DELETE', 'faults');
      // It went up step by step, never back, to the whole scope.
      const settled = progress.map((event) => event.files.done + event.files.failed);
      expect(settled.some((n) => n > 0 && n < files.length)).toBe(true);
      expect(settled).toEqual([...settled].sort((a, b) => a - b));
      expect(progress.at(-1)).toMatchObject({
        status: 'completed',
        files: { total: files.length, done: files.length },
      });
      expect(Number(await bar.getAttribute('aria-valuenow'))).toBe(files.length);
      const count = new Intl.NumberFormat('en-US').format(files.length);
      await job.getByTestId('job-figures').getByText(`${count} of ${count} files`).waitFor();
      await job
        .getByTestId('job-summary')
        .getByTestId('manifest-path')
        .getByText(path.join(destination, 'manifest.csv'))
        .waitFor();
      await app.screenshot('journey-download-done');
      const [finished] = core.files.list(profile.id);
      expect(finished).toMatchObject({ status: 'completed' });
      expect(finished?.files).toMatchObject({
        total: files.length,
        done: files.length,
        failed: 0,
        pending: 0,
      });
      // The receipt opened in step 3 came from the offline copy, not from the API again.
      expect(finished?.files.copied).toBeGreaterThanOrEqual(1);

      // On disk: every file, whole, where the manifest says, with the hash the API gave.
      const manifest = readManifest(path.join(destination, 'manifest.csv'));
      expect(manifest.map((row) => row['file_id']).sort()).toEqual(files.map((file) => file.fileId).sort());
      const expected = new Map(files.map((file) => [file.fileId, file.sha256]));
      for (const row of manifest) {
        expect(row['status']).toBe('done');
        expect(row['file']).toMatch(/^(\d{4}-\d{2}|undated)\//);
        const onDisk = sha256Of(path.join(destination, ...(row['file'] ?? '').split('/')));
        expect(onDisk).toBe(row['sha256']);
        expect(onDisk).toBe(expected.get(row['file_id'] ?? ''));
      }
      expect(readdirSync(destination).filter((name) => name.startsWith('.'))).toEqual([]);
    } finally {
      await app.close();
      await core.close();
    }
  }, 360_000);
});
