import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandNames, commands, type CommandInput, type CommandName } from '../../src-shared/ipc';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { useTempDirs } from '../helpers/temp-dir';

// 1,000 malformed payloads per command through the real handler table of a real core: each
// is refused with a validation error, nothing is written, and the core keeps answering. The
// well-formed ones that name a path no dialog picked are refused as well.

const secrets = createKeychainSecrets({ service: `Satchel-fuzz-${randomUUID()}` });
const tempDir = useTempDirs();
afterEach(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

const uuid = '6f1c2b1e-3c1d-4f7a-9a53-0c8e4b1d2a77';

/** One valid input per command; the compiler asks for a sample when a command is added. */
const samples: { [C in CommandName]: CommandInput<C> } = {
  'app.info': {},
  'app.online': {},
  'dialog.pickFolder': { title: 'Download receipts to…' },
  'dialog.pickFile': { purpose: 'transactionsCsv', suggestedName: 'Transactions.csv' },
  'keychain.status': {},
  'profiles.list': {},
  'profiles.add': {
    name: 'Acme',
    baseUrl: 'https://api.acme.test',
    auth: { kind: 'client', clientId: 'kid_1', clientSecret: 'sk_1' },
  },
  'profiles.rename': { id: uuid, name: 'Acme 2' },
  'profiles.reauthenticate': { id: uuid, auth: { kind: 'token', accessToken: 'tok' } },
  'profiles.localWork': { id: uuid },
  'profiles.cacheStatus': { id: uuid },
  'profiles.rebuildCache': { id: uuid },
  'profiles.recheckCache': { id: uuid },
  'profiles.recoveryPlan': {},
  'profiles.recover': {},
  'profiles.remove': { id: uuid },
  'demo.open': {},
  'sync.start': { profileId: uuid, full: false },
  'sync.cancel': { profileId: uuid },
  'sync.history': { profileId: uuid, limit: 5 },
  'sync.rateLimits': { profileId: uuid },
  'transactions.search': { profileId: uuid, search: { filters: { freeText: 'hotel' } } },
  'transactions.position': {
    profileId: uuid,
    filters: { freeText: 'hotel' },
    sorting: { field: 'amount', direction: 'ASC' },
    id: 'tx-1',
  },
  'transactions.get': { profileId: uuid, id: 'tx-1' },
  'expenses.get': { profileId: uuid, id: 'ex-1' },
  'bankAccounts.list': { profileId: uuid },
  'expenses.search': { profileId: uuid, search: { filters: { text: 'taxi' } } },
  'suppliers.search': { profileId: uuid, search: {} },
  'expenseAccounts.list': { profileId: uuid },
  'dimensions.list': { profileId: uuid, search: { includeDeleted: true } },
  'dimensionItems.search': { profileId: uuid, search: { dimensionId: uuid, text: 'north' } },
  'review.apply': {
    profileId: uuid,
    target: { by: 'ids', kind: 'transaction', ids: [uuid] },
    change: { action: 'setReviewed' },
  },
  'review.attention': { profileId: uuid },
  'transactions.exportCsv': {
    profileId: uuid,
    search: { filters: { matched: false } },
    file: '/tmp/satchel-fuzz-never-written.csv',
    format: { locale: 'de-DE' },
  },
  'expenses.exportCsv': {
    profileId: uuid,
    search: { filters: { hasFile: false }, sorting: { field: 'amount', direction: 'ASC' } },
    file: '/tmp/satchel-fuzz-never-written.csv',
  },
  'export.cancel': { profileId: uuid, exportId: uuid },
  'review.export': { profileId: uuid, file: '/tmp/satchel-fuzz-never-written.json' },
  'review.import': { profileId: uuid, file: '/tmp/satchel-fuzz-never-read.json' },
  'review.undoImport': { profileId: uuid, importId: uuid },
  'review.cancel': { profileId: uuid, workId: uuid },
  'suppliers.create': { profileId: uuid, input: { name: 'Acme', code: 'S-1' } },
  'suppliers.update': { profileId: uuid, id: uuid, input: { name: 'Acme 2' } },
  'dimensions.create': { profileId: uuid, input: { name: 'Region', code: 'REG' } },
  'dimensions.update': { profileId: uuid, id: uuid, input: { status: 'INACTIVE' } },
  'dimensionItems.create': { profileId: uuid, dimensionId: uuid, input: { name: 'North', code: 'N' } },
  'dimensionItems.update': { profileId: uuid, dimensionId: uuid, id: uuid, input: { name: 'South' } },
  'edits.list': { profileId: uuid },
  'edits.push': { profileId: uuid },
  'edits.cancel': { profileId: uuid },
  'edits.retry': { profileId: uuid, operationId: uuid },
  'edits.edit': { profileId: uuid, operationId: uuid, input: { name: 'x' } },
  'edits.discard': { profileId: uuid, operationId: uuid },
  'edits.resolve': { profileId: uuid, operationId: uuid, resolution: 'mine' },
  'downloads.start': {
    profileId: uuid,
    scope: { by: 'transactionSearch', filters: { matched: true } },
    destination: '/tmp/satchel-fuzz-never-written',
    template: '{bookingDate}_{counterparty}',
    layout: 'month',
  },
  'downloads.defaultFolder': {},
  'downloads.pause': { profileId: uuid, jobId: uuid },
  'downloads.resume': { profileId: uuid, jobId: uuid },
  'downloads.cancel': { profileId: uuid, jobId: uuid },
  'downloads.retry': { profileId: uuid, jobId: uuid, fileIds: [uuid] },
  'downloads.check': { profileId: uuid, jobId: uuid },
  'downloads.openFolder': { profileId: uuid, jobId: uuid },
  'downloads.status': { profileId: uuid, jobId: uuid },
  'files.fetch': { profileId: uuid, fileId: uuid },
  'files.offlineScope.get': { profileId: uuid },
  'files.offlineScope.set': { profileId: uuid, scope: { mode: 'recent', days: 90, budgetBytes: 1_000_000 } },
};

/** A small deterministic PRNG, so a failure can be replayed. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const junk = (): unknown =>
    pick([
      () => null,
      () => undefined,
      () => Math.floor(random() * 1e9) - 5e8,
      () => random(),
      () => Number.NaN,
      () => 'x'.repeat(Math.floor(random() * 5000)),
      () => '',
      () => '../../etc/passwd',
      () => "'; DROP TABLE suppliers; --",
      () => true,
      () => [],
      () => [1, 'two', null],
      () => ({ nested: { deeper: [{}] } }),
      () => ({ __proto__: { polluted: true } }),
      () => new Array(50).fill('a'),
    ])();
  return (sample: Record<string, unknown>): unknown => {
    const keys = Object.keys(sample);
    switch (Math.floor(random() * 4)) {
      case 0:
        return junk();
      case 1:
        return {
          ...sample,
          [pick(['extra', '__proto__', 'constructor', 'secret', `k${Math.floor(random() * 99)}`])]: junk(),
        };
      case 2: {
        const key = keys.length > 0 ? pick(keys) : 'extra';
        return { ...sample, [key]: junk() };
      }
      default: {
        const copy: Record<string, unknown> = { ...sample };
        delete copy[pick(keys.length > 0 ? keys : ['x'])];
        copy[pick(['', ' ', 'name ', 'ID'])] = junk();
        return copy;
      }
    }
  };
}

function snapshot(dir: string): string {
  const entries: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const full = path.join(folder, name);
      const info = statSync(full);
      if (info.isDirectory()) walk(full);
      else
        entries.push(
          `${path.relative(dir, full)}:${info.size}:${readFileSync(full).toString('base64').slice(0, 200)}`,
        );
    }
  };
  walk(dir);
  return entries.join('\n');
}

describe('IPC fuzz', () => {
  it('refuses 1,000 malformed payloads per command, writes nothing and keeps answering', async () => {
    const dataDir = tempDir();
    const core = createCore({ dataDir, secrets });
    const handlers = createHandlers(core);
    const before = snapshot(dataDir);
    const mutate = generator(prng(20261122));

    for (const command of commandNames) {
      const schema = commands[command].input;
      let sent = 0;
      while (sent < 1000) {
        const payload = mutate(samples[command] as Record<string, unknown>);
        if (schema.safeParse(payload).success) continue; // only malformed payloads count
        const result = await dispatch(handlers, command, payload);
        expect(result.ok, `${command} accepted ${JSON.stringify(payload)?.slice(0, 200)}`).toBe(false);
        if (!result.ok) expect(result.error.code).toBe('VALIDATION_ERROR');
        sent += 1;
      }
    }

    // The well-formed samples that name a path: refused too, as no dialog picked it.
    for (const command of [
      'transactions.exportCsv',
      'expenses.exportCsv',
      'review.export',
      'review.import',
      'downloads.start',
    ] as const) {
      const result = await dispatch(handlers, command, samples[command]);
      expect(result, command).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    }
    for (const never of [
      'satchel-fuzz-never-written.csv',
      'satchel-fuzz-never-written.json',
      'satchel-fuzz-never-written',
    ])
      expect(existsSync(path.join('/tmp', never)), never).toBe(false);

    expect(snapshot(dataDir)).toBe(before);
    expect(await secrets.list()).toEqual([]);
    const info = await dispatch(handlers, 'app.info', {});
    expect(info.ok).toBe(true);
    expect({} as Record<string, unknown>).not.toHaveProperty('polluted');
    await core.close();
  });

  it('never repeats a secret it was given in a refusal, and stores none', async () => {
    const dataDir = tempDir();
    const core = createCore({ dataDir, secrets });
    const handlers = createHandlers(core);
    const before = snapshot(dataDir);
    const random = prng(20261123);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const secret = `sk_fuzz_${randomUUID().replaceAll('-', '')}`;
    const auths = (): unknown[] => [
      { kind: 'client', clientId: '', clientSecret: secret },
      { kind: 'client', clientId: ' ', clientSecret: secret },
      { kind: 'client', clientId: 42, clientSecret: secret },
      { kind: 'client', clientId: 'kid_1', clientSecret: secret.repeat(200) },
      { kind: 'token', accessToken: secret.repeat(400) },
      { kind: 'token', clientSecret: secret },
      { kind: 'bearer', accessToken: secret },
      { kind: secret, accessToken: secret },
      { clientId: 'kid_1', clientSecret: secret },
      secret,
      [secret],
    ];
    const good = { kind: 'client', clientId: 'kid_1', clientSecret: secret };
    const payloads = (): unknown[] => [
      { name: 'Acme', baseUrl: 'https://api.acme.test', auth: pick(auths()) },
      { name: 'Acme', baseUrl: `https://kid_1:${secret}@api.acme.test`, auth: good },
      { name: 'Acme', baseUrl: `https://api.acme.test/?key=${secret}`, auth: good },
      { name: 'Acme', baseUrl: secret, auth: good },
      { name: secret.repeat(10), baseUrl: 'https://api.acme.test', auth: pick(auths()) },
      { name: 'Acme', baseUrl: 'https://api.acme.test', auth: good, [pick(['secret', 'token'])]: secret },
    ];
    for (let sent = 0; sent < 1000; sent += 1) {
      const [command, input] =
        random() < 0.5
          ? (['profiles.add', pick(payloads())] as const)
          : (['profiles.reauthenticate', { id: pick([uuid, secret]), auth: pick(auths()) }] as const);
      const result = await dispatch(handlers, command, input);
      expect(result.ok, `${command} accepted ${JSON.stringify(input).slice(0, 200)}`).toBe(false);
      expect(JSON.stringify(result), command).not.toContain(secret);
    }
    expect(snapshot(dataDir)).toBe(before);
    expect(await secrets.list()).toEqual([]);
    await core.close();
  });
});
