import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// A script counts and reads what a list prints: `satchel search | wc -l`. Standard output holds
// the rows alone (a table's header line above them); a page's totals and a "nothing here" note
// are for the person at the terminal, on standard error.

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
});
