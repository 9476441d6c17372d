import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { connectedCore } from '../helpers/sync-fixture';
import { useTempDirs } from '../helpers/temp-dir';

// The offline edit journey through the handler table the renderer uses: edit while the API
// is unreachable, see the edit pending, sync when it is back, see it on the server.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('offline edits over IPC', () => {
  it('keeps a supplier edit made offline and pushes it with the next sync', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const handlers = createHandlers(setup.core);
    const profileId = setup.profile.id;
    await dispatch(handlers, 'sync.start', { profileId });
    const supplier = setup.sandbox.state.suppliers[7];
    if (!supplier) throw new Error('the demo data has too few suppliers');

    await setup.sandbox.setReachable(false); // the network is gone: every connection refused
    const edited = await dispatch(handlers, 'suppliers.update', {
      profileId,
      id: supplier.id,
      input: { name: 'Müller & Söhne GmbH' },
    });
    expect(edited).toMatchObject({
      ok: true,
      value: { recordId: supplier.id, record: { name: 'Müller & Söhne GmbH' } },
    });
    const refused = await dispatch(handlers, 'suppliers.create', {
      profileId,
      input: { name: 'No code Ltd' },
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', field: 'code' } });

    const offline = await dispatch(handlers, 'sync.start', { profileId });
    expect(offline).toMatchObject({ ok: true, value: { outcome: 'failed' } });
    const pending = await dispatch(handlers, 'edits.list', { profileId });
    expect(pending).toMatchObject({
      ok: true,
      value: { items: [{ recordId: supplier.id, status: 'pending', operation: 'update' }] },
    });

    await setup.sandbox.setReachable(true); // back online
    const online = await dispatch(handlers, 'sync.start', { profileId });
    expect(online).toMatchObject({ ok: true, value: { outcome: 'succeeded' } });
    expect(await dispatch(handlers, 'edits.list', { profileId })).toEqual({ ok: true, value: { items: [] } });
    expect(setup.sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Müller & Söhne GmbH');
    const row = setup.core
      .cacheOf(profileId)
      .sqlite.prepare('SELECT name, local_edit_pending FROM suppliers WHERE id = ?')
      .get(supplier.id);
    expect(row).toEqual({ name: 'Müller & Söhne GmbH', local_edit_pending: 0 });
  });

  it('refuses a mistyped IBAN with the field named, takes an unusual VAT id, and renames a supplier whose synced IBAN is malformed', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const handlers = createHandlers(setup.core);
    const profileId = setup.profile.id;
    const [malformed, other] = setup.sandbox.state.suppliers.filter((s) => s.status === 'ACTIVE');
    if (!malformed || !other) throw new Error('the demo data has too few active suppliers');
    malformed.iban = 'DE00 1234 5678'; // as the server may hold it: no IBAN at all
    await dispatch(handlers, 'sync.start', { profileId });

    const refused = await dispatch(handlers, 'suppliers.update', {
      profileId,
      id: other.id,
      input: { iban: 'DE89 3704 0044 0532 0130 01' },
    });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        field: 'input.iban',
        message: "The IBAN's check digits do not match: a character is probably mistyped.",
      },
    });
    const badBic = await dispatch(handlers, 'suppliers.create', {
      profileId,
      input: { name: 'Typo AG', code: 'TYPO-1', bic: 'COBADEFFX' },
    });
    expect(badBic).toMatchObject({
      ok: false,
      error: { field: 'input.bic', message: 'A BIC has 8 or 11 characters; this one has 9.' },
    });
    expect(await dispatch(handlers, 'edits.list', { profileId })).toEqual({ ok: true, value: { items: [] } });

    // The IBAN the server holds is not the user's to fix before renaming the supplier.
    const renamed = await dispatch(handlers, 'suppliers.update', {
      profileId,
      id: malformed.id,
      input: { name: 'Renamed Bank GmbH' },
    });
    expect(renamed).toMatchObject({
      ok: true,
      value: { record: { name: 'Renamed Bank GmbH', iban: 'DE00 1234 5678' } },
    });
    // A typed IBAN is kept in its electronic form, and sent so.
    const fixed = await dispatch(handlers, 'suppliers.update', {
      profileId,
      id: other.id,
      input: { iban: 'de89 3704 0044 0532 0130 00' },
    });
    expect(fixed).toMatchObject({ ok: true, value: { record: { iban: 'DE89370400440532013000' } } });
    // A VAT id not in its EU prefix's format is no refusal (it may be no VAT id): kept as typed.
    const rfc = await dispatch(handlers, 'suppliers.create', {
      profileId,
      input: { name: 'Franco SA de CV', code: 'MX-1', vatIdNo: ' FRAN800101AB1 ' },
    });
    expect(rfc).toMatchObject({ ok: true, value: { record: { vatIdNo: 'FRAN800101AB1' } } });
    expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({
      ok: true,
      value: { outcome: 'succeeded' },
    });
    const server = (id: string) => setup.sandbox.state.suppliers.find((s) => s.id === id);
    expect(server(malformed.id)).toMatchObject({ name: 'Renamed Bank GmbH', iban: 'DE00 1234 5678' });
    expect(server(other.id)?.iban).toBe('DE89370400440532013000');
    const franco = setup.sandbox.state.suppliers.find((s) => s.name === 'Franco SA de CV');
    expect(franco?.vatIdNo).toBe('FRAN800101AB1');
  });
});
