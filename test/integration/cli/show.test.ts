import { describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { expenseDetail, transactionDetail } from '../../../src-main/details';
import { searchExpenses, searchSuppliers } from '../../../src-main/search';
import { formatAmount } from '../../../src-shared/money';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// "What is 3f2c…?" asked of the offline copy from a terminal or a script: the record the
// detail pane would open, its review state, its receipts, and any edit of it not yet sent.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

const line = (output: string, label: string) =>
  output.split('\n').filter((text) => new RegExp(`^${label}\\s{2,}`).test(text));

describe('satchel show ID', () => {
  it('prints a transaction, an expense or a supplier with its review, files and waiting edits', async () => {
    const { dataDir, core, profile } = await connect('Shown', { transactions: 150 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const cache = core.cacheOf(profile.id);
    const withFile = searchExpenses(cache, {
      filters: { hasFile: true },
      pagination: { page: 1, pageSize: 500 },
    }).rows.map((row) => expenseDetail(cache, row.id));
    const expense = withFile.find((detail) => detail.bankTransaction !== null && detail.files.length > 0)!;
    expect(expense).toBeDefined();
    const transactionId = expense.bankTransaction!.id;
    const supplier = searchSuppliers(cache, { pagination: { page: 1, pageSize: 1 } }).rows[0]!;
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const ok = async (args: string[]) => {
      const result = await runCli(args, { env });
      expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ args, code: 0 });
      return result;
    };
    await ok(['review', 'mark', '--flag', 'Receipt unreadable', '--id', transactionId]);
    await ok(['review', 'mark', '--note', 'Ask  Anna\nabout it', '--id', transactionId]);
    const edited = await ok(['supplier', 'update', supplier.id, '--name', 'Renamed Offline GmbH']);
    const operationId = /edit (\S+) waits/.exec(edited.stdout)![1]!;

    const after = createCore({ dataDir });
    const detail = transactionDetail(after.cacheOf(profile.id), transactionId);
    await after.close();

    // JSON: the detail pane's record, its kind, and amounts also as decimal strings.
    const json = await ok(['show', transactionId, '--json']);
    expect(json.stderr).toBe('');
    const shown = JSON.parse(json.stdout) as typeof detail & { kind: string; edits: unknown[] };
    expect(shown.kind).toBe('transaction');
    expect(shown.edits).toEqual([]);
    expect(shown.transaction).toEqual({
      ...detail.transaction,
      amount: {
        ...detail.transaction.amount,
        amount: formatAmount(detail.transaction.amount.minor, detail.transaction.amount.currency),
      },
    });
    expect(shown.transaction.review).toMatchObject({ flagged: true, flagReason: 'Receipt unreadable' });
    expect(shown.expenses.map((e) => e.expense.id)).toEqual(detail.expenses.map((e) => e.expense.id));

    // Text: one "label  value" line each, files and edits listed.
    const text = (await ok(['show', transactionId])).stdout;
    const amount = `${formatAmount(detail.transaction.amount.minor, detail.transaction.amount.currency)} ${detail.transaction.amount.currency}`;
    expect(line(text, 'kind')).toEqual([expect.stringMatching(/ bank transaction$/)]);
    expect(line(text, 'amount')).toEqual([
      expect.stringMatching(new RegExp(` ${amount.replace('.', '\\.')}$`)),
    ]);
    expect(line(text, 'flagged')).toEqual([expect.stringMatching(/ yes: Receipt unreadable$/)]);
    // A note of several lines stays on its line.
    expect(line(text, 'note')).toEqual([expect.stringMatching(/ Ask Anna about it$/)]);
    expect(line(text, 'expense')).toEqual([expect.stringContaining(expense.expense.id)]);
    expect(line(text, 'file')).toHaveLength(detail.expenses.flatMap((e) => e.files).length);
    expect(line(text, 'file')[0]).toContain(expense.files[0]!.id);
    expect(line(text, 'offline edits')).toEqual([expect.stringMatching(/ none$/)]);

    const ofExpense = (await ok(['show', expense.expense.id])).stdout;
    expect(line(ofExpense, 'kind')).toEqual([expect.stringMatching(/ expense$/)]);
    expect(line(ofExpense, 'transaction')).toEqual([expect.stringContaining(transactionId)]);
    expect(line(ofExpense, 'file')).toHaveLength(expense.files.length);
    expect(line(ofExpense, 'reviewed')).toEqual([expect.stringMatching(/ no$/)]);

    const ofSupplier = (await ok(['show', supplier.id])).stdout;
    expect(line(ofSupplier, 'name')).toEqual([expect.stringMatching(/ Renamed Offline GmbH$/)]);
    expect(line(ofSupplier, 'offline edit')).toEqual([
      expect.stringMatching(new RegExp(` ${operationId} update supplier pending$`)),
    ]);

    // An id the offline copy does not hold: said, exit 1; no id at all: a usage mistake.
    expect(await runCli(['show', 'no-such-id'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'satchel: No transaction, expense, supplier, dimension or dimension item no-such-id is in the offline copy of "Shown". Sync, then try again.\n',
    });
    expect(await runCli(['show'], { env })).toMatchObject({ code: 2, stdout: '' });
  });
});
