import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MANIFEST_COLUMNS } from '../../../src-main/files/manifest';
import { connectedCore } from '../../helpers/sync-fixture';
import { contentRequests, listFiles, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';

// Bulk download against the real sandbox over HTTP, a real cache file and a real folder:
// every file of the organisation (over 2,000), each checked against the sandbox's own bytes.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('bulk download', () => {
  it('downloads 2,000+ files, each verified, with a manifest mapping files to expenses and transactions', async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { transactions: 5000, readLimit: 100_000 });
    closers.push(() => fixture.close());
    const { core, profile, sandbox } = fixture;
    const summary = await core.sync.sync(profile.id);
    expect(summary.outcome).toBe('succeeded');
    sandbox.control?.clearRequests();

    const destination = path.join(dir, 'receipts');
    const progress: number[] = [];
    const totals = new Set<number>();
    const stop = core.events.subscribe((event, payload) => {
      if (event !== 'downloads.progress') return;
      const { files } = payload as { files: { done: number; total: number } };
      progress.push(files.done);
      totals.add(files.total);
    });
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'all' },
      destination,
      layout: 'month',
    });
    // What the job answers and reports counts every file from the first moment.
    const total = sandbox.state.files.length;
    expect(job.files).toMatchObject({ total, pending: total });
    expect(core.files.status(profile.id, job.id).files.total).toBe(total);
    const result = await core.files.wait(profile.id, job.id);
    expect([...totals]).toEqual([total]);
    stop();
    expect(result).toEqual({ status: 'completed' });

    const done = core.files.status(profile.id, job.id);
    expect(done.files.total).toBe(sandbox.state.files.length);
    expect(done.files.total).toBeGreaterThanOrEqual(2000);
    expect(done.files).toMatchObject({
      done: done.files.total,
      failed: 0,
      pending: 0,
      fetched: done.files.total,
    });
    expect(done.bytes.done).toBe(done.bytes.total);
    expect(progress.at(-1)).toBe(done.files.total);

    // Each file fetched exactly once.
    const requests = contentRequests(sandbox);
    expect(requests.size).toBe(done.files.total);
    expect([...requests.values()].every((count) => count === 1)).toBe(true);

    const manifest = readManifest(path.join(destination, 'manifest.csv'));
    expect(manifest).toHaveLength(done.files.total);
    const onDisk = listFiles(destination);
    expect(onDisk).toHaveLength(done.files.total + 1); // and the manifest; no .part left
    expect(onDisk.some((name) => name.includes('.satchel-download-') || name.endsWith('.part'))).toBe(false);
    const expenses = new Map(sandbox.state.expenses.map((expense) => [expense.id, expense]));
    const suppliers = new Map(sandbox.state.suppliers.map((supplier) => [supplier.id, supplier.name]));
    for (const row of manifest) {
      const record = sandboxFile(sandbox, row['file_id'] ?? '');
      const file = path.join(destination, ...(row['file'] ?? '').split('/'));
      expect(sha256Of(file), row['file']).toBe(record.sha256);
      expect(row).toMatchObject({
        status: 'done',
        sha256: record.sha256,
        size: String(record.size),
        expense_id: record.expenseId,
        original_name: record.name,
        mime_type: record.mimeType,
        expense_line_id: record.expenseLineId ?? '',
        transaction_id: expenses.get(record.expenseId)?.bankTransactionId ?? '',
        error: '',
      });
      // The supplier, else the card merchant.
      const expense = expenses.get(record.expenseId);
      const merchant = (expense?.expenseMetadata as { merchant?: { name: string } | null } | undefined)
        ?.merchant?.name;
      const supplier = (expense?.supplierId && suppliers.get(expense.supplierId)) || merchant;
      expect(row['supplier'], row['file']).toBe(supplier ?? '');
      // Month layout: the folder is the booking month.
      expect(row['file']?.split('/')[0]).toBe(row['booking_date']?.slice(0, 7));
    }
    await core.close();
  }, 120_000);

  it('writes the manifest columns with the transaction counterparty, exact amount and account', async () => {
    const dir = tempDir();
    const fixture = await connectedCore(dir, { readLimit: 100_000 });
    closers.push(() => fixture.close());
    const { core, profile, sandbox } = fixture;
    await core.sync.sync(profile.id);
    const expense = sandbox.state.expenses.find((e) => e.bankTransactionId && e.type === 'CARD_TRANSACTION');
    if (!expense) throw new Error('no card expense');
    const destination = path.join(dir, 'one');
    const { job } = await core.files.start(profile.id, {
      scope: { by: 'ids', kind: 'expense', ids: [expense.id] },
      destination,
      template: '{bookingDate} {counterparty} {amount} {currency} {expenseId}',
      layout: 'account',
    });
    expect((await core.files.wait(profile.id, job.id)).status).toBe('completed');
    const text = (await import('node:fs')).readFileSync(path.join(destination, 'manifest.csv'), 'utf8');
    expect(text.split('\r\n')[0]).toBe(`\uFEFF${MANIFEST_COLUMNS.join(',')}`);
    const rows = readManifest(path.join(destination, 'manifest.csv'));
    const transaction = (await core.files.status(profile.id, job.id)).files.total;
    expect(rows).toHaveLength(transaction);
    const cached = core
      .cacheOf(profile.id)
      .sqlite.prepare(
        `SELECT t.counterparty, t.amount_minor AS minor, t.amount_currency AS currency, t.booking_date AS date, a.name AS account
        FROM bank_transactions t JOIN bank_accounts a ON a.id = t.bank_account_id WHERE t.id = ?`,
      )
      .get(expense.bankTransactionId) as {
      counterparty: string;
      minor: number;
      currency: string;
      date: string;
      account: string;
    };
    for (const row of rows) {
      expect(row['counterparty']).toBe(cached.counterparty);
      expect(row['booking_date']).toBe(cached.date);
      expect(row['currency']).toBe(cached.currency);
      expect(row['account']).toBe(cached.account);
      expect(row['amount']).toMatch(/^-\d+(\.\d+)?$/);
      expect(row['file']?.startsWith(`${cached.account}/${cached.date} `)).toBe(true);
      expect(row['file']).toContain(expense.id);
      expect(existsSync(path.join(destination, ...(row['file'] ?? '').split('/')))).toBe(true);
    }
    await core.close();
  });
});
