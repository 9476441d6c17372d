import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { startSandbox } from '../../src-sandbox';
import { checkScreen } from './axe';
import { openApp, useAppTests } from './harness';
import { connectSandbox } from './steps';

// The offline edits of suppliers as an accountant makes them in the app window, by keyboard:
// twice on one record, cancelled with Esc, pushed into a colleague's change and a number a
// colleague took meanwhile, and left unsent across a restart.
const { tempDir, secrets, connect } = useAppTests();

/** Where the keyboard focus is: a short description of the element. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element ? `${element.tagName} ${element.getAttribute('aria-label') ?? element.textContent}` : '';
  });

describe('offline supplier edits in the app', () => {
  it('edits twice, cancels, resolves a conflict, fixes a refusal, and keeps edits across a restart', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const control = sandbox.control!;
    const dataDir = tempDir();
    let core = createCore({ dataDir, secrets });
    const profile = await connectSandbox(core, sandbox);
    let app = await openApp(core);
    let page = app.page;
    page.setDefaultTimeout(20_000);
    // Suppliers a search by number finds alone (a number can be part of another's IBAN).
    const [a, b, c, d, e] = sandbox.state.suppliers.filter(
      (s) =>
        s.status === 'ACTIVE' &&
        sandbox.state.suppliers.filter((o) =>
          [o.name, o.number, o.vatIdNo ?? '', o.iban ?? ''].some((v) => v.includes(s.number)),
        ).length === 1,
    );
    if (!a || !b || !c || !d || !e) throw new Error('the demo data has too few suppliers');
    const server = (id: string) => sandbox.state.suppliers.find((s) => s.id === id)!;
    const ui = () => {
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const edits = page.getByTestId('edits');
      const waiting = page.getByTestId('pending-edits');
      /** Searches by number and leaves the focus on the grid with the one row found. */
      const find = async (text: string) => {
        await page.keyboard.press('/');
        await page.keyboard.press('Control+a');
        await page.keyboard.type(text);
        await expect
          .poll(() => grid.locator('tbody tr').allInnerTexts())
          .toEqual([expect.stringContaining(text)]);
        await grid.focus();
      };
      /** Enter opens the row's editor with the focus in Name; `fields` are typed in order. */
      const editRow = async (values: Array<string | null>) => {
        await page.keyboard.press('Enter');
        for (const [index, value] of values.entries()) {
          if (index > 0) await page.keyboard.press('Tab');
          if (value === null) continue;
          await page.keyboard.press('Control+a');
          if (value === '') await page.keyboard.press('Delete');
          else await page.keyboard.type(value);
        }
        await page.keyboard.press('Enter');
        await page.getByTestId('supplier-saved').waitFor();
      };
      return { grid, edits, waiting, find, editRow };
    };
    try {
      await page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
      await sandbox.setReachable(false); // offline: every connection refused
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      let { grid, edits, waiting, find, editRow } = ui();

      // The editor opens with every value the supplier has, the BIC and currency included.
      await find(a.number);
      await page.keyboard.press('Enter');
      const editorA = page.getByRole('form', { name: `Edit ${a.name}` });
      expect(a.bic).toBeTruthy();
      expect(await editorA.getByLabel('BIC').inputValue()).toBe(a.bic);
      expect(await editorA.getByLabel('Currency').inputValue()).toBe(a.currency);
      await page.keyboard.press('Escape');
      await editorA.waitFor({ state: 'detached' });

      // Twice on one supplier: the list shows the last value at once, marked as not sent.
      await editRow(['Alpha One']);
      await grid.locator('tbody tr').getByText('Alpha One').waitFor();
      await waiting.getByText('1 edit waiting').waitFor();
      // The second edit also clears the BIC (emptied, it is sent as null).
      await editRow(['Alpha Two', null, null, 'DE123456789', null, '']);
      const rowA = grid.locator('tbody tr').filter({ hasText: a.number });
      await rowA.getByText('Alpha Two').waitFor();
      await rowA.getByText('Not sent yet').waitFor();
      await rowA.getByText('DE123456789').waitFor();
      await waiting.getByText('2 edits waiting').waitFor();

      // Esc closes the editor without saving; the edits waiting stay.
      await page.keyboard.press('Enter');
      await page.keyboard.type(' typed by mistake');
      await page.keyboard.press('Escape');
      await page.getByRole('form', { name: 'Edit Alpha Two' }).waitFor({ state: 'detached' });
      expect(await focused(page)).toMatch(/^TABLE Suppliers/);
      await waiting.getByText('2 edits waiting').waitFor();
      await edits.getByText('Waiting to be sent (2)').waitFor();

      // B edited here, and renamed by a colleague meanwhile.
      await find(b.number);
      await editRow(['Bravo Mine']);
      const bName = b.name; // the sandbox's record changes in place
      control.updateSupplier(b.id, { name: 'Bravo Theirs' });
      await sandbox.setReachable(true);
      // The push shows how it comes on: the server holds the second PATCH for a while.
      control.addFault({ match: 'updateSupplier', skip: 1, times: 1, latencyMs: 8_000 });
      await edits.getByRole('button', { name: 'Send now' }).click();
      await page
        .getByTestId('push-progress')
        .getByText('Sending: 1 sent · 0 failed · 0 conflicts so far, 2 to go')
        .waitFor();
      await waiting.getByText('2 edits waiting').waitFor();
      expect(await edits.getByRole('button', { name: 'Sending…' }).isDisabled()).toBe(true);
      await page.getByTestId('push-result').getByText('2 sent · 0 failed · 1 conflict ·').waitFor();
      expect(server(a.id)).toMatchObject({ name: 'Alpha Two', vatIdNo: 'DE123456789', bic: null });
      await waiting.getByText('1 edit waiting, 1 needs you', { exact: true }).waitFor();
      // The row and the note of the save say it is in conflict, not that it waits to be sent.
      const rowB = grid.locator('tbody tr').filter({ hasText: b.number });
      await rowB.getByText('Conflict', { exact: true }).waitFor();
      expect(await rowB.getByText('Not sent yet').count()).toBe(0);
      await page
        .getByTestId('supplier-saved')
        .getByText('Bravo Mine was changed on the server too; choose below which version to keep.')
        .waitFor();
      // Both sides are shown without asking for them.
      const conflict = edits.getByRole('listitem', { name: 'Update supplier Bravo Mine' });
      await expect
        .poll(() =>
          conflict.getByRole('table', { name: "Yours and the server's" }).locator('tbody tr').allInnerTexts(),
        )
        .toEqual([`Name\t${bName}\tBravo Mine\tBravo Theirs`]);
      // The server's time in the user's locale and zone, as the app shows times elsewhere.
      const changedAt = server(b.id).updateTime;
      const shown = await page.evaluate(
        (iso) =>
          new Intl.DateTimeFormat(navigator.language, { dateStyle: 'medium', timeStyle: 'short' }).format(
            new Date(iso),
          ),
        changedAt,
      );
      await conflict.getByText(`Changed on the server at ${shown} after you edited it.`).waitFor();
      expect(await conflict.innerText()).not.toContain(changedAt);
      await checkScreen(app, 'offline-edits-conflict');
      // Theirs, by keyboard: the focus stays in the list of edits.
      await conflict.getByRole('button', { name: 'Keep mine' }).focus();
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('BUTTON Take theirs');
      await page.keyboard.press('Enter');
      await edits.getByText('Every edit has been sent.').waitFor();
      expect(await focused(page)).toMatch(/^H2 Waiting to be sent/);
      await grid.locator('tbody tr').getByText('Bravo Theirs').waitFor();
      expect(await grid.getByText('Not sent yet').count()).toBe(0);
      await waiting.getByText('No edits waiting').waitFor();

      // A number a colleague gave another supplier since the last sync: refused by the server.
      control.updateSupplier(c.id, { number: 'TAKEN-1' });
      await find(d.number);
      await editRow([null, 'TAKEN-1']);
      await edits.getByRole('button', { name: 'Send now' }).click();
      await page.getByTestId('push-result').getByText('0 sent · 1 failed').waitFor();
      const refused = edits.getByRole('listitem', { name: `Update supplier ${d.name}` });
      await refused.getByText('Supplier number: Another supplier already has code TAKEN-1.').waitFor();
      // The API's own code, quietly beside it, for the user to quote to support: selectable.
      const serverCode = refused.getByText('Server code: DUPLICATE_CODE', { exact: true });
      await serverCode.waitFor();
      expect(await serverCode.evaluate((element) => getComputedStyle(element).userSelect)).not.toBe('none');
      await waiting.getByText('1 edit waiting, 1 needs you', { exact: true }).waitFor();
      // The cache shows D with the number it was given here.
      await find('TAKEN-1');
      const rowD = grid.locator('tbody tr').filter({ hasText: 'TAKEN-1' });
      await rowD.getByText('Failed', { exact: true }).waitFor();
      expect(await rowD.getByText('Not sent yet').count()).toBe(0);
      await page
        .getByTestId('supplier-saved')
        .getByText(`The server refused the change to ${d.name}: Another supplier already has code TAKEN-1.`)
        .waitFor();
      // Edit… and Esc: the form closes, the edit stays as it was.
      await refused.getByRole('button', { name: 'Edit…' }).focus();
      await page.keyboard.press('Enter');
      const queued = refused.getByRole('form', { name: `Change the queued edit of ${d.name}` });
      await queued.getByLabel('Supplier number').waitFor();
      // The form opens with the field the server refused marked, and its reason beside it.
      expect(await queued.getByLabel('Supplier number').getAttribute('aria-invalid')).toBe('true');
      await queued.getByText('Another supplier already has code TAKEN-1.').waitFor();
      await page.keyboard.type('-typo');
      await page.keyboard.press('Escape');
      await queued.waitFor({ state: 'detached' });
      expect(await focused(page)).toMatch(new RegExp(`^LI Update supplier ${d.name}`));
      await refused.getByText('Supplier number TAKEN-1').waitFor();
      // Fixed and sent.
      await refused.getByRole('button', { name: 'Edit…' }).click();
      await page.keyboard.press('Control+a');
      await page.keyboard.type('FREE-1');
      await page.keyboard.press('Enter');
      await refused.getByText('Pending').waitFor();
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor();
      expect(server(d.id).number).toBe('FREE-1');
      // Sent: the note of the save is gone, and so is the row's badge.
      await page.getByTestId('supplier-saved').waitFor({ state: 'detached' });
      await find('FREE-1');
      expect(await grid.locator('tbody tr').locator('.badge').count()).toBe(0);

      // Offline again, an edit left unsent when the app closes.
      await sandbox.setReachable(false);
      await find(e.number);
      await editRow(['Echo Unsent']);
      await app.close();
      await core.close();
      core = createCore({ dataDir, secrets });
      app = await openApp(core);
      page = app.page;
      page.setDefaultTimeout(20_000);
      ({ grid, edits, waiting, find, editRow } = ui());
      await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
      await waiting.getByText('1 edit waiting').waitFor();
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await find(e.number);
      await grid.locator('tbody tr').getByText('Not sent yet').waitFor();
      await edits.getByRole('listitem', { name: 'Update supplier Echo Unsent' }).waitFor();
      await sandbox.setReachable(true);
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor();
      expect(server(e.id).name).toBe('Echo Unsent');
      await waiting.getByText('No edits waiting').waitFor();
      expect(core.outbox.list(profile.id)).toEqual([]);
    } finally {
      await app.close();
      await core.close();
      await sandbox.stop();
    }
  }, 180_000);

  it('sends a long queue at the pace of the write limit, and stops it with Cancel by keyboard', async () => {
    // Three writes a minute: the fourth waits for the next window, and the push can be seen.
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true, writeLimit: 3 });
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    const queued = 200;
    for (let i = 1; i <= queued; i += 1)
      core.outbox.createSupplier(profile.id, { name: `Queued ${i} GmbH`, code: `Q-${i}` });
    const app = await open();
    const { page } = app;
    const created = () => sandbox.state.suppliers.filter((s) => s.name.startsWith('Queued ')).length;
    try {
      await page.getByTestId('pending-edits').getByText(`${queued} edits waiting`).waitFor();
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const edits = page.getByTestId('edits');
      await edits.getByText(`Waiting to be sent (${queued})`).waitFor();
      await edits.getByRole('button', { name: 'Send now' }).focus();
      await page.keyboard.press('Enter');
      await page
        .getByTestId('push-progress')
        .getByText(`Sending: 3 sent · 0 failed · 0 conflicts so far, ${queued - 3} to go`)
        .waitFor();
      // The push waits for the write bucket; Cancel holds the focus meanwhile.
      await expect.poll(() => focused(page)).toBe('BUTTON Cancel');
      await page.keyboard.press('Enter');
      await page
        .getByTestId('push-result')
        .getByText(
          `3 sent · 0 failed · 0 conflicts · ${queued - 3} waiting — Sending offline edits was cancelled.`,
        )
        .waitFor();
      expect(await edits.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
      await expect.poll(() => focused(page)).toBe('BUTTON Send now');
      await edits.getByText(`Waiting to be sent (${queued - 3})`).waitFor();
      // The edit the cancel stopped says it was not sent, and that no one needs to do anything.
      await edits
        .getByRole('listitem', { name: 'Create supplier Queued 4 GmbH' })
        .getByText(
          'Not sent: Sending offline edits was cancelled. It will be sent with the next Send now or sync.',
          { exact: true },
        )
        .waitFor();
      await page
        .getByTestId('pending-edits')
        .getByText(`${queued - 3} edits waiting`)
        .waitFor();
      expect(created()).toBe(3);
      // The edits left wait as they were: none is "maybe sent", none needs the user.
      expect(new Set(core.outbox.list(profile.id).map((item) => item.status))).toEqual(new Set(['pending']));
    } finally {
      await app.close();
    }
  }, 120_000);

  it('shows the record before the edit, yours and the server now, and a deletion the edit leaves out', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const control = sandbox.control!;
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    const supplier = sandbox.state.suppliers.find((s) => s.status === 'ACTIVE')!;
    const name = supplier.name; // the sandbox's record changes in place
    // Renamed here while a colleague renames it and deletes it on the server.
    core.outbox.updateSupplier(profile.id, supplier.id, { name: 'Renamed Here' });
    control.updateSupplier(supplier.id, { name: 'Renamed There', status: 'DELETED' });
    expect(await core.outbox.push(profile.id)).toMatchObject({ conflicts: 1 });
    const app = await open();
    const { page } = app;
    try {
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const conflict = page
        .getByTestId('edits')
        .getByRole('listitem', { name: 'Update supplier Renamed Here' });
      const sides = conflict.getByRole('table', { name: "Yours and the server's" });
      expect(await sides.locator('thead th').allInnerTexts()).toEqual([
        'Field',
        'Before',
        'Yours',
        'On the server now',
      ]);
      const cells = (row: number) => sides.locator('tbody tr').nth(row).locator('th, td').allInnerTexts();
      await expect.poll(() => sides.locator('tbody tr').count()).toBe(2);
      expect(await cells(0)).toEqual(['Name', name, 'Renamed Here', 'Renamed There']);
      // The deletion is shown although the edit does not change the status: Keep mine would
      // otherwise rename a deleted supplier unseen.
      expect(await cells(1)).toEqual(['Status', 'Active', 'Not in your edit', 'Deleted']);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('counts the open edits of Suppliers and Dimensions in the sidebar, and follows each push', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const control = sandbox.control!;
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    const [a, b, c] = sandbox.state.suppliers.filter((s) => s.status === 'ACTIVE');
    const project = sandbox.state.dimensions.find((d) => d.name === 'Project')!;
    if (!a || !b || !c) throw new Error('the demo data has too few suppliers');
    core.outbox.updateSupplier(profile.id, a.id, { name: 'Counted Alpha' });
    // A number a colleague gives another supplier meanwhile: the server refuses this one.
    core.outbox.updateSupplier(profile.id, b.id, { code: 'COUNTED-1' });
    control.updateSupplier(c.id, { number: 'COUNTED-1' });
    core.outbox.updateDimension(profile.id, project.id, { name: 'Projects' });
    const app = await open();
    const { page } = app;
    const nav = page.getByRole('navigation', { name: 'Areas' });
    const entry = (name: string) => nav.getByRole('button', { name, exact: true });
    try {
      await entry('Suppliers 2 edits waiting').waitFor();
      await entry('Dimensions 1 edit waiting').waitFor();
      // The number is shown; the rest of the words are for screen readers.
      const badge = entry('Suppliers 2 edits waiting').getByTestId('nav-edits');
      expect(await badge.evaluate((element) => element.firstChild?.textContent)).toBe('2');
      // Areas without edits have no count.
      await entry('Transactions').waitFor();
      await page.keyboard.press('Control+8');
      await page.getByRole('heading', { level: 1, name: 'Dimensions' }).waitFor();
      await page.getByTestId('edits').getByRole('button', { name: 'Send now' }).click();
      await page.getByTestId('push-result').getByText('2 sent · 1 failed').waitFor();
      // The push's events bring the counts down: one refused edit left, which needs the user.
      await entry('Suppliers 1 edit waiting, 1 needs you').waitFor();
      await entry('Dimensions').waitFor();
      expect(await nav.getByTestId('nav-edits').count()).toBe(1);
      await checkScreen(app, 'offline-edits-sidebar-counts');
      // Credentials the server now refuses stop the next push on a new edit: it waits on the
      // user too, and the sidebar and the status bar count it alike.
      core.outbox.updateDimension(profile.id, project.id, { name: 'Projects Again' });
      control.replaceClientSecret('sk_replaced');
      await page.getByTestId('edits').getByRole('button', { name: 'Send now' }).click();
      await entry('Dimensions 1 edit waiting, 1 needs you').waitFor();
      await page
        .getByTestId('pending-edits')
        .getByText('2 edits waiting, 2 need you', { exact: true })
        .waitFor();
    } finally {
      await app.close();
    }
  }, 120_000);
});
