import { describe, expect, it } from 'vitest';
import { searchExpenses } from '../../../src-main/search';
import type { ExpenseRow } from '../../../src-shared/search';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// An accountant's script lists the expenses it is about to review or chase: from the offline
// copy alone (the server may be far away), with the filters of the Expenses list and of
// `export expenses`, rows on stdout and the count on stderr, amounts never as floats.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

type Amount = { minor: number; currency: string; amount: string };
type JsonRow = Omit<ExpenseRow, 'amount'> & { amount: Amount | null };

describe('satchel expense list', () => {
  it('lists the cached expenses offline, filtered, sorted and paged, as the app finds them', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Expenses', { transactions: 120 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const cache = core.cacheOf(profile.id);
    const all = searchExpenses(cache, { pagination: { page: 1, pageSize: 500 } });
    const withoutFile = searchExpenses(cache, {
      filters: { hasFile: false },
      sorting: { field: 'amount', direction: 'ASC' },
      pagination: { page: 1, pageSize: 500 },
    });
    expect(all.total).toBeGreaterThan(10);
    expect(withoutFile.total).toBeGreaterThan(0);
    expect(withoutFile.total).toBeLessThan(all.total);
    await core.close();
    // Offline: nothing answers at the organisation's address any more.
    await sandbox.stop();
    const env = { SATCHEL_DATA_DIR: dataDir };

    const page = await runCli(['expense', 'list', '--page-size', '7'], { env });
    expect(page.code).toBe(0);
    const lines = page.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DATE\s+AMOUNT\s+SUPPLIER\s+STATUS\s+FILES\s+ID$/);
    expect(lines.slice(1)).toHaveLength(7);
    // Newest first, as the Expenses list and the export: the ids of the app's first page.
    expect(lines.slice(1).map((line) => line.split(/\s+/).at(-1))).toEqual(
      all.rows.slice(0, 7).map((row) => row.id),
    );
    for (const line of lines.slice(1)) expect(line).toMatch(/^\d{4}-\d{2}-\d{2}\s+-?\d+(\.\d+)? [A-Z]{3}\s/);
    expect(page.stderr).toBe(`${all.total} expenses · page 1\n`);

    const json = await runCli(
      ['expense', 'list', '--has-file', 'false', '--sort', 'amount', '--asc', '--page-size', '500', '--json'],
      { env },
    );
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const listed = JSON.parse(json.stdout) as { rows: JsonRow[]; total: number; page: number };
    expect(listed.total).toBe(withoutFile.total);
    expect(listed.rows.map((row) => row.id)).toEqual(withoutFile.rows.map((row) => row.id));
    for (const [index, row] of listed.rows.entries()) {
      const { amount, ...rest } = row;
      const expected = withoutFile.rows[index]!;
      const { amount: _minorOnly, ...expectedRest } = expected;
      expect(rest).toEqual(expectedRest);
      if (expected.amount === null) expect(amount).toBeNull();
      else {
        expect(amount?.minor).toBe(expected.amount.minor);
        expect(amount?.currency).toBe(expected.amount.currency);
        // The decimal string, read back, is the integer minor units exactly.
        expect(typeof amount?.amount).toBe('string');
        expect(Number(amount!.amount.replace('.', ''))).toBe(expected.amount.minor);
      }
    }

    // Mistakes are usage errors (exit 2) that name the option.
    expect(await runCli(['expense', 'list', '--sort', 'bookingDate'], { env })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--sort takes one of expenseTime, updateTime, amount, id') as unknown,
    });
    expect((await runCli(['expense', 'list', '--has-file', 'yes'], { env })).stderr).toContain(
      '--has-file takes true or false',
    );
    expect((await runCli(['expense', 'show'], { env })).code).toBe(2);

    // Nothing found: no rows, the count said on stderr.
    expect(await runCli(['expense', 'list', '--text', 'zzqqxx-no-such-text'], { env })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '0 expenses · page 1\n',
    });
  });
});
