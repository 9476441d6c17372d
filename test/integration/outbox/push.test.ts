import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../src-shared/errors';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { useTempDirs } from '../../helpers/temp-dir';
import { outboxSetup, row, syncedOutbox, type OutboxSetup } from './fixture';

// Offline edits against the real sandbox over HTTP and a real SQLite cache.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.close();
});
const synced = () => syncedOutbox(tempDir(), setups);

async function expectCacheEqualsApi(setup: OutboxSetup) {
  const api = await readApi(setup.sandbox.url, setup.sandbox.clientId, setup.sandbox.clientSecret);
  const local = readCache(setup.cache);
  for (const resource of ['suppliers', 'dimensions', 'dimensionItems'] as const)
    expect(local[resource], resource).toEqual(sortById(api[resource]));
}

describe('offline edits', () => {
  it('creates and updates offline, then pushes: server has them, rows replaced, flags cleared', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    setup.online = false;
    const existing = setup.sandbox.state.suppliers[5]!;

    const created = outbox.createSupplier(profileId, { name: '  Offline Papier GmbH ', code: 'OFF-1' });
    expect(created.recordId).toMatch(/^local-/);
    expect(row(setup.cache, 'suppliers', created.recordId)).toMatchObject({
      name: 'Offline Papier GmbH',
      number: 'OFF-1',
      status: 'ACTIVE',
      local_edit_pending: 1,
    });
    outbox.updateSupplier(profileId, created.recordId, { vatIdNo: 'DE999999999' });
    outbox.updateSupplier(profileId, existing.id, { name: 'Renamed Offline' });
    const dimension = outbox.createDimension(profileId, { name: 'Projects', code: 'PRJ' });
    const item = outbox.createDimensionItem(profileId, dimension.recordId, { name: 'Apollo', code: 'P-1' });
    outbox.updateDimensionItem(profileId, dimension.recordId, item.recordId, { name: 'Apollo 11' });
    expect(row(setup.cache, 'suppliers', existing.id)).toMatchObject({
      name: 'Renamed Offline',
      local_edit_pending: 1,
    });
    expect(row(setup.cache, 'dimension_items', item.recordId)).toMatchObject({
      dimension_id: dimension.recordId,
      name: 'Apollo 11',
    });
    expect(outbox.list(profileId).map((i) => [i.resource, i.operation])).toEqual([
      ['supplier', 'create'],
      ['supplier', 'update'],
      ['supplier', 'update'],
      ['dimension', 'create'],
      ['dimensionItem', 'create'],
      ['dimensionItem', 'update'],
    ]);

    // Offline: nothing is lost. Not even a token could be asked for, so no request left: the
    // first edit waits as it was, not "maybe sent" (a lost answer has its own test below).
    const offline = await outbox.push(profileId);
    expect(offline.stoppedBy?.code).toBe('OFFLINE');
    expect(offline.sent).toBe(0);
    expect(outbox.list(profileId)[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect(outbox.list(profileId).map((i) => i.status)).toEqual([
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);

    setup.online = true;
    const before = setup.sandbox.state.suppliers.length;
    const summary = await outbox.push(profileId);
    expect(summary).toEqual({ sent: 6, failed: 0, conflicts: 0, remaining: 0 });
    expect(outbox.list(profileId)).toEqual([]);
    expect(setup.sandbox.state.suppliers.length).toBe(before + 1);

    const server = setup.sandbox.state.suppliers.find((s) => s.number === 'OFF-1')!;
    expect(server).toMatchObject({ name: 'Offline Papier GmbH', vatIdNo: 'DE999999999' });
    expect(row(setup.cache, 'suppliers', created.recordId)).toBeUndefined();
    const local = row(setup.cache, 'suppliers', server.id)!;
    expect(local.local_edit_pending).toBe(0);
    expect(local.raw).toEqual(server);
    expect(setup.sandbox.state.suppliers.find((s) => s.id === existing.id)!.name).toBe('Renamed Offline');

    const serverDimension = setup.sandbox.state.dimensions.find((d) => d.code === 'PRJ')!;
    const serverItem = setup.sandbox.state.items.find((i) => i.dimensionId === serverDimension.id)!;
    expect(serverItem).toMatchObject({ name: 'Apollo 11', code: 'P-1' });
    expect(row(setup.cache, 'dimension_items', serverItem.id)).toMatchObject({
      dimension_id: serverDimension.id,
      local_edit_pending: 0,
    });
    expect(
      setup.cache.sqlite.prepare("SELECT count(*) AS n FROM dimension_items WHERE id LIKE 'local-%'").get(),
    ).toEqual({ n: 0 });

    // A sync after the push agrees with the API record for record.
    expect((await setup.sync()).outcome).toBe('succeeded');
    await expectCacheEqualsApi(setup);
  });

  it('checks edits with the API rules and names the field', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const field = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return { code: (error as AppError).code, field: (error as AppError).field };
      }
      throw new Error('no error');
    };
    const taken = setup.sandbox.state.suppliers[0]!;
    expect(field(() => outbox.createSupplier(profileId, { name: 'No Number' }))).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'code',
    });
    expect(field(() => outbox.createSupplier(profileId, { name: 'X', code: taken.number }))).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'code',
    });
    expect(field(() => outbox.createSupplier(profileId, { name: ' ', code: 'A' })).field).toBe('name');
    expect(field(() => outbox.updateSupplier(profileId, taken.id, { status: 'GONE' })).field).toBe('status');
    expect(field(() => outbox.updateSupplier(profileId, taken.id, { colour: 'red' })).field).toBe('colour');
    const dimension = setup.sandbox.state.dimensions.find(
      (d) => d.status === 'ACTIVE' && !d.id.startsWith('00000000'),
    )!;
    const other = setup.sandbox.state.dimensions.find((d) => d.id !== dimension.id)!;
    expect(field(() => outbox.updateDimension(profileId, dimension.id, { code: other.code })).field).toBe(
      'code',
    );
    expect(field(() => outbox.updateDimension(profileId, dimension.id, { status: 'ACTIVE!' })).field).toBe(
      'status',
    );
    expect(field(() => outbox.createDimensionItem(profileId, dimension.id, { name: 'No code' })).field).toBe(
      'code',
    );
    // Under ERP numbering a supplier create must not carry a code, and needs none.
    outbox.setSupplierNumbering(profileId, 'erp');
    expect(outbox.supplierNumbering(profileId)).toBe('erp');
    expect(field(() => outbox.createSupplier(profileId, { name: 'Y', code: 'Y-1' })).field).toBe('code');
    expect(outbox.createSupplier(profileId, { name: 'ERP Numbered' }).record.number).toBe('ERP Numbered');
    expect(outbox.list(profileId)).toHaveLength(1);
  });

  it('leaves a 400 on the edit as failed with the field; edited, it goes through', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const created = outbox.createSupplier(profileId, { name: 'Twice GmbH', code: 'DUP-1' });
    // Someone else takes the code on the server before the push.
    expect((await setup.api('POST', '/v1/suppliers', { name: 'First', code: 'DUP-1' })).status).toBe(201);
    const later = outbox.updateSupplier(profileId, created.recordId, { vatIdNo: 'DE100000004' });

    const summary = await outbox.push(profileId);
    expect(summary).toMatchObject({ sent: 0, failed: 1, remaining: 1 });
    const [failed, waiting] = outbox.list(profileId);
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      // The API's own code kept beside the app's, for the window and the CLI to show.
      error: { code: 'REMOTE_REJECTED', field: 'code', remoteCode: 'DUPLICATE_CODE' },
    });
    expect(waiting).toMatchObject({ operationId: later.operationId, status: 'pending' });
    expect(row(setup.cache, 'suppliers', created.recordId)?.local_edit_pending).toBe(1);

    // Retrying unchanged fails the same way; a new code succeeds.
    outbox.retry(profileId, failed!.operationId);
    expect((await outbox.push(profileId)).failed).toBe(1);
    const edited = outbox.edit(profileId, failed!.operationId, { name: 'Twice GmbH', code: 'DUP-2' });
    expect(edited.status).toBe('pending');
    expect(row(setup.cache, 'suppliers', created.recordId)?.number).toBe('DUP-2');
    expect(await outbox.push(profileId)).toEqual({ sent: 2, failed: 0, conflicts: 0, remaining: 0 });
    expect(setup.sandbox.state.suppliers.filter((s) => s.number === 'DUP-2')).toHaveLength(1);
  });

  it('reports a missing code the server requires on the field (numbering set wrongly here)', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    outbox.setSupplierNumbering(profileId, 'erp');
    const created = outbox.createSupplier(profileId, { name: 'Needs A Number' });
    const summary = await outbox.push(profileId);
    expect(summary.failed).toBe(1);
    expect(outbox.list(profileId)[0]).toMatchObject({
      status: 'failed',
      error: { field: 'code', remoteCode: 'CODE_REQUIRED' },
    });
    // Discarding the create removes the local record.
    outbox.discard(profileId, outbox.list(profileId)[0]!.operationId);
    expect(row(setup.cache, 'suppliers', created.recordId)).toBeUndefined();
    expect(outbox.list(profileId)).toEqual([]);
  });

  it('turns a newer server version into a conflict, resolved as mine, theirs or merged', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const control = setup.sandbox.control!;
    const [a, b, c] = setup.sandbox.state.suppliers.slice(10, 13).map((s) => ({ ...s }));
    outbox.updateSupplier(profileId, a!.id, { name: 'Mine A' });
    outbox.updateSupplier(profileId, b!.id, { name: 'Mine B' });
    outbox.updateSupplier(profileId, c!.id, { name: 'Mine C', vatIdNo: 'DE100000001' });
    for (const s of [a, b, c])
      control.updateSupplier(s!.id, { name: `Theirs ${s!.id.slice(0, 4)}`, vatIdNo: 'DE-THEIRS' });

    const summary = await outbox.push(profileId);
    expect(summary).toMatchObject({ sent: 0, conflicts: 3, remaining: 0 });
    const conflicts = outbox.list(profileId);
    expect(conflicts.map((i) => i.status)).toEqual(['conflict', 'conflict', 'conflict']);
    expect(conflicts[0]!.server).toMatchObject({ id: a!.id, vatIdNo: 'DE-THEIRS' });
    // The cache still shows the user's edits meanwhile.
    expect(row(setup.cache, 'suppliers', a!.id)?.name).toBe('Mine A');

    outbox.resolve(profileId, conflicts[0]!.operationId, 'mine');
    expect(outbox.resolve(profileId, conflicts[1]!.operationId, 'theirs')).toBeNull();
    const theirsB = setup.sandbox.state.suppliers.find((s) => s.id === b!.id)!;
    expect(row(setup.cache, 'suppliers', b!.id)).toMatchObject({ raw: theirsB, local_edit_pending: 0 });
    outbox.resolve(profileId, conflicts[2]!.operationId, {
      merged: { name: 'Mine C', vatIdNo: 'DE-THEIRS' },
    });

    expect(await outbox.push(profileId)).toEqual({ sent: 2, failed: 0, conflicts: 0, remaining: 0 });
    const server = (id: string) => setup.sandbox.state.suppliers.find((s) => s.id === id)!;
    expect(server(a!.id)).toMatchObject({ name: 'Mine A', vatIdNo: 'DE-THEIRS' });
    expect(server(b!.id).name).toMatch(/^Theirs/);
    expect(server(c!.id)).toMatchObject({ name: 'Mine C', vatIdNo: 'DE-THEIRS' });
    for (const s of [a, b, c]) expect(row(setup.cache, 'suppliers', s!.id)?.raw).toEqual(server(s!.id));
  });

  it('taking theirs moves later edits of the record onto it, unless the colleague changed their fields', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const control = setup.sandbox.control!;
    const [p, q] = setup.sandbox.state.suppliers.slice(14, 16).map((s) => ({ ...s }));
    const server = (id: string) => setup.sandbox.state.suppliers.find((s) => s.id === id)!;
    outbox.updateSupplier(profileId, p!.id, { name: 'Mine P' });
    outbox.updateSupplier(profileId, q!.id, { name: 'Mine Q' });
    // Q's second edit is made before the push, on the field the colleague changes too.
    outbox.updateSupplier(profileId, q!.id, { vatIdNo: 'DE100000002' });
    control.updateSupplier(p!.id, { name: 'Theirs P' });
    control.updateSupplier(q!.id, { name: 'Theirs Q', vatIdNo: 'DE-THEIRS-Q' });
    expect(await outbox.push(profileId)).toMatchObject({ sent: 0, conflicts: 2 });
    // A sync meets the colleague's versions; P's second edit is made while its conflict is open.
    expect((await setup.sync()).outcome).toBe('succeeded');
    const later = outbox.updateSupplier(profileId, p!.id, { vatIdNo: 'DE100000003' });
    const conflicts = outbox.list(profileId).filter((item) => item.status === 'conflict');
    expect(conflicts.map((item) => item.recordId)).toEqual([p!.id, q!.id]);

    for (const conflict of conflicts) outbox.resolve(profileId, conflict.operationId, 'theirs');
    // P's later edit now builds on the version taken; Q's still on the one it was made on.
    const waiting = outbox.list(profileId);
    expect(waiting.find((item) => item.operationId === later.operationId)?.basedOn).toBe(
      server(p!.id).updateTime,
    );
    expect(row(setup.cache, 'suppliers', p!.id)).toMatchObject({
      name: 'Theirs P',
      vat_id_no: 'DE100000003',
    });

    expect(await outbox.push(profileId)).toEqual({ sent: 1, failed: 0, conflicts: 1, remaining: 0 });
    expect(server(p!.id)).toMatchObject({ name: 'Theirs P', vatIdNo: 'DE100000003' });
    expect(server(q!.id)).toMatchObject({ name: 'Theirs Q', vatIdNo: 'DE-THEIRS-Q' });
    const [left] = outbox.list(profileId);
    expect(left).toMatchObject({ recordId: q!.id, status: 'conflict', payload: { vatIdNo: 'DE100000002' } });
  });

  // Every resolution settles later edits of the record the same way: one on a field the
  // colleague left alone goes onto the server's version and is sent; one on a field the
  // colleague changed is met as a conflict of its own, and the colleague's value stays. The
  // state is all in the outbox rows, so a restart between resolving and pushing changes nothing.
  it.each([
    { resolution: 'mine', restart: false },
    { resolution: 'mine', restart: true },
    { resolution: 'merged', restart: false },
    { resolution: 'merged', restart: true },
    { resolution: 'theirs', restart: true },
  ] as const)(
    'settled with $resolution (restart: $restart), later edits are sent or met as conflicts by field',
    async ({ resolution, restart }) => {
      const setup = await synced();
      const { profileId } = setup;
      const control = setup.sandbox.control!;
      const supplier = { ...setup.sandbox.state.suppliers[17]! };
      const server = () => setup.sandbox.state.suppliers.find((s) => s.id === supplier.id)!;
      const first = setup.outbox.updateSupplier(profileId, supplier.id, { name: 'Mine' });
      // Made on the same version before the push: one on a field the colleague leaves alone,
      // then one on a field the colleague changes too.
      const other = setup.outbox.updateSupplier(profileId, supplier.id, { iban: 'DE02120300000000202051' });
      const touched = setup.outbox.updateSupplier(profileId, supplier.id, { vatIdNo: 'DE100000001' });
      control.updateSupplier(supplier.id, { name: 'Theirs', vatIdNo: 'DE-THEIRS' });
      expect(await setup.outbox.push(profileId)).toMatchObject({ sent: 0, conflicts: 1 });
      expect(setup.outbox.list(profileId)[0]).toMatchObject({
        operationId: first.operationId,
        status: 'conflict',
      });

      const taken = server().updateTime;
      const settled = {
        mine: 'mine' as const,
        merged: { merged: { name: 'Merged' } },
        theirs: 'theirs' as const,
      }[resolution];
      setup.outbox.resolve(profileId, first.operationId, settled);
      const basedOn = (operationId: string) =>
        setup.outbox.list(profileId).find((item) => item.operationId === operationId)?.basedOn;
      expect(basedOn(other.operationId)).toBe(taken);
      expect(basedOn(touched.operationId)).toBe(supplier.updateTime);
      if (restart) setup.restart();
      const { outbox } = setup;

      // The resolved edit goes first (unless taken theirs), then the later one on the other
      // field; the one on the colleague's field is a conflict, showing the server's side.
      expect(await outbox.push(profileId)).toEqual({
        sent: resolution === 'theirs' ? 1 : 2,
        failed: 0,
        conflicts: 1,
        remaining: 0,
      });
      const name = { mine: 'Mine', merged: 'Merged', theirs: 'Theirs' }[resolution];
      expect(server()).toMatchObject({ name, iban: 'DE02120300000000202051', vatIdNo: 'DE-THEIRS' });
      const [left, ...rest] = outbox.list(profileId);
      expect(rest).toEqual([]);
      expect(left).toMatchObject({
        operationId: touched.operationId,
        status: 'conflict',
        payload: { vatIdNo: 'DE100000001' },
        error: { code: 'CONFLICT' },
        server: { id: supplier.id, name, vatIdNo: 'DE-THEIRS' },
      });
      // Meanwhile the cache shows the user's edit; taking theirs leaves the server's record.
      expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({ vat_id_no: 'DE100000001' });
      outbox.resolve(profileId, touched.operationId, 'theirs');
      expect(outbox.list(profileId)).toEqual([]);
      expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
        raw: server(),
        local_edit_pending: 0,
      });
    },
  );

  it("a later edit of a field a resolution settled is sent when the user kept their value, asked when they took the colleague's", async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const [a, b, c] = setup.sandbox.state.suppliers.slice(20, 23).map((s) => ({ ...s }));
    const server = (id: string) => setup.sandbox.state.suppliers.find((s) => s.id === id)!;
    const firsts = [a!, b!, c!].map((s) => outbox.updateSupplier(profileId, s.id, { name: `Mine ${s.id}` }));
    const laters = [a!, b!, c!].map((s) => outbox.updateSupplier(profileId, s.id, { name: `Later ${s.id}` }));
    for (const s of [a!, b!, c!]) setup.sandbox.control!.updateSupplier(s.id, { name: `Theirs ${s.id}` });
    expect(await outbox.push(profileId)).toMatchObject({ sent: 0, conflicts: 3 });

    // Keeping mine, or merging to a name of one's own, makes the name the user's: the later
    // edit is the user's next change to it (say a typo fixed) and is sent. Merging to the
    // colleague's name takes theirs for that field: the later edit, made before the colleague's
    // name was seen, is asked about.
    outbox.resolve(profileId, firsts[0]!.operationId, 'mine');
    outbox.resolve(profileId, firsts[1]!.operationId, { merged: { name: `Theirs ${b!.id}` } });
    outbox.resolve(profileId, firsts[2]!.operationId, { merged: { name: `Merged ${c!.id}` } });
    expect(await outbox.push(profileId)).toEqual({ sent: 5, failed: 0, conflicts: 1, remaining: 0 });
    expect(server(a!.id).name).toBe(`Later ${a!.id}`);
    expect(server(b!.id).name).toBe(`Theirs ${b!.id}`);
    expect(server(c!.id).name).toBe(`Later ${c!.id}`);
    expect(outbox.list(profileId)).toMatchObject([
      { operationId: laters[1]!.operationId, status: 'conflict', server: { name: `Theirs ${b!.id}` } },
    ]);
  });

  it('an edit a colleague already made moves later edits on only where the colleague left their fields', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const supplier = setup.sandbox.state.suppliers[19]!;
    const server = () => setup.sandbox.state.suppliers.find((s) => s.id === supplier.id)!;
    outbox.updateSupplier(profileId, supplier.id, { name: 'Same Name' });
    outbox.updateSupplier(profileId, supplier.id, { iban: 'DE02120300000000202051' });
    const touched = outbox.updateSupplier(profileId, supplier.id, { vatIdNo: 'DE100000001' });
    // The colleague makes the first edit's change too, and changes the third edit's field.
    setup.sandbox.control!.updateSupplier(supplier.id, { name: 'Same Name', vatIdNo: 'DE-THEIRS' });

    // The first edit is found on the server, the second sent on top; the third is a conflict.
    expect(await outbox.push(profileId)).toEqual({ sent: 2, failed: 0, conflicts: 1, remaining: 0 });
    expect(server()).toMatchObject({
      name: 'Same Name',
      iban: 'DE02120300000000202051',
      vatIdNo: 'DE-THEIRS',
    });
    expect(outbox.list(profileId)).toMatchObject([
      { operationId: touched.operationId, status: 'conflict', server: { vatIdNo: 'DE-THEIRS' } },
    ]);
  });

  it('discarding an update restores the server row', async () => {
    const setup = await synced();
    const { outbox, profileId } = setup;
    const supplier = setup.sandbox.state.suppliers[30]!;
    const original = row(setup.cache, 'suppliers', supplier.id)!;
    const first = outbox.updateSupplier(profileId, supplier.id, { name: 'Edit 1' });
    outbox.updateSupplier(profileId, supplier.id, { vatIdNo: 'DE100000042' });
    expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
      name: 'Edit 1',
      vat_id_no: 'DE100000042',
    });
    outbox.discard(profileId, first.operationId);
    expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
      name: original.name,
      vat_id_no: 'DE100000042',
    });
    outbox.discard(profileId, outbox.list(profileId)[0]!.operationId);
    expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
      raw: original.raw,
      local_edit_pending: 0,
    });
  });

  it('a discard brings back the newest server version a sync met while the edit waited', async () => {
    // The sandbox's clock, moved back so that the server's changes fall behind the next
    // high-water mark (which stays ten minutes behind the sync's start).
    let offset = 0;
    const setup = await outboxSetup(tempDir(), { now: () => Date.now() + offset });
    setups.push(setup);
    expect((await setup.sync()).outcome).toBe('succeeded');
    const { outbox, profileId } = setup;
    const control = setup.sandbox.control!;
    const [s, t, u] = setup.sandbox.state.suppliers.slice(30, 33);
    // T edited and pushed into a conflict; then S edited offline, its edit still waiting.
    outbox.updateSupplier(profileId, t!.id, { name: 'Mine T' });
    offset = -90 * 60_000;
    control.updateSupplier(t!.id, { vatIdNo: 'DE-FIRST' });
    expect(await outbox.push(profileId)).toMatchObject({ conflicts: 1 });
    const conflict = outbox.list(profileId).find((item) => item.status === 'conflict')!;
    const edit = outbox.updateSupplier(profileId, s!.id, { name: 'My offline name' });
    offset = -60 * 60_000;
    // Colleagues change S and T again, and later another supplier: the next sync's mark
    // moves past S's and T's new versions, which it leaves alone for the waiting edits.
    control.updateSupplier(s!.id, { vatIdNo: 'DE-COLLEAGUE' });
    control.updateSupplier(t!.id, { vatIdNo: 'DE-SECOND' });
    offset = -30 * 60_000;
    control.updateSupplier(u!.id, { vatIdNo: 'DE-OTHER' });
    offset = 0;
    expect((await setup.sync()).outcome).toBe('succeeded');
    expect(row(setup.cache, 'suppliers', s!.id)).toMatchObject({
      name: 'My offline name',
      local_edit_pending: 1,
    });

    outbox.discard(profileId, edit.operationId);
    outbox.resolve(profileId, conflict.operationId, 'theirs');
    const server = (id: string) => setup.sandbox.state.suppliers.find((x) => x.id === id)!;
    for (const id of [s!.id, t!.id])
      expect(row(setup.cache, 'suppliers', id)).toMatchObject({ raw: server(id), local_edit_pending: 0 });
    expect((await setup.sync()).outcome).toBe('succeeded');
    expect(row(setup.cache, 'suppliers', s!.id)).toMatchObject({ vat_id_no: 'DE-COLLEAGUE' });
    expect(row(setup.cache, 'suppliers', t!.id)).toMatchObject({ vat_id_no: 'DE-SECOND' });
  });

  it('sends nothing when the caller cannot record the attempt, and gives its permit back', async () => {
    // Windows of 2 s, so that the test sees the bucket of the next window as the client learns it.
    const setup = await outboxSetup(tempDir(), { windowSeconds: 2 });
    setups.push(setup);
    const control = setup.sandbox.control!;
    const create = (code: string, beforeSend?: () => void) =>
      setup.client.request({
        method: 'POST',
        path: '/v1/suppliers',
        body: { name: `Bucket ${code}`, code },
        schema: z.object({ id: z.string() }),
        idempotent: false,
        ...(beforeSend ? { beforeSend } : {}),
      });
    await create('BUCKET-1');
    const refusal = new Error('the cache refused the write');
    // The caller's own failure comes back as it is (not as a network error), and nothing left.
    await expect(
      create('BUCKET-2', () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(control.requests('createSupplier')).toHaveLength(1);

    // In the next window the client takes the server's count, less what it still has in
    // flight: nothing, if the refused attempt's permit was settled.
    const resetAt = setup.client.governor.bucket('write')!.resetAt.getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetAt - Date.now()) + 300));
    await create('BUCKET-3');
    expect(control.requests('createSupplier')).toHaveLength(2);
    const bucket = setup.client.governor.bucket('write')!;
    expect(bucket.resetAt.getTime()).toBeGreaterThan(resetAt);
    expect(bucket.remaining).toBe(bucket.limit - 1);
  });

  it('a create whose answer was lost is found, not created twice, also after a restart', async () => {
    const setup = await synced();
    const control = setup.sandbox.control!;
    setup.outbox.createSupplier(setup.profileId, { name: 'Exactly Once AG', code: 'ONCE-1' });
    setup.outbox.createDimension(setup.profileId, { name: 'Once', code: 'ONCE' });
    control.addFault({ match: 'createSupplier', dropAfterHandling: true, times: 1 });

    const lost = await setup.outbox.push(setup.profileId);
    expect(lost.stoppedBy?.code).toBe('CONNECTION_RESET'); // connected, the answer lost
    expect(setup.sandbox.state.suppliers.filter((s) => s.number === 'ONCE-1')).toHaveLength(1);
    // Maybe sent, with nobody sending it: interrupted, and looked up before it goes again.
    expect(setup.outbox.list(setup.profileId)[0]).toMatchObject({ status: 'interrupted', attempts: 1 });

    setup.restart();
    // Any second POST of the supplier would now fail the push: it must be looked up instead.
    control.addFault({ match: 'createSupplier', status: 500 });
    const summary = await setup.outbox.push(setup.profileId);
    expect(summary).toEqual({ sent: 2, failed: 0, conflicts: 0, remaining: 0 });
    const server = setup.sandbox.state.suppliers.filter((s) => s.number === 'ONCE-1');
    expect(server).toHaveLength(1);
    expect(row(setup.cache, 'suppliers', server[0]!.id)?.raw).toEqual(server[0]);
  });

  it('a lost create is found past the first page of a list answer that has no page metadata', async () => {
    // The sandbox's clock runs with the real one, moved on by hand where the order matters.
    let ahead = 0;
    const setup = await outboxSetup(tempDir(), { now: () => Date.now() + ahead });
    setups.push(setup);
    expect((await setup.sync()).outcome).toBe('succeeded');
    const control = setup.sandbox.control!;
    // More than a page of suppliers changed within the lookup's day, all listed before the new
    // one (lists are in update order, and the new one is made a second later).
    for (const supplier of setup.sandbox.state.suppliers.slice(0, 120))
      control.updateSupplier(supplier.id, { vatIdNo: `DE${supplier.number}` });
    ahead = 2_000;
    setup.outbox.createSupplier(setup.profileId, { name: 'Past Page One AG', code: 'PAGE-2' });
    control.addFault({ match: 'createSupplier', dropAfterHandling: true, times: 1 });
    const lost = await setup.outbox.push(setup.profileId);
    expect(lost.stoppedBy?.code).toBe('CONNECTION_RESET'); // connected, the answer lost
    expect(setup.outbox.list(setup.profileId)[0]).toMatchObject({ status: 'interrupted' });

    // A server that leaves `meta` out of its lists: a full page is not the last one. A second
    // POST would meet an injected 500 (and, on a real server, create the supplier twice).
    control.addFault({ match: 'listSuppliers', omitListMeta: true });
    control.addFault({ match: 'createSupplier', status: 500 });
    control.clearRequests();
    const summary = await setup.outbox.push(setup.profileId);
    expect(summary).toEqual({ sent: 1, failed: 0, conflicts: 0, remaining: 0 });
    expect(control.requests('listSuppliers')).toHaveLength(2);
    expect(control.requests('createSupplier')).toHaveLength(0);
    expect(setup.sandbox.state.suppliers.filter((s) => s.number === 'PAGE-2')).toHaveLength(1);
  });

  it('edits survive closing and reopening the cache, and sync never overwrites them', async () => {
    const setup = await synced();
    const { profileId } = setup;
    const supplier = setup.sandbox.state.suppliers[40]!;
    const dimension = setup.sandbox.state.dimensions.find(
      (d) => d.status === 'ACTIVE' && !d.id.startsWith('00000000'),
    )!;
    setup.outbox.updateSupplier(profileId, supplier.id, { name: 'Kept Across Restarts' });
    setup.outbox.updateDimension(profileId, dimension.id, { name: 'Local Name' });
    const created = setup.outbox.createSupplier(profileId, { name: 'New Here', code: 'NEW-1' });
    setup.restart();
    expect(setup.outbox.list(profileId).map((i) => i.status)).toEqual(['pending', 'pending', 'pending']);

    // The server changes both records; a sync must leave the edited rows alone.
    setup.sandbox.control!.updateSupplier(supplier.id, { vatIdNo: 'DE-SERVER' });
    const summary = await setup.sync();
    expect(summary.outcome).toBe('succeeded');
    expect(row(setup.cache, 'suppliers', supplier.id)).toMatchObject({
      name: 'Kept Across Restarts',
      local_edit_pending: 1,
    });
    expect(row(setup.cache, 'suppliers', supplier.id)?.vat_id_no).not.toBe('DE-SERVER');
    expect(row(setup.cache, 'dimensions', dimension.id)).toMatchObject({
      name: 'Local Name',
      deleted_at: null,
    });
    expect(row(setup.cache, 'suppliers', created.recordId)).toMatchObject({
      name: 'New Here',
      deleted_at: null,
    });
  });
});
