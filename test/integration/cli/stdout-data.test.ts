import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { sandboxToken } from '../../helpers/sandbox-token';
import { useTempDirs } from '../../helpers/temp-dir';

// A script counts and reads what a list prints: `satchel search | wc -l`. Standard output holds
// the rows alone (a table's header line above them); a page's totals and a "nothing here" note
// are for the person at the terminal, on standard error. In JSON, an amount reads as the API
// writes it, a decimal string, with no table of currency decimals needed.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('the lists of the command line on standard output', () => {
  it('print only rows there, and say "nothing found" and the totals on stderr', async () => {
    const { dataDir, core, profile } = await connect('Rows', { transactions: 40 });
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    // Nothing synced yet: every list is empty, and says so on stderr alone.
    const empty: Array<[string[], string]> = [
      [['supplier', 'list'], 'No supplier in the offline copy matches.\n'],
      [['dimension', 'list'], 'No dimensions are cached.\n'],
      [['edits', 'list'], 'No edits are waiting.\n'],
      [['search'], '0 transactions · page 1\n'],
    ];
    for (const [args, said] of empty) {
      const result = await runCli(args, { env });
      expect({ args, ...result }).toMatchObject({ args, code: 0, stdout: '', stderr: said });
    }
    const none = await runCli(['profile', 'list'], { env: { SATCHEL_DATA_DIR: tempDir() } });
    expect(none).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No organisation is connected. Add one with "satchel profile add".\n',
    });

    const dimension = await runCli(['dimension', 'create', '--name', 'Audit', '--code', 'AUD'], { env });
    expect(dimension.code).toBe(0);
    const id = /^Dimension (\S+) created/.exec(dimension.stdout)?.[1];
    const items = await runCli(['dimension', 'list', '--items', id!], { env });
    expect(items).toMatchObject({ code: 0, stdout: '', stderr: 'This dimension has no items here.\n' });

    const synced = await runCli(['sync', '--profile', profile.id], { env });
    expect(synced.code).toBe(0);
    const json = await runCli(['search', '--page-size', '15', '--json'], { env });
    const page = JSON.parse(json.stdout) as { rows: unknown[]; totals: { count: number } };
    expect(page.rows).toHaveLength(15);

    const search = await runCli(['search', '--page-size', '15'], { env });
    expect(search.code).toBe(0);
    const lines = search.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^BOOKED\s+AMOUNT\s+COUNTERPARTY\s+MATCHED\s+ID$/);
    expect(lines.slice(1)).toHaveLength(15);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\d{4}-\d{2}-\d{2}\s+-?\d+\.\d{2} [A-Z]{3}\s/);
    expect(search.stderr).toMatch(new RegExp(`^${page.totals.count} transactions · .+ · page 1\\n$`));
  });

  it('gives search --json amounts also as the wire’s decimal strings, beside the minor units', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Decimals', { transactions: 30 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();

    const result = await runCli(['search', '--page-size', '30', '--json'], {
      env: { SATCHEL_DATA_DIR: dataDir },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    type Amount = { minor: number; currency: string; amount: string };
    const page = JSON.parse(result.stdout) as {
      rows: Array<{ id: string; amount: Amount }>;
      totals: { sums: Array<Amount & { count: number }> };
    };
    expect(page.rows.length).toBeGreaterThan(0);

    // The same strings the API sends for these transactions.
    const answer = await fetch(`${sandbox.url}/v0/bank-transactions/search-query`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await sandboxToken(sandbox)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ ids: page.rows.map((row) => row.id), pagination: { page: 1, pageSize: 100 } }),
    });
    const wire = (await answer.json()) as {
      data: Array<{ id: string; amount: { amount: string; currency: string } }>;
    };
    const sent = new Map(wire.data.map((row) => [row.id, row.amount]));
    for (const row of page.rows) {
      expect(row.amount).toEqual({ minor: expect.any(Number) as unknown, ...sent.get(row.id) });
      expect(row.amount.minor).toBe(Number(row.amount.amount.replace('.', '')));
    }
    // The totals too: minor units, currency and count as before, and the decimal string.
    expect(page.totals.sums.length).toBeGreaterThan(0);
    for (const sum of page.totals.sums) {
      expect(Object.keys(sum).sort()).toEqual(['amount', 'count', 'currency', 'minor']);
      expect(sum.amount).toMatch(/^-?\d+(\.\d+)?$/);
      expect(sum.minor).toBe(Number(sum.amount.replace('.', '')));
    }
  });
});

describe('confirmations of the command line', () => {
  // `x=$(satchel …)` in a script gets the result alone: "done" sentences, like "nothing here"
  // notes, are for the person reading the terminal.
  it('go to stderr, with nothing on stdout, and exit 0', async () => {
    const bare = await runCli(['status'], { env: { SATCHEL_DATA_DIR: tempDir() } });
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Satchel \S+ \(spend API .+\)\nData folder: .+\nKeychain: .+\n$/);
    expect(bare.stderr).toBe('No organisation is connected. Add one with "satchel profile add".\n');

    const { dataDir, core, profile } = await connect('Said', { transactions: 10 });
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const created = await runCli(['supplier', 'create', '--name', 'Quiet GmbH', '--code', 'Q-1'], { env });
    const operationId = /edit (\S+) waits/.exec(created.stdout)?.[1];
    expect(operationId).toBeDefined();

    const confirmed: Array<[string[], string]> = [
      [['edits', 'retry', operationId!], `Will send again: ${operationId}\n`],
      [['edits', 'discard', operationId!], `Discarded: ${operationId}\n`],
      [['profile', 'rename', 'Said', '--name', 'Told'], 'Renamed to "Told".\n'],
      [
        ['profile', 'set-url', 'Told', '--url', 'http://127.0.0.1:9/'],
        `"Told" now connects to http://127.0.0.1:9; its offline copy is kept.\n`,
      ],
      [['profile', 'remove', profile.id], 'Removed "Told", its cache and its keychain entry.\n'],
    ];
    for (const [args, said] of confirmed) {
      const result = await runCli(args, { env });
      expect({ args, ...result }).toMatchObject({ args, code: 0, stdout: '', stderr: said });
    }
  });
});
