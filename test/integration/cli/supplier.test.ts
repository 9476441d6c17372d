import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { colleagueApi, sandboxToken } from '../../helpers/sandbox-token';
import { useTempDirs } from '../../helpers/temp-dir';

// `supplier update ID` takes a supplier's id; a script finds it with `supplier list`, from the
// offline copy, as the Suppliers screen does.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

/** A process id that no process has (above Linux's largest): a push killed mid-request. */
const GONE = 2 ** 22 + 17;

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

describe('satchel supplier list and edits', () => {
  it('says the state of each supplier’s waiting edit, in words and in JSON', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Supplier edits', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const live = sandbox.state.suppliers.filter((supplier) => supplier.status === 'ACTIVE');
    const [theirs, gone, waiting, untouched] = [live[0]!, live[1]!, live[2]!, live[3]!];
    const api = colleagueApi(sandbox, await sandboxToken(sandbox, 'read write'));

    // A colleague renames one supplier and takes a number after the sync: the push meets a
    // conflict and a refusal.
    core.outbox.updateSupplier(profile.id, theirs.id, { name: 'Mine GmbH' });
    const refused = core.outbox.createSupplier(profile.id, { name: 'Copy AG', code: 'TAKEN-1' });
    expect(await api('PATCH', `/v1/suppliers/${theirs.id}`, { name: 'Theirs GmbH' })).toBe(200);
    expect(await api('POST', '/v1/suppliers', { name: 'Theirs AG', code: 'TAKEN-1' })).toBeLessThan(300);
    expect(await core.outbox.push(profile.id)).toMatchObject({ sent: 0, failed: 1, conflicts: 1 });
    // One left on its way by a push whose process is gone, and one that simply waits.
    const interrupted = core.outbox.updateSupplier(profile.id, gone.id, { name: 'Half Sent GmbH' });
    const claim = JSON.stringify({ id: `claim-of-${GONE}`, pid: GONE, host: hostname() });
    core
      .cacheOf(profile.id)
      .sqlite.prepare(
        `UPDATE outbox SET status = 'sending', attempts = attempts + 1, sent_at = ?, claimed_by = ? WHERE operation_id = ?`,
      )
      .run(new Date().toISOString(), claim, interrupted.operationId);
    const pending = core.outbox.updateSupplier(profile.id, waiting.id, { name: 'Waiting GmbH' });
    const conflict = core.outbox.list(profile.id).find((edit) => edit.status === 'conflict')!;
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    const listed = await runCli(['supplier', 'list'], { env });
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const status = (id: string) =>
      listed.stdout
        .split('\n')
        .find((line) => line.startsWith(`${id}  `))
        ?.split(/\s{2,}/)[3];
    expect(status(theirs.id)).toBe('ACTIVE; edit conflict');
    expect(status(refused.recordId)).toBe('ACTIVE; edit failed');
    expect(status(gone.id)).toBe('ACTIVE; edit interrupted (maybe sent; checked before sending again)');
    expect(status(waiting.id)).toBe('ACTIVE; edit pending');
    expect(status(untouched.id)).toBe('ACTIVE');

    const json = await runCli(['supplier', 'list', '--json'], { env });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    type Listed = { id: string; edit: { operationId: string; operation: string; status: string } | null };
    const rows = (JSON.parse(json.stdout) as { suppliers: Listed[] }).suppliers;
    const edit = (id: string) => rows.find((row) => row.id === id)?.edit;
    expect(edit(theirs.id)).toEqual({
      operationId: conflict.operationId,
      operation: 'update',
      status: 'conflict',
    });
    expect(edit(refused.recordId)).toEqual({
      operationId: refused.operationId,
      operation: 'create',
      status: 'failed',
    });
    expect(edit(gone.id)).toEqual({
      operationId: interrupted.operationId,
      operation: 'update',
      status: 'interrupted',
    });
    expect(edit(waiting.id)).toEqual({
      operationId: pending.operationId,
      operation: 'update',
      status: 'pending',
    });
    expect(edit(untouched.id)).toBeNull();
  });
});

describe('satchel supplier create and update: bank details', () => {
  it('refuses a mistyped IBAN or BIC with exit 2 and queues nothing', async () => {
    const { dataDir, core, profile } = await connect('Bank details', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const create = (...extra: string[]) =>
      runCli(['supplier', 'create', '--name', 'Typo GmbH', '--code', 'TYPO-1', ...extra], { env });

    expect(await create('--iban', 'DE89 3704 0044 0532 0130 01')).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining(
        "--iban: The IBAN's check digits do not match: a character is probably mistyped.",
      ),
    });
    expect((await create('--iban', 'DE89 3704 0044 0532 0130 0')).stderr).toContain(
      '--iban: A German IBAN has 22 characters; this one has 21.',
    );
    expect((await create('--bic', 'COBADEF')).stderr).toContain(
      '--bic: A BIC has 8 or 11 characters; this one has 7.',
    );
    const edits = await runCli(['edits', 'list', '--json'], { env });
    expect(edits.code).toBe(0);
    expect(JSON.parse(edits.stdout)).toMatchObject({ items: [] });
  });

  it("queues a VAT id not in its EU prefix's format as typed, with a warning on stderr", async () => {
    const { dataDir, core, profile } = await connect('VAT warning', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    const typo = await runCli(
      ['supplier', 'create', '--name', 'Typo GmbH', '--code', 'TYPO-1', '--vat-id', 'DE12345678'],
      { env },
    );
    expect(typo).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('created offline'),
      stderr:
        'Warning: This does not look like a German VAT id (DE followed by 9 digits); it is saved as typed — check it if it is meant to be one.\n',
    });
    // A Mexican RFC starts with FR: no French VAT id, and kept exactly as typed.
    const rfc = await runCli(
      ['supplier', 'create', '--name', 'Franco SA de CV', '--code', 'MX-1', '--vat-id', ' FRAN800101AB1 '],
      { env },
    );
    expect(rfc).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^Warning: This does not look like a French VAT id/),
    });
    const listed = async (text: string) =>
      JSON.parse((await runCli(['supplier', 'list', '--text', text, '--json'], { env })).stdout);
    expect(await listed('Typo GmbH')).toMatchObject({ suppliers: [{ vatIdNo: 'DE12345678' }] });
    const franco = (await listed('Franco SA')).suppliers[0];
    expect(franco).toMatchObject({ vatIdNo: 'FRAN800101AB1' });
    expect(JSON.parse((await runCli(['edits', 'list', '--json'], { env })).stdout).items).toHaveLength(2);

    // An update that leaves the VAT id alone says nothing of it.
    const renamed = await runCli(['supplier', 'update', franco.id, '--name', 'Franco Hermanos SA'], { env });
    expect(renamed).toMatchObject({ code: 0, stderr: '' });
  });

  it('keeps an IBAN typed with spaces in its electronic form, shows it in groups, and warns of a foreign BIC', async () => {
    const { dataDir, core, profile } = await connect('Bank details kept', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    const created = await runCli(
      [
        ...['supplier', 'create', '--name', 'Banque Monaco SAM', '--code', 'MC-1'],
        ...[
          '--iban',
          'mc58 1122 2000 0101 2345 6789 030',
          '--bic',
          'bnpafrpp',
          '--vat-id',
          'fr 40 303265045',
        ],
      ],
      { env },
    );
    // A Monaco account with a French bank can be right: queued, with a warning.
    expect(created).toMatchObject({
      code: 0,
      stderr:
        'Warning: The BIC is of a bank in FR and the IBAN of an account in MC: check that they belong together (they can, across a border).\n',
    });
    const listed = await runCli(['supplier', 'list', '--text', 'Banque Monaco', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject({
      suppliers: [{ iban: 'MC5811222000010123456789030', bic: 'BNPAFRPP', vatIdNo: 'FR40303265045' }],
    });
    const table = await runCli(['supplier', 'list', '--text', 'Banque Monaco'], { env });
    expect(table.stdout).toContain('MC58 1122 2000 0101 2345 6789 030');
  });

  it('renames a synced supplier whose IBAN the server holds malformed', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Malformed IBAN', { transactions: 20 });
    const supplier = sandbox.state.suppliers.find((candidate) => candidate.status === 'ACTIVE')!;
    supplier.iban = 'DE00 1234 5678';
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    const renamed = await runCli(['supplier', 'update', supplier.id, '--name', 'Renamed Bank GmbH'], { env });
    expect(renamed).toMatchObject({ code: 0, stderr: '' });
    const listed = await runCli(['supplier', 'list', '--text', 'Renamed Bank', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject({
      suppliers: [{ id: supplier.id, name: 'Renamed Bank GmbH', iban: 'DE00 1234 5678' }],
    });
    // Changing the IBAN itself is checked, though.
    const retyped = await runCli(['supplier', 'update', supplier.id, '--iban', 'DE00 1234 5678'], { env });
    expect(retyped).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--iban: A German IBAN has 22'),
    });
  });
});
