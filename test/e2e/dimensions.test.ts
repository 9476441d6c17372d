import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { sandboxToken } from '../helpers/sandbox-token';
import { checkScreen } from './axe';
import { useAppTests } from './harness';

// The Dimensions area against a synced sandbox: browsing and searching items, creating and
// changing dimensions and items offline with their mistakes shown on the field, changing an
// edit before it is sent, and a conflict with a colleague's change merged field by field.
const { connect, openConnected } = useAppTests();
/** The items "Booked on" lists at most (CHOICES in BookedOnFilter.tsx). */
const LISTED = 500;

async function setUp(prepare?: (sandbox: Awaited<ReturnType<typeof startSandbox>>) => void) {
  const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 200, control: true });
  prepare?.(sandbox);
  const app = await openConnected({ sandbox, timeout: 20_000 });
  await app.page.keyboard.press('Control+8');
  await app.page.getByRole('heading', { level: 1, name: 'Dimensions' }).waitFor();
  const { core, profile, page, close } = app;
  return { sandbox, core, profile, app, page, close };
}

describe('dimensions', () => {
  it('browses, searches, creates and changes dimensions and items offline, then sends them', async () => {
    const { sandbox, core, profile, app, page, close } = await setUp();
    try {
      const state = sandbox.state;
      const project = state.dimensions.find((d) => d.name === 'Project');
      if (!project) throw new Error('the demo data has no Project dimension');
      const projectItems = state.items.filter((i) => i.dimensionId === project.id && i.status !== 'DELETED');

      const dimensions = page.getByRole('grid', { name: 'Dimensions' });
      const rows = dimensions.locator('tbody tr');
      // Deleted dimensions are left out until asked for; system ones cannot be edited.
      await expect
        .poll(() => rows.allInnerTexts())
        .toEqual([
          expect.stringMatching(/^Cost carrier\s+System\s+KOST2\s+Active\s+\d+/),
          expect.stringMatching(/^Cost center\s+System\s+KOST1\s+Active\s+\d+/),
          expect.stringMatching(/^Project\s+PROJ\s+Active\s+\d+\s+Edit/),
          expect.stringMatching(/^Region\s+REG\s+Inactive\s+\d+\s+Edit/),
        ]);
      expect(await dimensions.getByRole('button', { name: 'Edit Cost center' }).count()).toBe(0);
      await page.getByLabel('Show deleted').check();
      await rows.filter({ hasText: 'Legacy division' }).waitFor();
      await page.getByLabel('Show deleted').uncheck();
      await expect.poll(() => rows.count()).toBe(4);

      // Keyboard: the highlighted dimension's items are shown.
      await dimensions.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      const items = page.getByRole('grid', { name: 'Items of Project' });
      await expect.poll(() => items.locator('tbody tr').count()).toBe(projectItems.length);
      // The count names the dimension as it is written.
      await page
        .getByRole('navigation', { name: 'Items of Project pages' })
        .getByText(`Page 1 of 1 · ${projectItems.length} items of Project`, { exact: true })
        .waitFor();
      await checkScreen(app, 'dimensions');

      // Search by code, then by part of a name, case-insensitively.
      const target = projectItems[0]!;
      await page.getByLabel('Search items').fill(target.code.toLowerCase());
      await expect
        .poll(() => items.locator('tbody tr').allInnerTexts())
        .toEqual([expect.stringContaining(target.name)]);
      await page.getByLabel('Search items').fill('');
      await expect.poll(() => items.locator('tbody tr').count()).toBe(projectItems.length);

      // A new item: the missing code, then a code another item has, each on the Code field.
      await page.getByRole('button', { name: 'New item' }).click();
      const editor = page.getByRole('form', { name: 'New item in Project' });
      await editor.getByLabel('Name').fill('Audit Müller 2026');
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => editor.getByLabel('Code').getAttribute('aria-invalid')).toBe('true');
      await editor.getByLabel('Code').fill(target.code);
      await editor.getByRole('button', { name: 'Save' }).click();
      await editor.getByText(`Another item of this dimension already has the code ${target.code}.`).waitFor();
      expect(await editor.getByLabel('Code').getAttribute('aria-invalid')).toBe('true');
      await editor.getByLabel('Code').fill('PROJ-AUDIT');
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('dimension-saved').getByText('Created Audit Müller 2026 in Project').waitFor();
      await items
        .locator('tbody tr')
        .filter({ hasText: 'Audit Müller 2026' })
        .getByText('Not sent yet')
        .waitFor();

      // Changing the queued create before it is sent.
      const edits = page.getByTestId('edits');
      const queued = edits.getByRole('listitem', { name: 'Create dimension item Audit Müller 2026' });
      await queued.getByRole('button', { name: 'Edit…' }).click();
      const change = queued.getByRole('form', { name: 'Change the queued edit of Audit Müller 2026' });
      await change.getByLabel('Name').fill('Audit Müller 2027');
      await change.getByRole('button', { name: 'Save' }).click();
      await edits.getByRole('listitem', { name: 'Create dimension item Audit Müller 2027' }).waitFor();

      // A new dimension is highlighted at once, with its empty list of items.
      await page.getByRole('button', { name: 'New dimension' }).click();
      const newDimension = page.getByRole('form', { name: 'New dimension' });
      await newDimension.getByLabel('Name').fill('Client engagements');
      await newDimension.getByLabel('Code').fill('ENG');
      await newDimension.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Client engagements has no items yet.').waitFor();
      await page.getByRole('button', { name: 'New item' }).click();
      const engagement = page.getByRole('form', { name: 'New item in Client engagements' });
      await engagement.getByLabel('Name').fill('Nordlicht annual audit');
      await engagement.getByLabel('Code').fill('ENG-001');
      await page.keyboard.press('Enter');
      await page
        .getByRole('grid', { name: 'Items of Client engagements' })
        .getByText('Nordlicht annual audit')
        .waitFor();

      // Esc closes an editor and returns to its list.
      await page.getByRole('grid', { name: 'Dimensions' }).focus();
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown'); // Project: Client engagements sorts first
      await page.keyboard.press('Enter');
      const edit = page.getByRole('form', { name: 'Edit Project' });
      await edit.getByLabel('Name').waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => edit.count()).toBe(0);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Dimensions');
      await checkScreen(app, 'dimensions-pending');

      // A queued update shows only what it changes: changing it cannot add a change (here,
      // Region is inactive; a form with every field would send it back as active).
      await page
        .getByRole('grid', { name: 'Dimensions' })
        .getByRole('button', { name: 'Edit Region' })
        .click();
      const region = page.getByRole('form', { name: 'Edit Region' });
      await region.getByLabel('Name').fill('Regions');
      await region.getByRole('button', { name: 'Save' }).click();
      const queuedRegion = edits.getByRole('listitem', { name: 'Update dimension Regions' });
      await queuedRegion.getByRole('button', { name: 'Edit…' }).click();
      const changeRegion = queuedRegion.getByRole('form', { name: 'Change the queued edit of Regions' });
      expect(await changeRegion.getByRole('textbox').count()).toBe(1);
      expect(await changeRegion.getByLabel('Status').count()).toBe(0);
      await changeRegion.getByLabel('Name').fill('Sales regions');
      await changeRegion.getByRole('button', { name: 'Save' }).click();
      await edits.getByRole('listitem', { name: 'Update dimension Sales regions' }).waitFor();

      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor({ timeout: 60_000 });
      expect(core.outbox.list(profile.id)).toEqual([]);
      expect(state.dimensions.find((d) => d.code === 'REG')).toMatchObject({
        name: 'Sales regions',
        status: 'INACTIVE',
      });
      const engagements = state.dimensions.filter((d) => d.code === 'ENG');
      expect(engagements).toEqual([
        expect.objectContaining({ name: 'Client engagements', status: 'ACTIVE' }),
      ]);
      expect(state.items.filter((i) => i.code === 'ENG-001')).toEqual([
        expect.objectContaining({ dimensionId: engagements[0]!.id, name: 'Nordlicht annual audit' }),
      ]);
      expect(state.items.filter((i) => i.code === 'PROJ-AUDIT')).toEqual([
        expect.objectContaining({ dimensionId: project.id, name: 'Audit Müller 2027' }),
      ]);
      await dimensions.locator('tbody tr').filter({ hasText: 'PROJ' }).click();
      await items.getByText('Audit Müller 2027').waitFor();
      expect(await dimensions.getByText('Not sent yet').count()).toBe(0);
      expect(await items.getByText('Not sent yet').count()).toBe(0);
    } finally {
      await close();
    }
  }, 180_000);

  it("opens an item's expenses, shows where each line is booked, and filters by it", async () => {
    const { sandbox, page, app, close } = await setUp();
    try {
      const { expenses, items } = sandbox.state;
      const costCenter = '00000000-0000-0000-0000-000000000001';
      const booked = (itemId: string) =>
        expenses.filter((e) =>
          e.lines.some((l) =>
            l.dimensions.some((d) => d.dimensionId === costCenter && d.dimensionItemId === itemId),
          ),
        );
      const item = items
        .filter((i) => i.dimensionId === costCenter && i.status === 'ACTIVE')
        .sort((a, b) => booked(b.id).length - booked(a.id).length)[0]!;
      const expected = booked(item.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(expenses.length);

      // Cost center is the second dimension; its item's expenses open with "e".
      await page.getByRole('grid', { name: 'Dimensions' }).focus();
      await page.keyboard.press('ArrowDown');
      const costCenterItems = page.getByRole('grid', { name: 'Items of Cost center' });
      await costCenterItems.locator('tbody tr').filter({ hasText: item.name }).click();
      await costCenterItems.focus();
      await page.keyboard.press('e');
      await page.getByRole('heading', { level: 1, name: 'Expenses' }).waitFor();
      const pager = page.getByRole('navigation', { name: 'Expenses pages' });
      await pager.getByText(`${expected.length} expenses`).waitFor();
      const bookedOn = page.getByLabel('Booked on');
      expect(
        await bookedOn.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent),
      ).toBe(item.name);

      // The detail names where each line is booked.
      const grid = page.getByRole('grid', { name: 'Expenses' });
      await grid.focus();
      await page.keyboard.press('Enter');
      const pane = page.getByTestId('expense-pane');
      await pane.getByText(`Cost center: ${item.name}`).first().waitFor();
      await checkScreen(app, 'expenses-booked-on');

      // Any item again: every expense.
      await bookedOn.selectOption({ label: 'Any account, cost center, project, …' });
      await pager.getByText(`${expenses.length} expenses`).waitFor();
      await bookedOn.selectOption({ label: item.name });
      await pager.getByText(`${expected.length} expenses`).waitFor();

      // Or an expense account, listed by number in the same choice.
      const account = sandbox.state.reference.expenseAccounts.find((candidate) =>
        expenses.some((e) => e.lines.some((l) => l.expenseAccountId === candidate.id)),
      )!;
      const onAccount = expenses.filter((e) => e.lines.some((l) => l.expenseAccountId === account.id));
      await bookedOn.selectOption({ label: `${account.number} ${account.name}` });
      await pager.getByText(`${onAccount.length} expenses`).waitFor();
      await grid.focus();
      await page.keyboard.press('Enter');
      await pane.getByText(`Account ${account.number} ${account.name}`).first().waitFor();
    } finally {
      await close();
    }
  }, 180_000);

  it('finds an item beyond the ones "Booked on" lists, from the keyboard', async () => {
    const extra = LISTED + 100;
    let last: { id: string; name: string; dimensionId: string } | undefined;
    const { sandbox, page, app, close } = await setUp((server) => {
      // A project dimension with more items than the filter lists, the last one booked on
      // one expense's line.
      const { dimensions, items, expenses } = server.state;
      const project = dimensions.find((d) => d.name === 'Project')!;
      const stamp = items[0]!.createTime;
      for (let k = 1; k <= extra; k += 1) {
        const id = `00000000-0000-4000-8000-${String(900_000_000_000 + k)}`;
        const name = `Site works ${String(k).padStart(4, '0')}`;
        items.push({
          id,
          dimensionId: project.id,
          name,
          code: `SW-${k}`,
          status: 'ACTIVE',
          createTime: stamp,
          updateTime: stamp,
          deleteTime: null,
        });
        last = { id, name, dimensionId: project.id };
      }
      const expense = expenses.find((e) => e.lines.length > 0)!;
      expense.lines[0]!.dimensions = [
        ...expense.lines[0]!.dimensions,
        { dimensionId: project.id, dimensionItemId: last!.id },
      ];
    });
    try {
      expect(sandbox.state.items.length).toBeGreaterThan(LISTED);
      await page.keyboard.press('Control+2');
      const grid = page.getByRole('grid', { name: 'Expenses' });
      await grid.locator('tbody tr').first().waitFor();
      const bookedOn = page.getByLabel('Booked on', { exact: true });
      const find = page.getByRole('searchbox', { name: 'Find in Booked on' });
      const found = page.locator(`#${await bookedOn.getAttribute('aria-describedby')}`);
      await found.getByText(/^500 of [\d,]+ items listed: type to find the others$/).waitFor();
      // The last item is not among those listed.
      expect(await bookedOn.locator('option', { hasText: last!.name }).count()).toBe(0);

      // Typed into the box, found, then chosen in the list with the keyboard.
      await find.focus();
      await page.keyboard.type(last!.name.slice(-9));
      await found.getByText(`1 item with “${last!.name.slice(-9)}”`).waitFor();
      await page.keyboard.press('Tab');
      expect(await bookedOn.evaluate((element) => element === document.activeElement)).toBe(true);
      await bookedOn.selectOption({ label: last!.name });
      const pager = page.getByRole('navigation', { name: 'Expenses pages' });
      await pager.getByText(/ · 1 expense$/).waitFor();
      await grid.locator('tbody tr').first().waitFor();
      const listed = await grid.locator('tbody tr').count();
      expect(listed).toBe(1);
      await grid.focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('expense-pane').getByText(`Project: ${last!.name}`).first().waitFor();
      await checkScreen(app, 'expenses-booked-on-find');

      // Cleared: every item again, the box stays, and the item chosen is still named.
      await find.fill('');
      await found.getByText(/^500 of [\d,]+ items listed/).waitFor();
      expect(await find.isVisible()).toBe(true);
      await bookedOn.locator('option', { hasText: last!.name }).waitFor({ state: 'attached' });
      expect(
        await bookedOn.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent),
      ).toBe(last!.name);
      await pager.getByText(/ · 1 expense$/).waitFor();
    } finally {
      await close();
    }
  }, 180_000);

  it("merges a change of a dimension with a colleague's, field by field", async () => {
    const { sandbox, page, app, close } = await setUp();
    try {
      const project = sandbox.state.dimensions.find((d) => d.name === 'Project');
      if (!project) throw new Error('the demo data has no Project dimension');
      const dimensions = page.getByRole('grid', { name: 'Dimensions' });
      await dimensions.getByRole('button', { name: 'Edit Project' }).click();
      const editor = page.getByRole('form', { name: 'Edit Project' });
      await editor.getByLabel('Name').fill('Client projects');
      await editor.getByLabel('Code').fill('PROJ-C');
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('dimension-saved').getByText('Saved Client projects').waitFor();

      // Meanwhile a colleague renames and recodes it through the API.
      const token = await sandboxToken(sandbox, 'write');
      const answer = await fetch(`${sandbox.url}/v1/dimensions/${project.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Projects (finance)', code: 'PROJ-F' }),
      });
      expect(answer.status).toBe(200);

      const edits = page.getByTestId('edits');
      await edits.getByRole('button', { name: 'Send now' }).click();
      await page.getByTestId('push-result').getByText('1 conflict').waitFor({ timeout: 60_000 });
      // The note of the save follows its edit: no longer "sent with the next push".
      await page
        .getByTestId('dimension-saved')
        .getByText('Client projects was changed on the server too; choose below which version to keep.')
        .waitFor();
      const conflict = edits.getByRole('listitem', { name: 'Update dimension Client projects' });
      await conflict.getByRole('button', { name: 'Field by field…' }).click();
      const merge = conflict.getByRole('group', { name: 'Choose each field' });
      // The server's side shows the colleague's values, the code included.
      await expect
        .poll(() => merge.locator('tbody tr').allInnerTexts())
        .toEqual([
          expect.stringMatching(/^Name\s+Client projects\s+Projects \(finance\)\s*$/),
          expect.stringMatching(/^Code\s+PROJ-C\s+PROJ-F\s*$/),
        ]);
      await checkScreen(app, 'dimensions-conflict');
      await merge.getByRole('row', { name: /^Code/ }).getByLabel('PROJ-F').check();
      await merge.getByRole('button', { name: 'Keep the merged record' }).click();
      await conflict.getByText('Pending').waitFor();
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor({ timeout: 60_000 });
      expect(sandbox.state.dimensions.find((d) => d.id === project.id)).toMatchObject({
        name: 'Client projects',
        code: 'PROJ-F',
      });
      await dimensions
        .locator('tbody tr')
        .filter({ hasText: 'PROJ-F' })
        .getByText('Client projects')
        .waitFor();
    } finally {
      await close();
    }
  }, 180_000);

  it("names the field of a Retry refused here, as the server's refusal names it", async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 200, control: true });
    const project = sandbox.state.dimensions.find((d) => d.name === 'Project')!;
    // An item a colleague deleted before the last sync, revived offline here.
    const retired = sandbox.state.items.find((i) => i.dimensionId === project.id && i.status === 'ACTIVE')!;
    Object.assign(retired, { status: 'DELETED', deleteTime: project.updateTime });
    const { core, profile, open } = await connect({ sandbox, timeout: 20_000 });
    core.outbox.createDimensionItem(profile.id, project.id, { name: 'Trade fair Paris', code: 'PROJ-NEW' });
    core.outbox.updateDimensionItem(profile.id, project.id, retired.id, { status: 'ACTIVE' });
    // A colleague deletes Project before the push: both edits come back refused on status.
    const token = await sandboxToken(sandbox, 'write');
    const answer = await fetch(`${sandbox.url}/v1/dimensions/${project.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'DELETED' }),
    });
    expect(answer.status).toBe(200);
    expect(await core.outbox.push(profile.id)).toMatchObject({ sent: 0, failed: 2 });

    const app = await open();
    const { page } = app;
    try {
      await page.keyboard.press('Control+8');
      await page.getByRole('heading', { level: 1, name: 'Dimensions' }).waitFor();
      const edits = page.getByTestId('edits');
      const created = edits.getByRole('listitem', { name: 'Create dimension item Trade fair Paris' });
      const revived = edits.getByRole('listitem', { name: `Update dimension item ${retired.name}` });
      await created.getByText('Status: Project is deleted; items cannot be added.').waitFor();
      await revived.getByText('Status: Project is deleted; its items stay deleted.').waitFor();

      // Retry checks each again here, against the dimension the refusal showed deleted, and
      // says the refusal on its field by the field's label, as the server's is said.
      await revived.getByRole('button', { name: 'Retry' }).click();
      await expect
        .poll(() => revived.getByRole('alert').innerText())
        .toBe('Status: The dimension is deleted; its items stay deleted.');
      await created.getByRole('button', { name: 'Retry' }).click();
      await expect
        .poll(() => created.getByRole('alert').innerText())
        .toBe('Dimension: The dimension is deleted; items cannot be added to it.');
      expect(core.outbox.list(profile.id).map((item) => item.status)).toEqual(['failed', 'failed']);
    } finally {
      await app.close();
    }
  });

  it('keeps the focus with Send now while the edits go out, and on the list once all are sent', async () => {
    const { sandbox, page, close } = await setUp();
    try {
      const focused = () =>
        page.evaluate(() => document.activeElement?.textContent?.trim().replace(/\s+/g, ' ') ?? null);
      const dimensions = page.getByRole('grid', { name: 'Dimensions' });
      await dimensions.getByRole('button', { name: 'Edit Region' }).click();
      const region = page.getByRole('form', { name: 'Edit Region' });
      await region.getByLabel('Name').fill('Sales regions');
      await page.keyboard.press('Enter');
      const edits = page.getByTestId('edits');
      await edits.getByText('Waiting to be sent (1)').waitFor();

      // The API fails for now: the edit stays, and Send now keeps the focus for another try.
      sandbox.control?.addFault({ match: '*', status: 503, retryAfterSeconds: 0 });
      await edits.getByRole('button', { name: 'Send now' }).focus();
      await page.keyboard.press('Enter');
      await page
        .getByTestId('push-result')
        .getByText('0 sent', { exact: false })
        .waitFor({ timeout: 30_000 });
      await edits.getByRole('button', { name: 'Send now' }).and(page.locator(':enabled')).waitFor();
      await expect.poll(focused).toBe('Send now');

      // Sent: the button is disabled with nothing left to send, and the list's heading has the focus.
      sandbox.control?.clearFaults();
      await page.keyboard.press('Enter');
      await edits.getByText('Every edit has been sent.').waitFor({ timeout: 30_000 });
      await expect.poll(focused).toBe('Waiting to be sent (0)');
    } finally {
      await close();
    }
  });
});
