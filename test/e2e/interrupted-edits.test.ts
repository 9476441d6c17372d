import { hostname } from 'node:os';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { checkScreen } from './axe';
import { useAppTests } from './harness';

// Edits a push left on their way when its process was killed: the window says they were
// interrupted (not "sending"), lets the accountant change the update and sync the rest at once,
// by keyboard.
const { connect } = useAppTests();

/** Where the keyboard focus is: a short description of the element. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element ? `${element.tagName} ${element.getAttribute('aria-label') ?? element.textContent}` : '';
  });

describe('interrupted edits in the app', () => {
  it('shows them as interrupted, changes the update, and settles both with Sync now', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const control = sandbox.control!;
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    const organisation = core.profiles.get(profile.id).name; // "Sandbox GmbH"
    const supplier = sandbox.state.suppliers.find((s) => s.status === 'ACTIVE')!;
    const update = core.outbox.updateSupplier(profile.id, supplier.id, { name: 'Halted Here' });
    const create = core.outbox.createSupplier(profile.id, { name: 'Halted New', code: 'HALT-1' });
    const project = sandbox.state.dimensions.find((d) => d.name === 'Project');
    if (!project) throw new Error('the demo data has no Project dimension');
    const renamed = core.outbox.updateDimension(profile.id, project.id, { name: 'Halted Projects' });
    // Both left on their way by a push whose process is gone (a process id no process has).
    const claim = JSON.stringify({ id: 'killed', pid: 2 ** 22 + 17, host: hostname() });
    for (const { operationId } of [update, create, renamed])
      core
        .cacheOf(profile.id)
        .sqlite.prepare(
          `UPDATE outbox SET status = 'sending', attempts = 1, sent_at = ?, claimed_by = ? WHERE operation_id = ?`,
        )
        .run(new Date().toISOString(), claim, operationId);
    const app = await open();
    const { page } = app;
    try {
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const edits = page.getByTestId('edits');
      const changed = edits.getByRole('listitem', { name: 'Update supplier Halted Here' });
      const created = edits.getByRole('listitem', { name: 'Create supplier Halted New' });
      await changed.getByText('Interrupted', { exact: true }).waitFor();
      await created.getByText('Interrupted', { exact: true }).waitFor();
      // Named as the connection is, in the words the core refuses Edit… of the create with.
      expect(await changed.getByTestId('edit-stopped').innerText()).toBe(
        `Maybe sent: Satchel does not know yet whether this change reached ${organisation}: sending it was interrupted. Satchel stopped before ${organisation} answered. The next Send now or sync reads the record on ${organisation} first and sends the change only if it is not there yet; Edit… sends a new value instead.`,
      );
      const createdText = await created.getByTestId('edit-stopped').innerText();
      const unknown = `Satchel does not know yet whether this new supplier reached ${organisation}: sending it was interrupted.`;
      expect(createdText).toContain(
        `Maybe sent: ${unknown} Satchel stopped before ${organisation} answered.`,
      );
      expect(createdText).toContain('To change the edit, sync first.');
      // The core refuses Edit… of the create in the same words.
      expect(() => core.outbox.edit(profile.id, create.operationId, { name: 'x' })).toThrow(unknown);
      // The create cannot be changed until a sync finds out whether it made the supplier.
      expect(await created.getByRole('button').allInnerTexts()).toEqual(['Sync now', 'Discard']);
      expect(await changed.getByRole('button').allInnerTexts()).toEqual(['Sync now', 'Edit…', 'Discard']);
      await checkScreen(app, 'interrupted-edits');
      // The supplier's row in the list above says so too, not "Not sent yet".
      await page.getByRole('searchbox', { name: 'Search', exact: true }).fill('Halted Here');
      const supplierRow = page
        .getByRole('grid', { name: 'Suppliers' })
        .getByRole('row', { name: /Halted Here/ });
      await supplierRow.getByText('Interrupted', { exact: true }).waitFor();

      // Dimensions: the dimension's row and its edit say it was interrupted, as Suppliers do.
      await page.keyboard.press('Control+8');
      await page.getByRole('heading', { level: 1, name: 'Dimensions' }).waitFor();
      const dimensionRow = page
        .getByRole('grid', { name: 'Dimensions' })
        .getByRole('row', { name: /Halted Projects/ });
      await dimensionRow.getByText('Interrupted', { exact: true }).waitFor();
      expect(await dimensionRow.getByText('Not sent yet').count()).toBe(0);
      const dimensionEdit = page
        .getByTestId('edits')
        .getByRole('listitem', { name: 'Update dimension Halted Projects' });
      await dimensionEdit.getByText('Interrupted', { exact: true }).waitFor();
      expect(await dimensionEdit.getByTestId('edit-stopped').innerText()).toContain(
        `Satchel does not know yet whether this change reached ${organisation}`,
      );
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();

      // By keyboard: from the update, past Sync now to Edit…, a new name, saved.
      await changed.focus();
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('BUTTON Sync now');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('BUTTON Edit…');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Control+a');
      await page.keyboard.type('Halted Again');
      await page.keyboard.press('Enter');
      const pending = edits.getByRole('listitem', { name: 'Update supplier Halted Again' });
      await pending.getByText('Pending', { exact: true }).waitFor();
      expect(await pending.getByTestId('edit-stopped').count()).toBe(0);

      // Sync now on the create: the sync pushes both, and the list's heading takes the focus.
      control.clearRequests();
      await created.focus();
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('BUTTON Sync now');
      await page.keyboard.press('Enter');
      await edits.getByText('Every edit has been sent.').waitFor();
      await expect.poll(() => focused(page)).toBe('H2 Waiting to be sent (0)');
      expect(sandbox.state.suppliers.filter((s) => s.number === 'HALT-1').map((s) => s.name)).toEqual([
        'Halted New',
      ]);
      expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Halted Again');
      expect(control.requests('updateSupplier')).toHaveLength(1);
    } finally {
      await app.close();
    }
  }, 120_000);
});
