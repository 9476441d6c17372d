import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { openApp, usePrivateKeyring } from './harness';

// The window started while the login keyring is locked, against a real GNOME Keyring the test
// locks and unlocks (test/helpers/keyring.ts): the organisation is read and reviewed offline,
// Send now and Sync now say the keychain is locked and what to do (not "offline", not "enter
// the key again"), the waiting edit stays, and once the keyring is unlocked Sync now works in
// the same window with no key asked for.

const tempDir = useTempDirs();
const session = usePrivateKeyring();

describe('a locked keyring in the window', () => {
  it('reads and reviews offline, says the keychain is locked, and syncs once it is unlocked', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-locked-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 6, transactions: 60 });
    const dataDir = tempDir();
    const first = createCore({ dataDir, secrets });
    const profile = await first.addProfile({
      name: 'Locked GmbH',
      baseUrl: sandbox.url,
      auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    });
    expect((await first.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
    await first.close();

    session.keyring.lock();
    const core = createCore({ dataDir, secrets });
    const supplier = sandbox.state.suppliers[2]!;
    // An edit made while locked waits in the outbox.
    expect(
      await dispatch(createHandlers(core), 'suppliers.update', {
        profileId: profile.id,
        id: supplier.id,
        input: { name: 'Kept while locked AG' },
      }),
    ).toMatchObject({ ok: true });
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      const grid = page.getByRole('grid', { name: 'Transactions' });
      await grid.getByRole('row').nth(1).waitFor();
      await grid.focus();
      await page.keyboard.press(' ');
      await grid.getByText('✓ Reviewed').waitFor();

      // Send now: the edit says why it waits, and that it is the user's to lift.
      await page.keyboard.press('Control+3');
      const edits = page.getByTestId('edits');
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits
        .getByTestId('push-result')
        .getByText('The system keychain is locked', { exact: false })
        .waitFor();
      await edits
        .getByTestId('edit-stopped')
        .getByText('Not sent: The system keychain is locked', { exact: false })
        .waitFor();
      await page.getByTestId('pending-edits').getByText('needs you', { exact: false }).waitFor();

      await page.keyboard.press('Control+5');
      await page.getByRole('heading', { level: 1, name: 'Sync' }).waitFor();
      await page.getByRole('button', { name: 'Sync now' }).click();
      const failure = page.getByTestId('sync-failure');
      await failure.getByText('The system keychain is locked', { exact: false }).waitFor();
      await failure.getByText('Unlock it', { exact: false }).waitFor();
      // Not the network, not a lost key.
      await expect.poll(() => page.getByTestId('offline').count()).toBe(0);
      expect(await page.getByText(/Offline:|does not answer|no network/).count()).toBe(0);
      expect(await page.getByText('no credentials', { exact: false }).count()).toBe(0);
      await checkScreen(app, 'sync with the keychain locked');
      await app.screenshot('keychain-locked-sync');

      await page.keyboard.press('Control+6');
      await page.getByTestId('keychain-status').getByText('keychain is locked', { exact: false }).waitFor();

      // Unlocked (the user signs in again): the same window, the same core, no key entered.
      await session.keyring.unlock();
      await page.keyboard.press('Control+5');
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByTestId('sync-last').getByText('succeeded', { exact: false }).waitFor();
      await expect.poll(() => page.getByTestId('sync-failure').count()).toBe(0);
      expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Kept while locked AG');
      await page.keyboard.press('Control+6');
      await page.getByTestId('keychain-status').getByText('Keychain: available').waitFor();
    } finally {
      await app.close();
      await core.close();
      if (session.keyring.locked()) await session.keyring.unlock();
      for (const account of await secrets.list()) await secrets.delete(account);
      await sandbox.stop();
    }
  });
});
