import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { parseMoney } from '../../src-shared/money';
import { createApiClient } from '../../src-main/api/client';
import { defaultMigrationsDir, openCache, syncCheckpoints } from '../../src-main/store';
import { writeTransactions } from '../../src-main/sync/bank-transactions';
import { runSync } from '../../src-main/sync/engine';
import { allResources } from '../../src-main/sync/resources';
import type { WireBankTransaction } from '../../src-main/sync/wire';
import { startSandbox } from '../../src-sandbox';

/**
 * Sync engine figures:
 * - rows per second of the engine's page write (upsert, fees, FTS triggers, checkpoint, one
 *   transaction per 100-row page) against the raw better-sqlite3 ceiling measured in the same
 *   run (a prepared INSERT into a bare table with the same columns, same page size);
 * - requests per second a full sync achieves against what a fast rate-limit window allows,
 *   and how many 429s it earned (target: at least 90% of the allowance, none).
 */

const ROWS = 100_000;
const PAGE = 100;

function syntheticTransactions(count: number): WireBankTransaction[] {
  const records: WireBankTransaction[] = [];
  for (let i = 0; i < count; i += 1) {
    const hex = i.toString(16).padStart(12, '0');
    records.push({
      id: `00000000-0000-4000-8000-${hex}`,
      bankAccountId: '00000000-0000-4000-8000-aaaaaaaaaaaa',
      organisationId: '00000000-0000-4000-8000-bbbbbbbbbbbb',
      transactionType: 'CARD',
      amount: { amount: `-${(i % 9000) + 1}.${String(i % 100).padStart(2, '0')}`, currency: 'EUR' },
      bookingDate: `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      valueDate: '2025-06-01',
      description: `Card payment ${i}`,
      counterparty:
        ['Lufthansa', 'Deutsche Bahn', 'Staples', 'Hotel Adlon', 'Amazon Web Services'][i % 5] ?? 'Shop',
      fees: i % 4 === 0 ? [{ feeType: 'FX_FEE', amount: { amount: '-0.35', currency: 'EUR' } }] : [],
      groupId: `00000000-0000-4000-8000-${(i >> 2).toString(16).padStart(12, '0')}`,
      bankAccountNumber: 'DE89370400440532013000',
      matched: i % 10 < 7,
      createTime: '2025-06-01T10:00:00Z',
      updateTime: '2025-06-01T10:00:00Z',
    });
  }
  return records;
}

function engineWriteRate(dir: string, records: WireBankTransaction[]): number {
  const cache = openCache(path.join(dir, 'engine.sqlite'), { migrationsDir: defaultMigrationsDir() });
  const started = performance.now();
  for (let start = 0; start < records.length; start += PAGE) {
    const page = records.slice(start, start + PAGE);
    const syncedAt = new Date().toISOString();
    cache.db.transaction((tx) => {
      writeTransactions(cache.sqlite, page, syncedAt);
      const checkpoint = {
        resource: 'bankTransactions',
        cursor: JSON.stringify({ page: start / PAGE + 1 }),
        updatedAt: syncedAt,
      };
      tx.insert(syncCheckpoints)
        .values(checkpoint)
        .onConflictDoUpdate({ target: syncCheckpoints.resource, set: checkpoint })
        .run();
    });
  }
  const seconds = (performance.now() - started) / 1000;
  cache.close();
  return records.length / seconds;
}

/**
 * The raw ceiling: hand-written prepared INSERTs with better-sqlite3, same page size. On a
 * bare table it is the absolute ceiling; on the cache's own table (its indexes and the FTS
 * triggers included) it is the ceiling for what the engine does, and the fair comparison.
 */
function rawInsertRate(dir: string, records: WireBankTransaction[], schema: 'bare' | 'cache'): number {
  let db: Database.Database;
  let close: () => void;
  if (schema === 'cache') {
    const cache = openCache(path.join(dir, 'raw-cache.sqlite'), { migrationsDir: defaultMigrationsDir() });
    db = cache.sqlite;
    close = () => cache.close();
  } else {
    db = new Database(path.join(dir, 'raw.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE bank_transactions (id TEXT, bank_account_id TEXT, organisation_id TEXT, transaction_type TEXT,
      amount_minor INTEGER, amount_currency TEXT, booking_date TEXT, value_date TEXT, description TEXT, counterparty TEXT,
      group_id TEXT, bank_account_number TEXT, matched INTEGER, create_time TEXT, update_time TEXT, raw TEXT, synced_at TEXT)`);
    close = () => db.close();
  }
  const insert =
    db.prepare(`INSERT INTO bank_transactions (id, bank_account_id, organisation_id, transaction_type,
    amount_minor, amount_currency, booking_date, value_date, description, counterparty, group_id, bank_account_number,
    matched, create_time, update_time, raw, synced_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const page = db.transaction((rows: WireBankTransaction[], syncedAt: string) => {
    for (const r of rows) {
      insert.run(
        r.id,
        r.bankAccountId,
        r.organisationId,
        r.transactionType,
        parseMoney(r.amount).minor,
        r.amount.currency,
        r.bookingDate,
        r.valueDate,
        r.description,
        r.counterparty,
        r.groupId,
        r.bankAccountNumber,
        r.matched ? 1 : 0,
        r.createTime,
        r.updateTime,
        JSON.stringify(r),
        syncedAt,
      );
    }
  });
  const started = performance.now();
  for (let start = 0; start < records.length; start += PAGE)
    page(records.slice(start, start + PAGE), new Date().toISOString());
  const seconds = (performance.now() - started) / 1000;
  close();
  return records.length / seconds;
}

async function requestRate(dir: string) {
  const windowSeconds = 4;
  const readLimit = 60;
  const sandbox = await startSandbox({ port: 0, seed: 9, transactions: 20_000, readLimit, windowSeconds });
  const cache = openCache(path.join(dir, 'sync.sqlite'), { migrationsDir: defaultMigrationsDir() });
  const statuses: number[] = [];
  const client = createApiClient({
    baseUrl: sandbox.url,
    credentials: async () => ({
      kind: 'client',
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
    }),
    onResponse: ({ status }) => statuses.push(status),
  });
  const started = performance.now();
  const summary = await runSync({ cache, client, resources: allResources });
  const seconds = (performance.now() - started) / 1000;
  cache.close();
  await sandbox.stop();
  const allowedPerSecond = readLimit / windowSeconds;
  return {
    outcome: summary.outcome,
    requests: statuses.length,
    achievedPerSecond: statuses.length / seconds,
    allowedPerSecond,
    rateLimited: statuses.filter((status) => status === 429).length,
  };
}

export default async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bench-sync-'));
  try {
    const records = syntheticTransactions(ROWS);
    const bare = rawInsertRate(dir, records, 'bare');
    const raw = rawInsertRate(dir, records, 'cache');
    const engine = engineWriteRate(dir, records);
    const requests = await requestRate(dir);
    return {
      rows: ROWS,
      rawInsertBareTableRowsPerSecond: Math.round(bare),
      rawInsertCacheSchemaRowsPerSecond: Math.round(raw),
      engineWriteRowsPerSecond: Math.round(engine),
      engineShareOfRawCacheSchema: `${Math.round((engine / raw) * 100)}% (target ≥ 50%)`,
      engineShareOfBareTable: `${Math.round((engine / bare) * 100)}%`,
      syncOutcome: requests.outcome,
      syncRequests: requests.requests,
      requestsPerSecond: Number(requests.achievedPerSecond.toFixed(1)),
      allowedRequestsPerSecond: requests.allowedPerSecond,
      shareOfRateLimit: `${Math.round((requests.achievedPerSecond / requests.allowedPerSecond) * 100)}% (target ≥ 90%)`,
      responses429: requests.rateLimited,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await run());
