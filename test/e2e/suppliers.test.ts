import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src-sandbox';
import { checkScreen } from './axe';
import { useAppTests } from './harness';
import { sendWaitingEditUnreachable } from './steps';

// Editing a supplier while the API is unreachable (the sandbox drops every connection), then
// sending the edit once it answers again, all from the Suppliers screen.
const { openConnected } = useAppTests();

describe('suppliers offline', () => {
  it('keeps an edit made while the sandbox is unreachable and pushes it when it is back', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300, control: true });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page, core, profile } = app;
    try {
      const supplier = sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE');
      if (!supplier) throw new Error('the demo data has no active supplier');
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type(supplier.number);
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      await grid.locator('tbody tr').filter({ hasText: supplier.name }).first().waitFor();
      await checkScreen(app, 'suppliers');

      // The network is gone: every connection to the sandbox is refused.
      await sandbox.setReachable(false);
      await grid.getByRole('button', { name: `Edit ${supplier.name}` }).click();
      const editor = page.getByRole('form', { name: `Edit ${supplier.name}` });
      await editor.getByLabel('Name').fill('');
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => editor.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      await editor.getByText('Enter a name.', { exact: true }).waitFor();
      await editor.getByLabel('Name').fill('Kaffeerösterei Nord GmbH');
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('supplier-saved').waitFor();

      await sendWaitingEditUnreachable(page, 60_000);
      const edits = page.getByTestId('edits');
      expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe(supplier.name);
      await checkScreen(app, 'suppliers-pending');

      // Back online: the edit goes out and the list empties.
      await sandbox.setReachable(true);
      await edits.getByRole('button', { name: 'Send now' }).click();
      await edits.getByText('Every edit has been sent.').waitFor({ timeout: 60_000 });
      await page.getByTestId('pending-edits').getByText('No edits waiting').waitFor();
      expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe(
        'Kaffeerösterei Nord GmbH',
      );
      expect(core.outbox.list(profile.id)).toEqual([]);
    } finally {
      await app.close();
    }
  }, 180_000);
});

describe('a new supplier with a field missing', () => {
  it('names the missing name on its field in words, and keeps what was typed', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300 });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page, core, profile } = app;
    try {
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await page.getByRole('button', { name: 'New supplier' }).click();
      const editor = page.getByRole('form', { name: 'New supplier' });
      await editor.getByLabel('Supplier number').fill('NEW-7');
      await editor.getByLabel('VAT id').fill('DE111222333');
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => editor.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      await editor.getByText('Enter a name.', { exact: true }).waitFor();
      expect(await editor.innerText()).not.toContain('Invalid input');
      // Nothing typed is lost, and nothing was queued.
      expect(await editor.getByLabel('Supplier number').inputValue()).toBe('NEW-7');
      expect(await editor.getByLabel('VAT id').inputValue()).toBe('DE111222333');
      expect(core.outbox.list(profile.id)).toEqual([]);
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('deleted suppliers', () => {
  it('leaves suppliers deleted on the server out of the list until Show deleted is ticked', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300 });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page } = app;
    try {
      const deleted = sandbox.state.suppliers.find((s) => s.status === 'DELETED');
      if (!deleted) throw new Error('the demo data has no deleted supplier');
      const live = sandbox.state.suppliers.filter((s) => s.status !== 'DELETED').length;
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const pager = page.getByRole('navigation', { name: 'Suppliers pages' });
      await pager.getByText(` · ${live} suppliers`, { exact: false }).waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type(deleted.name);
      await page.getByText('No supplier matches.').waitFor();

      await page.getByLabel('Show deleted').check();
      const row = page.getByRole('grid', { name: 'Suppliers' }).locator('tbody tr');
      await expect.poll(() => row.allInnerTexts()).toEqual([expect.stringContaining(deleted.name)]);
      expect(await row.locator('td').nth(2).textContent()).toBe('Deleted');
      await page.getByLabel('Show deleted').uncheck();
      await page.getByText('No supplier matches.').waitFor();
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('a renamed supplier', () => {
  it('shows a renamed supplier in the expense and transaction panes seen before the rename', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 300 });
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page, core, profile } = app;
    try {
      // A supplier with one expense, documenting a cached bank transaction.
      const row = core
        .cacheOf(profile.id)
        .sqlite.prepare(
          `SELECT s.name, s.number, e.id expenseId, t.id transactionId
           FROM suppliers s JOIN expenses e ON e.supplier_id = s.id
           JOIN bank_transactions t ON t.id = json_extract(e.raw, '$.bankTransactionId')
           WHERE s.deleted_at IS NULL AND e.deleted_at IS NULL AND s.number IS NOT NULL
             AND (SELECT COUNT(*) FROM expenses o WHERE o.supplier_id = s.id) = 1
             AND (SELECT COUNT(*) FROM suppliers o WHERE instr(o.name, s.name) > 0) = 1
           LIMIT 1`,
        )
        .get() as { name: string; number: string; expenseId: string; transactionId: string } | undefined;
      if (!row) throw new Error('the demo data has no supplier with one expense of a cached transaction');
      const renamed = 'Kaffeerösterei Süd GmbH';
      const transactions = page.getByRole('grid', { name: 'Transactions' });
      const transactionPane = page.getByTestId('transaction-pane');
      const expenses = page.getByRole('grid', { name: 'Expenses' });
      const expensePane = page.getByTestId('expense-pane');
      const supplierField = expensePane.locator('dt:text-is("Supplier") + dd');
      // The expense the transaction pane shows (its heading names the bank's counterparty).
      const linkedSupplier = transactionPane.locator('.linked-expense dt:text-is("Supplier") + dd');
      const openTransaction = async () => {
        await page.keyboard.press('Control+1');
        await transactions.getByRole('row').nth(1).waitFor();
        await page.keyboard.press('/');
        await page.keyboard.type(row.transactionId);
        await page.getByTestId('totals').getByText('1', { exact: true }).waitFor();
        await transactions.focus();
        await page.keyboard.press('Enter');
        await transactionPane.waitFor();
      };
      const openExpense = async (supplier: string) => {
        await page.keyboard.press('Control+2');
        await page.getByRole('heading', { level: 1, name: 'Expenses' }).waitFor();
        await page.keyboard.press('/');
        await page.keyboard.type(supplier);
        await expect
          .poll(() => expenses.locator('tbody tr').allInnerTexts())
          .toEqual([expect.stringContaining(supplier)]);
        await expenses.focus();
        await page.keyboard.press('Enter');
        await expensePane.waitFor();
      };

      await transactions.getByRole('row').nth(1).waitFor();
      await openTransaction();
      await expect.poll(() => linkedSupplier.textContent()).toBe(row.name);
      await openExpense(row.name);
      await expect.poll(() => supplierField.textContent()).toBe(row.name);

      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      await page.keyboard.press('/');
      await page.keyboard.type(row.number);
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      await grid.getByRole('button', { name: `Edit ${row.name}`, exact: true }).click();
      const editor = page.getByRole('form', { name: `Edit ${row.name}` });
      await editor.getByLabel('Name').fill(renamed);
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('supplier-saved').waitFor();

      // Every view that names the supplier names it anew: the panes read before are not kept.
      await openExpense(renamed);
      await expect.poll(() => supplierField.textContent()).toBe(renamed);
      await openTransaction();
      await expect.poll(() => linkedSupplier.textContent()).toBe(renamed);
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('a supplier’s bank details', () => {
  it('marks a mistyped IBAN on its field and puts the cursor there, warns of a doubtful VAT id, and leaves a synced IBAN alone', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 5, transactions: 300 });
    const [synced, other] = sandbox.state.suppliers.filter((s) => s.status === 'ACTIVE');
    if (!synced || !other) throw new Error('the demo data has too few active suppliers');
    synced.iban = 'DE00 1234 5678'; // as the server may hold it: no IBAN at all
    const app = await openConnected({ sandbox, timeout: 20_000 });
    const { page, core, profile } = app;
    try {
      await page.keyboard.press('Control+3');
      await page.getByRole('heading', { level: 1, name: 'Suppliers' }).waitFor();
      const grid = page.getByRole('grid', { name: 'Suppliers' });
      const find = async (supplier: { number: string; name: string }) => {
        await page.getByLabel('Search').fill(supplier.number);
        await grid.locator('tbody tr').filter({ hasText: supplier.name }).first().waitFor();
      };

      // The synced supplier's malformed IBAN is shown and kept; its name changes all the same.
      await find(synced);
      await grid.getByRole('button', { name: `Edit ${synced.name}`, exact: true }).click();
      let editor = page.getByRole('form', { name: `Edit ${synced.name}` });
      expect(await editor.getByLabel('IBAN').inputValue()).toBe('DE00 1234 5678');
      await editor.getByLabel('Name').fill('Renamed Bank GmbH');
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('supplier-saved').waitFor();
      expect(core.outbox.list(profile.id)).toMatchObject([
        { recordId: synced.id, payload: { name: 'Renamed Bank GmbH' } },
      ]);

      // A mistyped IBAN is marked as soon as the field is left, and Save puts the cursor on it.
      await find(other);
      await grid.getByRole('button', { name: `Edit ${other.name}`, exact: true }).click();
      editor = page.getByRole('form', { name: `Edit ${other.name}` });
      const iban = editor.getByLabel('IBAN');
      await iban.fill('de89 3704 0044 0532 0130 01');
      await editor.getByLabel('BIC').focus();
      const message = "The IBAN's check digits do not match: a character is probably mistyped.";
      await expect.poll(() => iban.getAttribute('aria-invalid')).toBe('true');
      const described = await iban.getAttribute('aria-describedby');
      expect(await editor.locator(`[id="${described}"]`).textContent()).toBe(message);
      await editor.getByLabel('Name').focus();
      await editor.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => iban.evaluate((input) => input === document.activeElement)).toBe(true);
      expect(core.outbox.list(profile.id)).toHaveLength(1);
      await checkScreen(app, 'supplier-iban-refused');

      // Put right, the mark goes as it is typed; a French bank for a Monaco account is a warning.
      await iban.fill('MC58 1122 2000 0101 2345 6789 030');
      await expect.poll(() => iban.getAttribute('aria-invalid')).toBe(null);
      await editor.getByLabel('BIC').fill('bnpafrpp');
      await editor
        .getByText('The BIC is of a bank in FR and the IBAN of an account in MC', { exact: false })
        .waitFor();
      // A VAT id not in its EU prefix's format is a warning beside it, described by it, not
      // a mark: it may be no VAT id at all, and is saved as typed.
      const vatId = editor.getByLabel('VAT id');
      await vatId.fill('DE 1234 5678');
      const vatWarning =
        'This does not look like a German VAT id (DE followed by 9 digits); it is saved as typed — check it if it is meant to be one.';
      await editor.getByText(vatWarning).waitFor();
      await editor.getByLabel('Name').focus();
      expect(await vatId.getAttribute('aria-invalid')).toBe(null);
      const vatDescribed = (await vatId.getAttribute('aria-describedby'))?.split(' ') ?? [];
      const descriptions = await Promise.all(
        vatDescribed.map((describedId) => editor.locator(`[id="${describedId}"]`).textContent()),
      );
      expect(descriptions).toContain(vatWarning);
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('supplier-saved').waitFor();
      await grid.getByText('MC58 1122 2000 0101 2345 6789 030').waitFor();
      expect(core.outbox.list(profile.id)).toMatchObject([
        { recordId: synced.id },
        {
          recordId: other.id,
          payload: { iban: 'MC5811222000010123456789030', bic: 'BNPAFRPP', vatIdNo: 'DE 1234 5678' },
        },
      ]);
    } finally {
      await app.close();
    }
  }, 120_000);
});
