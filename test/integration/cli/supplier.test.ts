import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// `supplier update ID` takes a supplier's id; a script finds it with `supplier list`, from the
// offline copy, as the Suppliers screen does.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('satchel supplier list', () => {
  it('lists the offline copy’s suppliers, finds one by text, and its id updates it', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Suppliers', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const live = sandbox.state.suppliers.filter((supplier) => supplier.status !== 'DELETED');

    const all = await runCli(['supplier', 'list', '--json'], { env });
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const listed = (JSON.parse(all.stdout) as { suppliers: Array<{ id: string; name: string }> }).suppliers;
    expect(listed.map((row) => row.id).sort()).toEqual(live.map((supplier) => supplier.id).sort());

    const wanted = live[7]!;
    const found = await runCli(['supplier', 'list', '--text', wanted.name], { env });
    expect(found.code).toBe(0);
    const lines = found.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NUMBER\s+NAME\s+STATUS\s+VAT ID\s+IBAN$/);
    expect(lines.slice(1).some((line) => line.startsWith(`${wanted.id}  `))).toBe(true);

    const updated = await runCli(['supplier', 'update', wanted.id, '--name', 'Renamed GmbH'], { env });
    expect(updated.code).toBe(0);
    const after = await runCli(['supplier', 'list', '--text', 'Renamed GmbH', '--json'], { env });
    expect(JSON.parse(after.stdout)).toMatchObject({ suppliers: [{ id: wanted.id, name: 'Renamed GmbH' }] });
  });
});
