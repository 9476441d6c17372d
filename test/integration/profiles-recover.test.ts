import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { applyReview } from '../../src-main/review';
import { createKeychainSecrets } from '../../src-main/secrets';
import type { RecoveryPlan, RecoveryResult } from '../../src-shared/profiles';
import { startSandbox } from '../../src-sandbox';
import { useTempDirs } from '../helpers/temp-dir';

// A list of organisations (profiles.json) that cannot be read, recovered from the offline copies
// that record their connection: set aside beside itself, never deleted; each organisation listed
// again under its id, its copy, unsent edits, review marks and keychain key found where they
// were; a file that cannot be tied to a connection named and left alone. Real SQLite files, the
// real sandbox, the real keychain.

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-recover-${randomUUID()}` });
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const account of await secrets.list()) await secrets.delete(account);
});

const now = () => new Date('2026-11-20T08:00:00Z');

/**
 * Two organisations synced: in the first a supplier edited unsent and a transaction reviewed;
 * the second's keychain entry gone. Then the list overwritten, and a file nobody can place left
 * in the caches folder.
 */
async function damagedList() {
  const sandbox = await startSandbox({ port: 0, seed: 7, transactions: 40 });
  stops.push(() => sandbox.stop());
  const dataDir = path.join(tempDir(), 'data');
  const core = createCore({ dataDir, secrets, clock: now });
  const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
  const acme = await core.addProfile({ name: 'Acme GmbH', baseUrl: sandbox.url, auth });
  const beta = await core.addProfile({ name: 'Beta AG', baseUrl: sandbox.url, auth });
  for (const profile of [acme, beta])
    expect((await core.sync.sync(profile.id, { full: false })).outcome).toBe('succeeded');
  // Renamed after its copy was first opened: the copy records the name it has now.
  core.profiles.rename(acme.id, 'Acme');
  const cache = core.cacheOf(acme.id);
  const transactionId = cache.sqlite
    .prepare('SELECT id FROM bank_transactions LIMIT 1')
    .pluck()
    .get() as string;
  applyReview(cache, { by: 'ids', kind: 'transaction', ids: [transactionId] }, { action: 'setReviewed' });
  const supplierId = sandbox.state.suppliers[0]!.id;
  core.outbox.updateSupplier(acme.id, supplierId, { name: 'Recovered Offline KG' });
  await core.close();
  await secrets.delete(`profile:${beta.id}`);
  const listFile = path.join(dataDir, 'profiles.json');
  const garbage = '{"version": 1, "profiles": [{"id": "' + acme.id + '", "na';
  writeFileSync(listFile, garbage);
  const stranger = path.join(dataDir, 'caches', 'copied-from-a-usb-stick.sqlite');
  writeFileSync(stranger, Buffer.alloc(4096, 0x42));
  return { sandbox, dataDir, acme, beta, listFile, garbage, stranger, transactionId, supplierId };
}

describe('recovering a damaged list of organisations', () => {
  it('lists both organisations again from their copies, with their work and their keys', async () => {
    const { sandbox, dataDir, acme, beta, listFile, garbage, stranger, transactionId, supplierId } =
      await damagedList();
    const core = createCore({ dataDir, secrets, clock: now });
    stops.push(() => core.close());
    const handlers = createHandlers(core);
    expect(() => core.profiles.list()).toThrow(/is damaged/);

    // What it will do, with nothing changed yet.
    const planned = await dispatch(handlers, 'profiles.recoveryPlan', {});
    if (!planned.ok) throw new Error(planned.error.message);
    const plan = planned.value as RecoveryPlan;
    expect(plan).toMatchObject({
      listFile,
      cachesFolder: path.join(dataDir, 'caches'),
      untied: ['copied-from-a-usb-stick.sqlite'],
      keychainProblem: null,
    });
    expect(plan.organisations).toEqual([
      expect.objectContaining({
        id: acme.id,
        name: 'Acme',
        baseUrl: sandbox.url,
        authKind: 'client',
        clientId: sandbox.clientId,
        file: `${acme.id}.sqlite`,
        keyFound: true,
        edits: 1,
        marks: 1,
      }),
      expect.objectContaining({ id: beta.id, name: 'Beta AG', keyFound: false, edits: 0, marks: 0 }),
    ]);
    expect(readFileSync(listFile, 'utf8')).toBe(garbage);

    const recovered = await dispatch(handlers, 'profiles.recover', {});
    if (!recovered.ok) throw new Error(recovered.error.message);
    const result = recovered.value as RecoveryResult;
    // The damaged list beside itself, as it was; a new one in its place.
    expect(path.dirname(result.setAside)).toBe(dataDir);
    expect(path.basename(result.setAside)).toBe('profiles.damaged-2026-11-20T08-00-00-000Z.json');
    expect(readFileSync(result.setAside, 'utf8')).toBe(garbage);
    expect(core.profiles.list().map((p) => [p.id, p.name, p.baseUrl])).toEqual([
      [acme.id, 'Acme', sandbox.url],
      [beta.id, 'Beta AG', sandbox.url],
    ]);
    // The file nobody can place: untouched where it was.
    expect(readFileSync(stranger)).toEqual(Buffer.alloc(4096, 0x42));
    expect(readdirSync(path.join(dataDir, 'caches'))).toContain('copied-from-a-usb-stick.sqlite');

    // The copy as it was: the edit waiting, the mark kept; the key reused, so the edit is sent.
    expect(core.localWork(acme.id)).toEqual({ edits: 1, marks: 1 });
    expect((await core.sync.sync(acme.id)).outcome).toBe('succeeded');
    expect(sandbox.state.suppliers.find((s) => s.id === supplierId)?.name).toBe('Recovered Offline KG');
    const reviewedAt = core
      .cacheOf(acme.id)
      .sqlite.prepare('SELECT reviewed_at FROM review_marks WHERE record_id = ?')
      .pluck()
      .get(transactionId);
    expect(reviewedAt).not.toBeNull();
    // No key: the way the app already says a key is missing, read offline meanwhile.
    await expect(core.profiles.credentials(beta.id)).rejects.toThrow(
      'The keychain has no credentials for "Beta AG". Enter the API key again in Settings (New key…)',
    );
    expect(core.cacheProblem(beta.id)).toBeNull();

    // A list that reads has nothing to recover.
    expect(await dispatch(handlers, 'profiles.recover', {})).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('nothing to recover') },
    });
  }, 60_000);

  it('starts an empty list when no copy records its connection, naming where the copies stay', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir, secrets, clock: now });
    stops.push(() => core.close());
    writeFileSync(path.join(dataDir, 'profiles.json'), '\0\0\0');
    const result = await core.recoverProfiles();
    expect(result).toMatchObject({ organisations: [], untied: [] });
    expect(core.profiles.list()).toEqual([]);
    expect(readFileSync(result.setAside, 'utf8')).toBe('\0\0\0');
  });
});
