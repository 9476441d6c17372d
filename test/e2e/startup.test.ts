import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../src-main/core';
import { applyReview } from '../../src-main/review';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { damageTable } from '../helpers/damage';
import { useReadOnlyFolders } from '../helpers/read-only';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { closeBrowser, openApp, type AppPage } from './harness';

// What the window says when the local state it starts from is damaged or missing: one
// organisation's offline copy that cannot be opened, a list of organisations that cannot be
// read, and a first run with nothing at all, by keyboard.

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
afterAll(closeBrowser);
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

const focusedText = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element ? `${element.tagName} ${element.getAttribute('aria-label') ?? element.textContent}` : '';
  });

/**
 * Opens the window on `core` (page timeout `timeout` ms when given) and runs `body` on it; then
 * closes the window, `core` and `sandbox`, whatever happened.
 */
async function inWindow(
  core: Core,
  { sandbox, timeout }: { sandbox?: { stop(): Promise<void> }; timeout?: number },
  body: (app: AppPage, page: Page) => Promise<void>,
): Promise<void> {
  const app = await openApp(core);
  if (timeout !== undefined) app.page.setDefaultTimeout(timeout);
  try {
    await body(app, app.page);
  } finally {
    await app.close();
    await core.close();
    await sandbox?.stop();
  }
}

/** An organisation connected to a sandbox of its own and synced once, its core closed. */
async function syncedOrganisation(name: string, seeded: { seed: number; transactions: number }) {
  const sandbox = await startSandbox({ port: 0, ...seeded });
  const dataDir = tempDir();
  const core = createCore({ dataDir, secrets });
  const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
  const profile = await core.addProfile({ name, baseUrl: sandbox.url, auth });
  expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
  await core.close();
  return { sandbox, dataDir, profile, file: core.profiles.cacheFile(profile.id) };
}

describe('damaged local state in the window', () => {
  it('says which organisation’s copy cannot be opened, and rebuilds it keeping the unsent work', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 120 });
    const dataDir = tempDir();
    let core = createCore({ dataDir, secrets });
    const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
    const damaged = await core.addProfile({ name: 'Damaged AG', baseUrl: sandbox.url, auth });
    const healthy = await core.addProfile({ name: 'Healthy GmbH', baseUrl: sandbox.url, auth });
    for (const profile of [damaged, healthy])
      expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
    const cache = core.cacheOf(damaged.id);
    const transactionId = cache.sqlite
      .prepare('SELECT id FROM bank_transactions ORDER BY booking_date DESC, id DESC LIMIT 1')
      .pluck()
      .get() as string;
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: [transactionId] }, { action: 'setReviewed' });
    const supplierId = cache.sqlite
      .prepare('SELECT id FROM suppliers ORDER BY id LIMIT 1')
      .pluck()
      .get() as string;
    core.outbox.updateSupplier(damaged.id, supplierId, { name: 'Renamed Offline KG' });
    await core.close();
    // A later version of Satchel migrated the copy further.
    const file = core.profiles.cacheFile(damaged.id);
    const sqlite = new Database(file);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('from-the-future', 4_102_444_800_000);
    sqlite.close();

    core = createCore({ dataDir, secrets });
    await inWindow(core, { sandbox, timeout: 20_000 }, async (app, page) => {
      // The first organisation connected is shown first.
      await page
        .getByRole('heading', { level: 1, name: 'The offline copy of Damaged AG is from a newer Satchel' })
        .waitFor();
      await page
        .getByTestId('cache-problem')
        .getByText('newer version of Satchel', { exact: false })
        .waitFor();
      await page
        .getByTestId('cache-readable')
        .getByText('Satchel can still read 1 unsent edit and 1 review mark in it; a rebuild keeps them.')
        .waitFor();
      await checkScreen(app, 'startup-damaged-cache');

      // The other organisation works as before.
      await page.getByLabel('Organisation').selectOption({ label: 'Healthy GmbH' });
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await page.getByLabel('Organisation').selectOption({ label: 'Damaged AG' });
      const rebuild = page.getByRole('button', { name: 'Set aside and rebuild' });
      await rebuild.waitFor();
      // Nothing was set aside just by looking.
      expect(core.cacheProblem(damaged.id)?.reason).toBe('NEWER_SCHEMA');

      await rebuild.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      await page
        .getByTestId('notice')
        .getByText('kept 1 unsent edit and 1 review mark. Syncing again.', { exact: false })
        .waitFor();
      // The focus goes on in the area shown, and the copy fills from the server.
      await expect.poll(() => focusedText(page)).toContain('Transactions');
      await grid.getByText('✓ Reviewed').first().waitFor({ timeout: 30_000 });
      await expect
        .poll(() => sandbox.state.suppliers.find((s) => s.id === supplierId)?.name, { timeout: 30_000 })
        .toBe('Renamed Offline KG');
      await app.screenshot('startup-damaged-cache-rebuilt');
    });
  });

  it('shows a copy SQLite finds damaged after it opened as damaged, not as an empty list', async () => {
    const { sandbox, dataDir, file } = await syncedOrganisation('Damaged AG', { seed: 7, transactions: 60 });
    // The suppliers' table loses its root page; the file still opens, and the transactions read.
    damageTable(file, 'suppliers');

    const core = createCore({ dataDir, secrets });
    await inWindow(core, { sandbox }, async (_app, page) => {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      // The suppliers' search meets the damage: the window says so for the organisation.
      await page.keyboard.press('Control+3');
      await page
        .getByRole('heading', { level: 1, name: 'The offline copy of Damaged AG is damaged' })
        .waitFor();
      await page
        .getByTestId('cache-problem')
        .getByText('database disk image is malformed', { exact: false })
        .waitFor();
      await page.getByRole('button', { name: 'Set aside and rebuild' }).click();
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await page
        .getByRole('grid', { name: 'Suppliers' })
        .getByRole('row')
        .nth(1)
        .waitFor({ timeout: 30_000 });
    });
  });

  it('removes an organisation whose copy cannot be opened from Settings, the copy set aside', async () => {
    const { sandbox, dataDir, profile, file } = await syncedOrganisation('Damaged AG', {
      seed: 7,
      transactions: 40,
    });
    writeFileSync(file, Buffer.alloc(4096, 0x41));

    const core = createCore({ dataDir, secrets });
    await inWindow(core, { sandbox }, async (_app, page) => {
      await page
        .getByRole('heading', { level: 1, name: 'The offline copy of Damaged AG is damaged' })
        .waitFor();
      await page
        .getByTestId('cache-readable')
        .getByText('Satchel cannot read any unsent edits or review marks from it.', { exact: false })
        .waitFor();
      await page.getByRole('button', { name: 'Open Settings' }).click();
      const connection = page.getByRole('listitem', { name: 'Damaged AG' });
      await connection.getByRole('button', { name: 'Remove…' }).click();
      await page
        .getByTestId('removal-loses')
        .getByText(
          'Its offline copy cannot be opened. Removing sets the file aside beside the others, renamed, not deleted.',
        )
        .waitFor();
      await page.keyboard.press('Enter');
      // Settings offers "Add an organisation…" all along: the connection's row going is the sign.
      await connection.waitFor({ state: 'detached' });
      expect(core.profiles.list()).toEqual([]);
      expect(
        readdirSync(path.dirname(file)).filter((name) => name.startsWith(`${profile.id}.damaged-`)),
      ).toHaveLength(1);
    });
  });

  it('says the list of organisations cannot be read, and writes nothing over it', async () => {
    const dataDir = tempDir();
    const id = randomUUID();
    await secrets.set(`profile:${id}`, 'sk_kept');
    const list = path.join(dataDir, 'profiles.json');
    const damaged = `{"version":1,"profiles":[{"id":"${id}","name":"Cut sh`;
    writeFileSync(list, damaged);
    const core = createCore({ dataDir, secrets });
    await inWindow(core, {}, async (app, page) => {
      await page
        .getByRole('heading', { level: 1, name: 'The list of organisations cannot be read' })
        .waitFor();
      await page.getByTestId('list-problem').getByText(list, { exact: false }).waitFor();
      await page
        .getByTestId('list-problem')
        .getByText('keys in the system keychain are kept', { exact: false })
        .waitFor();
      // Not mistaken for a first run: nothing offers to connect, which would write a new list.
      expect(await page.getByText('Welcome to Satchel').count()).toBe(0);
      expect(await page.getByText('No organisation is connected yet.').count()).toBe(0);
      await page.keyboard.press('Control+6');
      await page
        .getByRole('heading', { level: 1, name: 'The list of organisations cannot be read' })
        .waitFor();
      await checkScreen(app, 'startup-damaged-list');
      expect(readFileSync(list, 'utf8')).toBe(damaged);
      expect(await secrets.get(`profile:${id}`)).toBe('sk_kept');

      // Restored from a backup, the list is read again.
      writeFileSync(
        list,
        JSON.stringify({
          version: 1,
          profiles: [
            {
              id,
              name: 'Restored KG',
              baseUrl: 'http://127.0.0.1:9',
              authKind: 'token',
              demo: false,
              createdAt: '2026-01-05T10:00:00.000Z',
            },
          ],
        }),
      );
      await page.getByRole('button', { name: 'Check again' }).focus();
      await page.keyboard.press('Enter');
      await page.getByLabel('Organisation').getByText('Restored KG').waitFor({ state: 'attached' });
    });
  });

  it('recovers the organisations from their offline copies, by keyboard, after saying what it will do', async () => {
    const { sandbox, dataDir, profile } = await syncedOrganisation('Recovered KG', {
      seed: 5,
      transactions: 60,
    });
    let core = createCore({ dataDir, secrets });
    const supplierId = sandbox.state.suppliers[0]!.id;
    core.outbox.updateSupplier(profile.id, supplierId, { name: 'Kept Offline KG' });
    await core.close();
    const list = path.join(dataDir, 'profiles.json');
    writeFileSync(list, '{"version":1,"profiles":[{"id":"');
    writeFileSync(path.join(dataDir, 'caches', 'stray.sqlite'), 'not a copy');

    core = createCore({ dataDir, secrets });
    await inWindow(core, { sandbox, timeout: 20_000 }, async (app, page) => {
      await page
        .getByRole('heading', { level: 1, name: 'The list of organisations cannot be read' })
        .waitFor();
      // Check again is focused; Tab reaches Recover organisations.
      expect(await focusedText(page)).toBe('BUTTON Check again');
      await page.keyboard.press('Tab');
      expect(await focusedText(page)).toBe('BUTTON Recover organisations…');
      await page.keyboard.press('Enter');
      // The confirmation says what will happen, and nothing is changed yet.
      const plan = page.getByTestId('recovery-plan');
      await plan
        .getByText(`The damaged list ${list} will be renamed beside itself`, { exact: false })
        .waitFor();
      await page
        .getByTestId('recovery-organisations')
        .getByText(`Recovered KG (${sandbox.url}), offline copy ${profile.id}.sqlite with 1 unsent edit`, {
          exact: false,
        })
        .waitFor();
      await page.getByTestId('recovery-untied').getByText('stray.sqlite', { exact: false }).waitFor();
      expect(await focusedText(page)).toBe('BUTTON Recover');
      await checkScreen(app, 'startup-recover-confirm');
      // Escape takes the question back; asked again, Enter recovers.
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Recover organisations…' }).waitFor();
      expect(readFileSync(list, 'utf8')).toBe('{"version":1,"profiles":[{"id":"');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Recover', exact: true }).waitFor();
      await page.keyboard.press('Enter');

      await page.getByRole('heading', { level: 1, name: 'Organisations recovered' }).waitFor();
      const result = page.getByTestId('recovery-result');
      await result.getByText('Set the damaged list of organisations aside as', { exact: false }).waitFor();
      const aside = readdirSync(dataDir).filter((name) => name.startsWith('profiles.damaged-'));
      expect(aside).toHaveLength(1);
      await result.getByText(path.join(dataDir, aside[0]!), { exact: false }).waitFor();
      expect(readFileSync(path.join(dataDir, aside[0]!), 'utf8')).toBe('{"version":1,"profiles":[{"id":"');
      expect(await focusedText(page)).toBe('BUTTON Continue');
      await checkScreen(app, 'startup-recover-result');
      await page.keyboard.press('Enter');
      // The organisation is back, its copy read as it was.
      await page.getByLabel('Organisation').getByText('Recovered KG').waitFor({ state: 'attached' });
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      expect(core.localWork(profile.id)).toEqual({ edits: 1, marks: 0 });
    });
  });

  it('opens and reviews offline without the keychain entry, and says how to give the key again', async () => {
    const { sandbox, dataDir, profile } = await syncedOrganisation('Keyless KG', {
      seed: 3,
      transactions: 60,
    });
    // Lost from the keychain (a new login keyring, a cleaned-up keychain).
    await secrets.delete(`profile:${profile.id}`);

    const core = createCore({ dataDir, secrets });
    await inWindow(core, { sandbox, timeout: 20_000 }, async (app, page) => {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press(' ');
      await grid.getByText('✓ Reviewed').waitFor();

      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      await page.getByRole('button', { name: 'Sync now' }).click();
      const failure = page.getByTestId('sync-failure');
      await failure.getByText('The keychain has no credentials for "Keyless KG"', { exact: false }).waitFor();
      await failure.getByText('New key…', { exact: false }).waitFor();
      await app.screenshot('startup-keychain-entry-missing');

      // The way on it names: Settings, New key….
      await page.keyboard.press('Control+6');
      const connection = page.getByRole('listitem', { name: 'Keyless KG' });
      await connection.getByRole('button', { name: 'New key…' }).click();
      const form = page.getByRole('form', { name: 'New key for Keyless KG' });
      await form.getByLabel('API key id').fill(sandbox.clientId);
      await form.getByLabel('API key secret').fill(sandbox.clientSecret);
      await form.getByRole('button', { name: 'Save' }).click();
      await connection.getByText('New key saved; the next sync signs in with it.').waitFor();
      expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
    });
  });

  it('offers the demo and a real connection on a first run, by keyboard alone', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 60 });
    const core = createCore({ dataDir: tempDir(), secrets });
    await inWindow(core, { sandbox }, async (_app, page) => {
      await page.getByRole('heading', { level: 1, name: 'Welcome to Satchel' }).waitFor();
      await page.getByRole('button', { name: 'Try the demo organisation' }).waitFor();
      // From the top of the page, Tab reaches the demo and then the form, in that order.
      const reached: string[] = [];
      for (let step = 0; step < 30 && !reached.includes('INPUT Name'); step += 1) {
        await page.keyboard.press('Tab');
        const now = await page.evaluate(() => {
          const element = document.activeElement as HTMLInputElement | null;
          if (!element) return '';
          const label = element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null;
          return `${element.tagName} ${label ?? element.textContent ?? ''}`;
        });
        reached.push(now);
      }
      const demoAt = reached.indexOf('BUTTON Try the demo organisation');
      expect(demoAt).toBeGreaterThanOrEqual(0);
      expect(reached.indexOf('INPUT Name')).toBeGreaterThan(demoAt);
      await page.keyboard.type('Sandbox GmbH');
      await page.keyboard.press('Tab');
      await page.keyboard.type(sandbox.url);
      // The kind of sign-in: API key is chosen; Tab moves past the radio group.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.type(sandbox.clientId);
      await page.keyboard.press('Tab');
      await page.keyboard.type(sandbox.clientSecret);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor({ timeout: 30_000 });
      await expect.poll(() => focusedText(page)).toContain('Transactions');
      expect(core.profiles.list()).toMatchObject([{ name: 'Sandbox GmbH', baseUrl: sandbox.url }]);
    });
  });
});

describe('a read-only offline copy in the window', () => {
  const makeReadOnly = useReadOnlyFolders();

  it('says so once in a banner, keeps reading, turns Sync off with the reason, and checks again', async () => {
    const { sandbox, dataDir, file } = await syncedOrganisation('Archive AG', { seed: 7, transactions: 60 });
    const before = readFileSync(file);
    // The organisation's copy is on a read-only disk (test/helpers/read-only.ts: real, even as root).
    const undo = makeReadOnly(path.dirname(file));
    await inWindow(createCore({ dataDir, secrets }), { sandbox, timeout: 20_000 }, async (app, page) => {
      const banner = page.getByTestId('read-only-banner');
      await banner.waitFor();
      const message = `The offline copy of "Archive AG" is read-only: the folder ${path.dirname(file)} is on a read-only disk or share. You can search and read; sync, edits, review marks and downloads into the copy are off until ${path.dirname(file)} can be written again (a writable disk, or write permission for your user): then choose Check again, or start Satchel again.`;
      expect(await banner.locator('p').textContent()).toBe(message);
      // Reading works: the transactions are listed.
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      // A review mark would write: its button is there, off, with the reason.
      const mark = page.getByTestId('transaction-pane').getByRole('button', { name: 'Mark reviewed' });
      expect(await mark.isDisabled()).toBe(true);
      expect(await mark.getAttribute('title')).toBe(message);
      // The totals thread reads the copy too (from its snapshot): the count arrives.
      await page.getByRole('button', { name: /^Mark all \d+ reviewed…$/ }).waitFor();
      await app.screenshot('read-only-banner');

      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      const syncNow = page.getByRole('button', { name: 'Sync now' });
      expect(await syncNow.isDisabled()).toBe(true);
      expect(await syncNow.getAttribute('title')).toBe(message);
      // Its reason is its accessible description: the banner's text.
      expect(await syncNow.getAttribute('aria-describedby')).toBe('read-only-reason');
      expect(await page.locator('#read-only-reason').textContent()).toBe(message);
      expect(await page.getByTestId('read-only-banner').count()).toBe(1);
      expect(readFileSync(file).equals(before)).toBe(true);

      // Fixed: Check again brings writing back without a restart.
      undo();
      await banner.getByRole('button', { name: 'Check again' }).click();
      await banner.waitFor({ state: 'detached' });
      await syncNow.and(page.locator(':enabled')).waitFor();
      expect(await syncNow.getAttribute('title')).toBeNull();
    });
  });
});
