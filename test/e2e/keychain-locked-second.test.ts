import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createKeychainSecrets } from '../../src-main/secrets';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';
import { checkScreen } from './axe';
import { openApp, usePrivateKeyring } from './harness';

// Settings with one organisation's key in a second keyring that is locked while the default one
// is not (a real GNOME Keyring, test/helpers/keyring.ts): the words are beside that
// organisation, the keychain line says one key is locked, and both go once it is unlocked.

const tempDir = useTempDirs();
const session = usePrivateKeyring();

describe('Settings with a key in a second, locked keyring', () => {
  it('says so beside that organisation only, and stops saying it once unlocked', async () => {
    const secrets = createKeychainSecrets({ service: `Satchel-e2e-second-${randomUUID()}` });
    const sandbox = await startSandbox({ port: 0, seed: 8, transactions: 10 });
    const core = createCore({ dataDir: tempDir(), secrets });
    const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
    await core.addProfile({ name: 'Elsewhere GmbH', baseUrl: sandbox.url, auth });
    session.keyring.makeSessionDefault();
    await core.addProfile({ name: 'Default AG', baseUrl: sandbox.url, auth });
    session.keyring.lock();
    const app = await openApp(core);
    const { page } = app;
    page.setDefaultTimeout(20_000);
    try {
      await page.keyboard.press('Control+6');
      const status = page.getByTestId('keychain-status');
      await status
        .getByText('Keychain: available, but one organisation’s key is in a locked keyring, said below.')
        .waitFor();
      const elsewhere = page.getByRole('listitem', { name: 'Elsewhere GmbH' });
      await elsewhere
        .getByTestId('key-locked')
        .getByText(
          'Its key is in a locked keyring, so it cannot sync. Unlock that keyring in your ' +
            "system's keyring manager",
          { exact: false },
        )
        .waitFor();
      expect(await elsewhere.getByTestId('key-locked').textContent()).toContain(
        '(on Linux: the "Login" keyring in Passwords and Keys, or sign in to your desktop again)',
      );
      expect(await page.getByRole('listitem', { name: 'Default AG' }).getByTestId('key-locked').count()).toBe(
        0,
      );
      await checkScreen(app, 'settings with a key in a locked keyring');
      await app.screenshot('settings-key-locked');

      // Unlocked outside the app: Settings, which reads again every few seconds while a key is
      // locked, says so without being left and shown again.
      await session.keyring.unlock();
      await status.getByText(/^Keychain: available$/).waitFor();
      await expect.poll(() => page.getByTestId('key-locked').count()).toBe(0);
    } finally {
      await app.close();
      await core.close();
      if (session.keyring.locked()) await session.keyring.unlock();
      for (const account of await secrets.list()) await secrets.delete(account);
      await sandbox.stop();
    }
  });
});
