import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { applyReview } from '../../src-main/review';
import { createKeychainSecrets, type Secrets } from '../../src-main/secrets';
import packageJson from '../../package.json';
import { useTempDirs } from '../helpers/temp-dir';
import type { Page } from 'playwright-core';
import { startSandbox } from '../../src-sandbox';
import { closeBrowser, openApp, type AppPage } from './harness';
import { connectSandbox, fillConnectForm, holdAnswers } from './steps';

const tempDir = useTempDirs();
afterAll(closeBrowser);

describe('app shell in Chromium', () => {
  it('renders the areas and shows the real app.info', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir });
    const app = await openApp(core);
    const { page } = app;

    const nav = page.getByRole('navigation', { name: 'Areas' });
    await expect(nav.getByRole('button').allTextContents()).resolves.toEqual([
      'Transactions',
      'Expenses',
      'Suppliers',
      'Dimensions',
      'Files',
      'Sync',
      'Needs attention',
      'Settings',
    ]);
    await page.getByTestId('app-version').getByText(`Satchel ${packageJson.version} · API 1.44.0`).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Welcome to Satchel' }).waitFor();
    expect(statSync(await app.screenshot('first-run-light')).size).toBeGreaterThan(1000);

    // Keyboard: focus the current area, move down with j and arrows, jump to the end.
    await nav.getByRole('button', { name: 'Transactions' }).focus();
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowDown');
    await expect(nav.locator('[aria-current="page"]').textContent()).resolves.toBe('Suppliers');
    await page.keyboard.press('End');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();

    const facts = page.getByTestId('app-info');
    await facts.getByText(core.info().dataDir).waitFor();
    await page.getByTestId('keychain-status').getByText('Keychain: available').waitFor();
    await expect(facts.locator('dd').allTextContents()).resolves.toEqual([
      packageJson.version,
      '1.44.0',
      String(core.info().schemaVersion),
      dataDir,
      process.platform,
    ]);
    await app.screenshot('shell-settings-light');
    await app.close();
  });

  it('shows events pushed by the core in the status bar, in the dark theme too', async () => {
    const core = createCore({ dataDir: tempDir() });
    const app = await openApp(core, { colorScheme: 'dark' });
    await app.page.getByTestId('app-version').getByText('Satchel').waitFor();
    core.notify('warning', 'Working offline: 3 edits waiting');
    await app.page.getByTestId('notice').getByText('Working offline: 3 edits waiting').waitFor();
    const background = await app.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(22, 22, 21)');
    await app.page.keyboard.press('Control+6');
    await app.page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await app.screenshot('shell-settings-dark');
    await app.close();
  });

  it('loads without an error on the console', async () => {
    const core = createCore({ dataDir: tempDir() });
    const app = await openApp(core);
    const { page } = app;
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.reload();
    await page.getByTestId('app-version').getByText('Satchel').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Welcome to Satchel' }).waitFor();
    expect(errors).toEqual([]);
    await app.close();
  });

  it('keeps the status bar one line in a narrow window, a long notice cut short', async () => {
    const core = createCore({ dataDir: tempDir() });
    const app = await openApp(core);
    const { page } = app;
    await page.setViewportSize({ width: 800, height: 600 });
    const bar = page.locator('footer.status-bar');
    await page.getByTestId('app-version').getByText('Satchel').waitFor();
    const oneLine = (await bar.boundingBox())?.height ?? 0;
    const message = `Sync failed: ${'the API answered 503 Service Unavailable for /v1/bank-transactions?page=17 '.repeat(3)}`;
    core.notify('error', message);
    const notice = page.getByTestId('notice');
    await notice.waitFor();
    expect((await bar.boundingBox())?.height).toBe(oneLine);
    // Every item stays whole but the notice, whose full text is its tooltip.
    for (const id of ['online', 'app-version'])
      expect(await page.getByTestId(id).evaluate((item) => item.scrollWidth <= item.clientWidth)).toBe(true);
    expect(await notice.evaluate((item) => item.scrollWidth > item.clientWidth)).toBe(true);
    expect(await notice.getAttribute('title')).toBe(message);
    await app.close();
  });
});

describe('what the page can reach', () => {
  it('has only window.satchel (frozen, invoke and on), no Node, and its CSP refuses eval, injected scripts and the network', async () => {
    const core = createCore({ dataDir: tempDir() });
    const app = await openApp(core);
    const { page } = app;
    await page.getByTestId('app-version').getByText('Satchel').waitFor();
    // Code the page runs later (not the test's own evaluation, which DevTools lets eval): a
    // string timer and an injected inline script, each refused with a CSP violation.
    const reach = await page.evaluate(async () => {
      const scope = window as unknown as Record<string, unknown>;
      const api = scope['satchel'] as { invoke(command: string, input: unknown): Promise<unknown> };
      const violations: string[] = [];
      const refused = (count: number) =>
        new Promise<void>((resolve) => {
          document.addEventListener('securitypolicyviolation', (event) => {
            violations.push(`${event.effectiveDirective} ${event.blockedURI}`);
            if (violations.length === count) resolve();
          });
        });
      const both = refused(3);
      (setTimeout as unknown as (code: string) => void)('window.__evaluated = true;');
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true;';
      document.head.append(script);
      const remote = document.createElement('script');
      remote.src = 'https://scripts.example.com/x.js';
      document.head.append(remote);
      await both;
      let fetched = 'ran';
      await fetch('https://api.example.com/v1/bank-accounts').catch((error: Error) => (fetched = error.name));
      return {
        keys: Object.keys(api).sort(),
        frozen: Object.isFrozen(api),
        node: [
          typeof scope['require'],
          typeof scope['process'],
          typeof scope['module'],
          typeof scope['Buffer'],
        ],
        violations: violations.sort(),
        ran: [scope['__evaluated'] === true, scope['__injected'] === true],
        fetched,
        unknownCommand: await api.invoke('ipcRenderer.send', {}),
      };
    });
    expect(reach).toEqual({
      keys: ['invoke', 'on'],
      frozen: true,
      node: ['undefined', 'undefined', 'undefined', 'undefined'],
      violations: [
        'script-src eval',
        'script-src-elem https://scripts.example.com/x.js',
        'script-src-elem inline',
      ],
      ran: [false, false],
      fetched: 'TypeError',
      unknownCommand: {
        ok: false,
        error: { code: 'UNKNOWN_COMMAND', message: 'Unknown command: ipcRenderer.send' },
      },
    });
    await app.close();
  });
});

describe('connecting an organisation', () => {
  it('shows errors on the field at fault, then connects and keeps the secret only in the keychain', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const core = createCore({ dataDir: tempDir(), secrets });
    const app = await openApp(core);
    const { page } = app;
    const form = page.getByRole('form', { name: 'Connect an organisation' });
    await fillConnectForm(page, 'Acme GmbH', {
      url: 'ftp://api.acme.test',
      clientId: 'kid_acme',
      clientSecret: 'sk_acme_e2e_secret',
    });
    await form
      .getByRole('alert')
      .getByText(/http\(s\) address/)
      .waitFor();
    await expect(form.getByLabel('API address').getAttribute('aria-invalid')).resolves.toBe('true');
    await app.screenshot('connect-error-light');

    await form.getByLabel('API address').fill('https://api.acme.test');
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    // The form went with the button pressed: the keys go on in the list shown.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Transactions');
    const [profile] = core.profiles.list();
    expect(profile).toMatchObject({
      name: 'Acme GmbH',
      baseUrl: 'https://api.acme.test',
      clientId: 'kid_acme',
    });
    expect(await secrets.get(`profile:${profile?.id}`)).toBe('sk_acme_e2e_secret');
    expect(await page.content()).not.toContain('sk_acme_e2e_secret');

    await page.keyboard.press('Control+6');
    await page.getByRole('listitem', { name: 'Acme GmbH' }).waitFor();
    await app.screenshot('settings-connections-light');

    // Renaming: Esc and Cancel drop what was typed, and the next rename starts from the name.
    const connection = page.getByRole('listitem', { name: 'Acme GmbH' });
    const renameButton = connection.getByRole('button', { name: 'Rename' });
    const newName = connection.getByLabel('New name for Acme GmbH');
    await renameButton.click();
    await newName.fill('Discarded name');
    await page.keyboard.press('Escape');
    await newName.waitFor({ state: 'detached' });
    expect(await renameButton.evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await newName.inputValue()).toBe('Acme GmbH');
    await newName.fill('Another discarded name');
    await connection.getByRole('button', { name: 'Cancel' }).click();
    await renameButton.click();
    expect(await newName.inputValue()).toBe('Acme GmbH');
    await connection.getByRole('button', { name: 'Cancel' }).click();
    expect(core.profiles.list()[0]?.name).toBe('Acme GmbH');

    // The removal prompt by keyboard: Keep, or Esc, closes it with the focus back on Remove….
    const removeButton = connection.getByRole('button', { name: 'Remove…' });
    const prompt = page.getByRole('group', { name: 'Remove Acme GmbH' });
    const removeFocused = () => removeButton.evaluate((button) => button === document.activeElement);
    await removeButton.focus();
    await page.keyboard.press('Enter');
    await prompt.waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep');
    await page.keyboard.press('Enter');
    await prompt.waitFor({ state: 'detached' });
    await expect.poll(removeFocused).toBe(true);
    await page.keyboard.press('Enter');
    await prompt.waitFor();
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });
    await expect.poll(removeFocused).toBe(true);
    expect(core.profiles.list()).toHaveLength(1);

    await page.getByRole('button', { name: 'Remove…' }).click();
    await page
      .getByRole('group', { name: 'Remove Acme GmbH' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await page.getByText('None yet.').waitFor();
    expect(await secrets.list()).toEqual([]);
    await app.close();
  });
});

describe('connecting on the first screen with no answer from the address', () => {
  it('says where the user lands that the connection could not be checked, until a sync checks it', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const first = await startSandbox({ port: 0, seed: 3, transactions: 50 });
    const { url, clientId, clientSecret } = first;
    await first.stop(); // nothing answers at this address now
    const core = createCore({ dataDir: tempDir(), secrets });
    const app = await openApp(core);
    const { page } = app;
    let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
    try {
      await fillConnectForm(page, 'Later GmbH', { url, clientId, clientSecret });
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      const notice = page.getByTestId('notice');
      await notice
        .getByText('Added. It could not be checked now (no connection); the first sync will check it.')
        .waitFor();
      const [profile] = core.profiles.list();
      // The first sync, started at once, got no answer either: the note still holds.
      await expect
        .poll(() => core.sync.history(profile!.id).at(0)?.outcome, { timeout: 60_000 })
        .toBe('failed');
      await expect(notice.count()).resolves.toBe(1);

      // The server answers again at that address: the sync that reads it has checked the key.
      sandbox = await startSandbox({ port: Number(new URL(url).port), seed: 3, transactions: 50 });
      expect((await core.sync.sync(profile!.id)).outcome).toBe('succeeded');
      await expect.poll(() => notice.count()).toBe(0);
    } finally {
      await app.close();
      await core.close();
      await sandbox?.stop();
      for (const account of await secrets.list()) await secrets.delete(account);
    }
  }, 120_000);
});

describe("a connection's key", () => {
  it('takes a new key in Settings when the keychain lost it, refusing one the API refuses and saying when none could be checked', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 50 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const profile = await connectSandbox(core, sandbox);
    const app = await openApp(core);
    const { page } = app;
    let stopped = false;
    try {
      // The keychain lost the secret (a new keyring, a cleaned-up login): the sync says where to
      // give it again.
      await secrets.delete(`profile:${profile.id}`);
      // As after a restart: the access token signed in with before is gone too.
      core.sync.forget(profile.id);
      const failed = await core.sync.sync(profile.id);
      expect(failed.outcome).toBe('failed');
      expect(JSON.stringify(failed.errors)).toContain('Enter the API key again in Settings (New key…)');

      await page.keyboard.press('Control+6');
      const connection = page.getByRole('listitem', { name: 'Sandbox GmbH' });
      const newKey = connection.getByRole('button', { name: 'New key…' });
      await newKey.click();
      const form = connection.getByRole('form', { name: 'New key for Sandbox GmbH' });
      // The key id is offered as it is; the focus is in the form, and Esc closes it.
      expect(await form.getByLabel('API key id').inputValue()).toBe(sandbox.clientId);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.closest('form') !== null))
        .toBe(true);
      await page.keyboard.press('Escape');
      await form.waitFor({ state: 'detached' });
      await expect.poll(() => newKey.evaluate((button) => button === document.activeElement)).toBe(true);

      // A key the API refuses is said on the fields and changes nothing.
      await page.keyboard.press('Enter');
      await form.getByLabel('API key secret').fill('sk_not_the_secret');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByRole('alert').getByText('The API refused this key', { exact: false }).waitFor();
      expect(await form.getByLabel('API key secret').getAttribute('aria-invalid')).toBe('true');
      expect(await secrets.get(`profile:${profile.id}`)).toBeNull();

      await form.getByLabel('API key secret').fill(sandbox.clientSecret);
      await page.keyboard.press('Enter');
      await form.waitFor({ state: 'detached' });
      await connection.getByRole('status').getByText('New key saved', { exact: false }).waitFor();
      await expect.poll(() => newKey.evaluate((button) => button === document.activeElement)).toBe(true);
      expect(await secrets.get(`profile:${profile.id}`)).toBe(sandbox.clientSecret);
      expect(await page.content()).not.toContain(sandbox.clientSecret);
      expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
      expect(await connection.getByRole('status').textContent()).not.toContain('could not be checked');

      // With no answer (the server is down) the new key is kept, and Settings says it is unchecked.
      await sandbox.stop();
      stopped = true;
      await newKey.click();
      await form.getByLabel('API key secret').fill(sandbox.clientSecret);
      await page.keyboard.press('Enter');
      await form.waitFor({ state: 'detached' });
      await connection
        .getByRole('status')
        .getByText('Saved. It could not be checked now (no connection); the next sync will check it.')
        .waitFor();

      // So is a connection added with no answer.
      await page.getByRole('button', { name: 'Add an organisation…' }).click();
      await fillConnectForm(page, 'Later GmbH', sandbox);
      await page
        .getByRole('status')
        .getByText('Added. It could not be checked now (no connection); the first sync will check it.')
        .waitFor();
      await page.getByRole('listitem', { name: 'Later GmbH' }).waitFor();
    } finally {
      await app.close();
      await core.close();
      if (!stopped) await sandbox.stop();
      for (const account of await secrets.list()) await secrets.delete(account);
    }
  });
});

describe('removing an organisation', () => {
  it('says what only this computer has of it first, and removes nothing until it has said it', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 50 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const profile = await connectSandbox(core, sandbox);
    const cache = core.cacheOf(profile.id);
    const ids = cache.sqlite.prepare('SELECT id FROM bank_transactions LIMIT 2').pluck().all() as string[];
    const app = await openApp(core);
    const { page } = app;
    const prompt = page.getByRole('group', { name: 'Remove Sandbox GmbH' });
    const lost = prompt.getByTestId('removal-loses');
    const openPrompt = async () => {
      await page
        .getByRole('listitem', { name: 'Sandbox GmbH' })
        .getByRole('button', { name: 'Remove…' })
        .click();
      await prompt.getByRole('button', { name: 'Keep' }).waitFor();
    };
    try {
      // Nothing of its own yet: the question alone.
      await page.keyboard.press('Control+6');
      await openPrompt();
      await expect.poll(() => core.localWork(profile.id)).toEqual({ edits: 0, marks: 0 });
      expect(await lost.count()).toBe(0);
      await page.keyboard.press('Escape');
      await prompt.waitFor({ state: 'detached' });

      // Two transactions flagged and a supplier created offline, not sent yet: read afresh as
      // the prompt opens again.
      applyReview(cache, { by: 'ids', kind: 'transaction', ids }, { action: 'flag', reason: 'Ask' });
      core.outbox.createSupplier(profile.id, { name: 'Offline GmbH', code: 'OFF1' });
      await openPrompt();
      await lost
        .getByText(
          'Only this computer has its 1 unsent edit and 2 review marks; removing the organisation loses them. ' +
            'To keep them, send the edit (Suppliers, Dimensions) and export the marks (Needs attention) first.',
        )
        .waitFor();
      // It describes the Remove button, which has the focus.
      const remove = prompt.getByRole('button', { name: 'Remove', exact: true });
      const removeFocused = () => remove.evaluate((button) => button === document.activeElement);
      expect(await removeFocused()).toBe(true);
      expect(await remove.getAttribute('aria-describedby')).toBe(await lost.getAttribute('id'));
      await prompt.getByRole('button', { name: 'Keep' }).click();
      expect(core.profiles.list()).toHaveLength(1);
      const warning = lost.getByText(/^Only this computer has its 1 unsent edit and 2 review marks;/);

      // The count is on its way (a busy disk): Remove, focused, waits for it, so an Enter pressed
      // at once removes nothing before the warning shows.
      const held = await holdAnswers(page, 'profiles.localWork');
      await openPrompt();
      await expect.poll(() => held.waiting()).toBe(1);
      expect(await removeFocused()).toBe(true);
      await page.keyboard.press('Enter');
      await prompt.getByText('Checking what only this computer has of it…').waitFor();
      expect(await remove.getAttribute('aria-disabled')).toBe('true');
      await held.release();
      await warning.waitFor();
      expect(await remove.getAttribute('aria-disabled')).toBeNull();
      expect(core.profiles.list()).toHaveLength(1);
      await page.keyboard.press('Escape');
      await prompt.waitFor({ state: 'detached' });

      // The count cannot be read (the cache's marks out of reach): the prompt says so and Remove
      // stays inert until Try again reads it.
      cache.sqlite.exec('ALTER TABLE review_marks RENAME TO review_marks_away');
      await openPrompt();
      await prompt
        .getByRole('alert')
        .getByText(
          /^Could not check what only this computer has of Sandbox GmbH \(unsent edits, review marks\), so Remove waits: Satchel could not complete/,
        )
        .waitFor();
      expect(await removeFocused()).toBe(true);
      expect(await remove.getAttribute('aria-disabled')).toBe('true');
      await page.keyboard.press('Enter');
      expect(await lost.count()).toBe(0);
      cache.sqlite.exec('ALTER TABLE review_marks_away RENAME TO review_marks');
      await prompt.getByRole('button', { name: 'Try again' }).click();
      await warning.waitFor();
      expect(await prompt.getByRole('alert').count()).toBe(0);
      expect(await remove.getAttribute('aria-disabled')).toBeNull();
      expect(core.profiles.list()).toHaveLength(1);
      await prompt.getByRole('button', { name: 'Keep' }).click();
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
      for (const account of await secrets.list()) await secrets.delete(account);
    }
  });
});

describe('removing an organisation while its work changes', () => {
  it('counts again what only this computer has after edits are sent or marks change, Remove waiting', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 50 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const handlers = createHandlers(core);
    const profile = await connectSandbox(core, sandbox);
    const cache = core.cacheOf(profile.id);
    const ids = cache.sqlite.prepare('SELECT id FROM bank_transactions LIMIT 2').pluck().all() as string[];
    core.outbox.createSupplier(profile.id, { name: 'Offline GmbH', code: 'OFF1' });
    const app = await openApp(core);
    const { page } = app;
    const prompt = page.getByRole('group', { name: 'Remove Sandbox GmbH' });
    const lost = prompt.getByTestId('removal-loses');
    const remove = prompt.getByRole('button', { name: 'Remove', exact: true });
    try {
      await page.keyboard.press('Control+6');
      await page
        .getByRole('listitem', { name: 'Sandbox GmbH' })
        .getByRole('button', { name: 'Remove…' })
        .click();
      await lost.getByText(/^Only this computer has its 1 unsent edit; removing/).waitFor();
      expect(await remove.getAttribute('aria-disabled')).toBeNull();

      // The edit is sent while the prompt is open (a background sync's push, a reconnect): the
      // count is read again, and Remove waits for it, saying why, with the old count still shown.
      const held = await holdAnswers(page, 'profiles.localWork');
      expect((await core.outbox.push(profile.id)).sent).toBe(1);
      await expect.poll(() => held.waiting()).toBeGreaterThan(0);
      const checking = prompt.getByText('Checking again what only this computer has of it…');
      await checking.waitFor();
      expect(await remove.getAttribute('aria-disabled')).toBe('true');
      expect(await remove.getAttribute('aria-describedby')).toContain(await checking.getAttribute('id'));
      await remove.press('Enter');
      expect(core.profiles.list()).toHaveLength(1);
      await held.release();
      await lost.waitFor({ state: 'detached' });
      await checking.waitFor({ state: 'detached' });
      expect(await remove.getAttribute('aria-disabled')).toBeNull();

      // Marks set meanwhile (a review change of a search still running when Settings opened).
      expect(
        await dispatch(handlers, 'review.apply', {
          profileId: profile.id,
          target: { by: 'ids', kind: 'transaction', ids },
          change: { action: 'flag', reason: 'Ask' },
        }),
      ).toMatchObject({ ok: true, value: { changed: 2 } });
      await lost.getByText(/^Only this computer has its 2 review marks; removing/).waitFor();
      expect(await remove.getAttribute('aria-disabled')).toBeNull();
      await prompt.getByRole('button', { name: 'Keep' }).click();
      expect(core.profiles.list()).toHaveLength(1);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
      for (const account of await secrets.list()) await secrets.delete(account);
    }
  });
});

describe('switching organisations', () => {
  it("leaves the other organisation's running sync out of the status bar", async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const alpha = await startSandbox({ port: 0, seed: 3, transactions: 300, control: true });
    const beta = await startSandbox({ port: 0, seed: 9, transactions: 50 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const profileOf = async (name: string, sandbox: typeof beta) =>
      core.addProfile({
        name,
        baseUrl: sandbox.url,
        auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
      });
    const first = await profileOf('Alpha GmbH', alpha);
    await profileOf('Beta AG', beta);
    const app = await openApp(core);
    const { page } = app;
    try {
      const switcher = page.getByLabel('Organisation');
      await switcher.selectOption({ label: 'Alpha GmbH' });
      // Alpha's sync waits long for its bank transactions, the last resource, after the others
      // have reported progress: it is still running when Beta is chosen.
      alpha.control?.addFault({ match: '/v1/bank-transactions', latencyMs: 20_000 });
      const running = core.sync.sync(first.id, { full: true });
      await page.getByTestId('running-work').waitFor();
      await switcher.selectOption({ label: 'Beta AG' });
      await page.locator('[data-area] .area-head').getByText('Beta AG').waitFor();
      await expect.poll(() => page.getByTestId('running-work').count()).toBe(0);
      expect(core.sync.isRunning(first.id)).toBe(true);
      await core.sync.stop(first.id);
      await running;
    } finally {
      await app.close();
      await core.close();
      await alpha.stop();
      await beta.stop();
      for (const account of await secrets.list()) await secrets.delete(account);
    }
  });
});

describe('several organisations', () => {
  const long = 'Sandbox Group Holdings International GmbH';
  /** A core with three connections; nothing listens on port 9, so none gets an answer from its API. */
  async function withThree(run: (opened: { app: AppPage; page: Page; secrets: Secrets }) => Promise<void>) {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
    const core = createCore({ dataDir: tempDir(), secrets });
    for (const name of [long, 'Beta AG', 'Gamma KG'])
      await core.addProfile({
        name,
        baseUrl: 'http://127.0.0.1:9',
        auth: { kind: 'client', clientId: 'kid_e2e', clientSecret: 'sk_e2e_secret' },
      });
    const app = await openApp(core);
    try {
      await run({ app, page: app.page, secrets });
    } finally {
      await app.close();
      await core.close();
      for (const account of await secrets.list()) await secrets.delete(account);
    }
  }

  it('shows a long organisation name whole where the narrow sidebar cuts it short', () =>
    withThree(async ({ page }) => {
      await page.setViewportSize({ width: 800, height: 600 });
      const switcher = page.getByLabel('Organisation');
      await switcher.selectOption({ label: long });
      await page.locator('[data-area] .area-head').getByText(long).waitFor();
      // The select is narrower than the name; its tooltip and its chosen option hold all of it.
      expect((await switcher.boundingBox())?.width ?? Infinity).toBeLessThanOrEqual(160);
      expect(await switcher.getAttribute('title')).toBe(long);
      expect(await switcher.locator('option:checked').textContent()).toBe(long);
      // Still a plain select: the keyboard chooses, and the tooltip follows the choice.
      await switcher.focus();
      await page.keyboard.press('ArrowDown');
      await expect.poll(() => switcher.getAttribute('title')).not.toBe(long);
      const chosen = await switcher.locator('option:checked').textContent();
      expect(await switcher.getAttribute('title')).toBe(chosen);
      await page
        .locator('[data-area] .area-head')
        .getByText(chosen ?? '-', { exact: true })
        .waitFor();
    }));

  it('hands the focus on after a confirmed Remove: the next connection, else the one before, else Add', () =>
    withThree(async ({ page, secrets }) => {
      await page.keyboard.press('Control+6');
      const connections = page.locator('ul.connections > li');
      await expect.poll(() => connections.count()).toBe(3);
      const names = await connections.evaluateAll((items) =>
        items.map((item) => item.getAttribute('aria-label') ?? ''),
      );
      const focused = () =>
        page.evaluate(() => {
          const element = document.activeElement;
          return `${element?.closest('li')?.getAttribute('aria-label') ?? ''}|${element?.textContent ?? ''}`;
        });
      const remove = async (name: string) => {
        const row = page.getByRole('listitem', { name });
        await row.getByRole('button', { name: 'Remove…' }).click();
        const confirm = page
          .getByRole('group', { name: `Remove ${name}` })
          .getByRole('button', { name: 'Remove' });
        // Remove acts once what only this computer has of the organisation is counted.
        await confirm.and(page.locator(':not([aria-disabled])')).waitFor();
        await confirm.press('Enter');
        await row.waitFor({ state: 'detached' });
      };
      await remove(names[1]!);
      await expect.poll(focused).toBe(`${names[2]}|Remove…`);
      await remove(names[2]!);
      await expect.poll(focused).toBe(`${names[0]}|Remove…`);
      await remove(names[0]!);
      await page.getByText('None yet.').waitFor();
      await expect.poll(focused).toBe('|Add an organisation…');
      expect(await secrets.list()).toEqual([]);
    }));
});
