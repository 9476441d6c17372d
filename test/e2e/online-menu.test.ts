import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { useTempDirs } from '../helpers/temp-dir';
import { closeBrowser, openApp } from './harness';

// What the shell tells the page: the online state (status bar) and the native menu's Go items.
const tempDir = useTempDirs();
afterAll(closeBrowser);

describe('online state and menu in the page', () => {
  it('shows offline and why, clears it when back, and goes where the menu says', async () => {
    const core = createCore({ dataDir: path.join(tempDir(), 'data') });
    const app = await openApp(core);
    const { page } = app;
    await page.getByTestId('app-version').getByText('Satchel').waitFor();

    core.connectivity.setNetwork(false);
    await page.getByTestId('offline').getByText('Offline: no network', { exact: false }).waitFor();
    await app.screenshot('status-offline');
    core.connectivity.setNetwork(true);
    await page.getByTestId('offline').waitFor({ state: 'detached' });

    core.events.emit('app.menu', { action: 'go.settings' });
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    core.events.emit('app.menu', { action: 'go.sync' });
    await page
      .getByRole('navigation', { name: 'Areas' })
      .locator('[aria-current="page"]')
      .getByText('Sync')
      .waitFor();
    await app.close();
    await core.close();
  });
});
