import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppError } from '../../../src-shared/errors';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { searchTransactions } from '../../../src-main/search';
import { gramBlocksAreConsistent } from '../../../src-main/store';
import { readApi, readCache, sortById } from '../../helpers/api-snapshot';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// Real sandbox over HTTP, real keychain, real SQLite cache.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('first sync', () => {
  it('leaves the cache equal to the API, record by record, for every resource', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const summary = await setup.core.sync.sync(setup.profile.id);
    expect(summary.errors).toEqual([]);
    expect(summary.outcome).toBe('succeeded');

    const api = await readApi(setup.sandbox.url, setup.sandbox.clientId, setup.sandbox.clientSecret);
    const cache = readCache(setup.core.cacheOf(setup.profile.id));
    for (const [resource, records] of Object.entries(api)) {
      expect(records.length, resource).toBeGreaterThan(0);
      expect(cache[resource], resource).toEqual(sortById(records));
    }
    expect(summary.counts['bankTransactions']).toBe(api.bankTransactions.length);
  });

  it('stores money as integer minor units that add up to the API amounts', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await setup.core.sync.sync(setup.profile.id);
    const sqlite = setup.core.cacheOf(setup.profile.id).sqlite;
    const rows = sqlite
      .prepare(
        'SELECT raw, amount_minor, amount_currency, typeof(amount_minor) AS kind FROM bank_transactions',
      )
      .all() as Array<{
      raw: string;
      amount_minor: number;
      amount_currency: string;
      kind: string;
    }>;
    for (const row of rows) {
      expect(row.kind).toBe('integer');
      const amount = (JSON.parse(row.raw) as { amount: { amount: string; currency: string } }).amount;
      expect(amount.currency).toBe(row.amount_currency);
      expect(amount.amount.replace('.', '').replace(/^(-?)0+(?=\d)/, '$1')).toBe(String(row.amount_minor));
    }
    const fees = sqlite.prepare('SELECT count(*) AS n FROM bank_transaction_fees').get() as { n: number };
    expect(fees.n).toBeGreaterThan(0);
  });

  it('leaves the query planner statistics of what it wrote (searches plan by them)', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const sqlite = setup.core.cacheOf(setup.profile.id).sqlite;
    const stats = () =>
      (sqlite
        .prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
        .pluck()
        .get() as number) === 0
        ? []
        : (sqlite.prepare('SELECT tbl, idx, stat FROM sqlite_stat1').all() as Array<{
            tbl: string;
            idx: string | null;
            stat: string;
          }>);
    expect(stats()).toEqual([]);
    await setup.core.sync.sync(setup.profile.id);
    const transactions = sqlite.prepare('SELECT count(*) FROM bank_transactions').pluck().get() as number;
    const byIndex = new Map(stats().map((row) => [row.idx, row.stat]));
    // The account index with the free-text value, which only statistics keep SQLite from
    // choosing for every account filter, and the sort indexes; counted over every row.
    for (const index of [
      'bank_transactions_account_text_idx',
      'bank_transactions_account_idx',
      'bank_transactions_amount_idx',
      'bank_transactions_booking_date_idx',
    ])
      expect(byIndex.get(index)?.split(' ')[0], index).toBe(String(transactions));
  });

  it('leaves the gram blocks of what it wrote computed, and a failure to compute them costs nothing', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const sqlite = setup.core.cacheOf(setup.profile.id).sqlite;
    const stale = () => sqlite.prepare('SELECT count(*) FROM bank_transaction_gram_stale').pluck().get();
    // A cache that cannot store the bitmaps (as on a full disk): the run still succeeds, its
    // blocks stay stale, and short text is still found, row by row.
    sqlite.exec(`CREATE TRIGGER no_grams BEFORE INSERT ON bank_transaction_grams
                 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    const failed = await setup.core.sync.sync(setup.profile.id);
    expect(failed.outcome).toBe('succeeded');
    expect(stale()).toBeGreaterThan(0);
    const search = () =>
      searchTransactions(setup.core.cacheOf(setup.profile.id), {
        filters: { freeText: 'ub' },
        pagination: { page: 1, pageSize: 500 },
      }).totals?.count;
    const expected = sqlite
      .prepare(
        `SELECT count(*) FROM bank_transactions WHERE deleted_at IS NULL AND (id LIKE '%ub%'
           OR group_id LIKE '%ub%' OR counterparty LIKE '%ub%' OR bank_account_number LIKE '%ub%')`,
      )
      .pluck()
      .get() as number;
    expect(expected).toBeGreaterThan(0);
    expect(search()).toBe(expected);

    sqlite.exec('DROP TRIGGER no_grams');
    await setup.core.sync.sync(setup.profile.id);
    expect(stale()).toBe(0);
    expect(gramBlocksAreConsistent(sqlite)).toBe(true);
    expect(search()).toBe(expected);
  });

  it('keeps a history of runs and resumes nothing after a complete run', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await setup.core.sync.sync(setup.profile.id);
    const second = await setup.core.sync.sync(setup.profile.id);
    expect(second.outcome).toBe('succeeded');
    // Nothing changed upstream: the second run re-reads only the trailing window and the small lists.
    expect(second.counts['suppliers']).toBeLessThan(5);
    const history = setup.core.sync.history(setup.profile.id);
    expect(history.map((run) => run.outcome)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('connecting and secrets', () => {
  it('refuses wrong credentials when connecting, names the field, and keeps nothing', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await expect(
      setup.core.addProfile({
        name: 'Wrong key',
        baseUrl: setup.sandbox.url,
        auth: { kind: 'client', clientId: setup.sandbox.clientId, clientSecret: 'sk_not_the_secret' },
      }),
    ).rejects.toMatchObject({ code: 'AUTH_FAILED', field: 'auth' });
    expect(setup.core.profiles.list().map((profile) => profile.name)).toEqual(['Sandbox']);
    expect(await setup.secrets.list()).toEqual([`profile:${setup.profile.id}`]);
  });

  it('refuses an address that answers but not as the spend API, names the address, and keeps nothing', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    // A web server at the address (its home page for every request), and the API's own server
    // under a wrong path (no sign-in there).
    const page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body>Welcome</body></html>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => page.close(() => resolve())));
    const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const { clientId, clientSecret } = setup.sandbox;
    for (const [name, baseUrl, auth] of [
      ['Web page', pageUrl, { kind: 'client', clientId, clientSecret }],
      ['Web page, token', pageUrl, { kind: 'token', accessToken: 'tok_e2e' }],
      ['Wrong path', `${setup.sandbox.url}/nope`, { kind: 'client', clientId, clientSecret }],
    ] as const) {
      const refused = await setup.core.addProfile({ name, baseUrl, auth }).then(
        () => null,
        (error: unknown) => error as AppError,
      );
      expect(refused, name).toMatchObject({ code: 'VALIDATION_ERROR', field: 'baseUrl' });
      // Where, what answered there, and what to do.
      expect(refused?.message.startsWith(`${baseUrl} answers, but not as the spend API (`), name).toBe(true);
      expect(refused?.message.endsWith('). Check the address; nothing was added.'), name).toBe(true);
    }
    expect(setup.core.profiles.list().map((profile) => profile.name)).toEqual(['Sandbox']);
    expect(await setup.secrets.list()).toEqual([`profile:${setup.profile.id}`]);

    // No answer at all is not a wrong address: kept, to be checked by the first sync.
    const unreachable = await setup.core.addProfile({
      name: 'Unreachable',
      baseUrl: 'http://127.0.0.1:9',
      auth: { kind: 'client', clientId, clientSecret },
    });
    expect(setup.core.profiles.list().map((profile) => profile.id)).toContain(unreachable.id);
  });

  it('says whether a new connection or a new key could be checked, through IPC', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    const handlers = createHandlers(setup.core);
    const { clientId, clientSecret } = setup.sandbox;
    const auth = { kind: 'client', clientId, clientSecret } as const;

    // The API answers: checked.
    const added = await dispatch(handlers, 'profiles.add', {
      name: 'Answered',
      baseUrl: setup.sandbox.url,
      auth,
    });
    expect(added).toMatchObject({ ok: true, value: { name: 'Answered', checked: true } });
    const rekeyed = await dispatch(handlers, 'profiles.reauthenticate', { id: setup.profile.id, auth });
    expect(rekeyed).toMatchObject({ ok: true, value: { id: setup.profile.id, checked: true } });

    // Nothing answers (the server is down): kept, and the answer says it was not checked.
    const silent = await dispatch(handlers, 'profiles.add', {
      name: 'Silent',
      baseUrl: 'http://127.0.0.1:9',
      auth,
    });
    expect(silent).toMatchObject({ ok: true, value: { name: 'Silent', checked: false } });
    await setup.sandbox.stop();
    const offline = await dispatch(handlers, 'profiles.reauthenticate', { id: setup.profile.id, auth });
    expect(offline).toMatchObject({ ok: true, value: { id: setup.profile.id, checked: false } });
  });

  it('keeps the API secret and every access token out of the data folder and the IPC answers', async () => {
    const setup = await connectedCore(tempDir());
    cleanups.push(setup.close);
    await setup.core.sync.sync(setup.profile.id);
    const handlers = createHandlers(setup.core);
    const answers = await Promise.all([
      dispatch(handlers, 'profiles.list', {}),
      dispatch(handlers, 'sync.history', { profileId: setup.profile.id }),
      dispatch(handlers, 'app.info', {}),
      dispatch(handlers, 'sync.start', { profileId: setup.profile.id }),
    ]);
    const dataDir = setup.core.info().dataDir;
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    expect(files.length).toBeGreaterThan(1);
    const everything = [
      ...files.map((entry) => readFileSync(path.join(entry.parentPath, entry.name)).toString('latin1')),
      JSON.stringify(answers),
    ];
    for (const text of everything) {
      expect(text).not.toContain(setup.sandbox.clientSecret);
      expect(text).not.toMatch(/sbx_[A-Za-z0-9_-]{8,}/);
    }
  });
});
