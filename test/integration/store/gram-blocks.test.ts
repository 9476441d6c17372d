import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { searchTransactions } from '../../../src-main/search';
import { containsAny } from '../../../src-main/search/text';
import {
  gramBlocksAreConsistent,
  gramCandidates,
  openCache,
  defaultMigrationsDir,
  rebuildTransactionSearch,
  refreshGramBlocks,
  TEXT_TABLE,
  transactionSearchIsConsistent,
  type CacheDb,
} from '../../../src-main/store';
import { BLOCK_SHIFT } from '../../../src-main/store/gram-blocks';
import { bankTransactions } from '../../../src-main/store/schema';
import { createRandom } from '../../../src-sandbox/data/random';
import { transactionRow, useCaches, writeRandomTransactions } from './fixtures';

const caches = useCaches();

/** Counterparties from every corner of the folding rules: ASCII, umlauts, İ, the Kelvin sign, ß, emoji. */
const NAMES = [
  'Deutsche Bahn',
  'Büromarkt Müller GmbH',
  'BÜRO & Co.',
  'İstanbul Kebap',
  'Kelvin \u212Aühlung',
  'Straße 12',
  'Café ☕ 😀 Bar',
  'qx-Labs',
  "O'Brien & Sons",
  '50% Off_Sale',
  'Zz',
];

function seeded(rows: number, seed = 1): CacheDb {
  const cache = caches.open(caches.file());
  writeRandomTransactions(cache, rows, { names: NAMES, seed });
  return cache;
}

/** Row ids whose narrow text holds `needle` as the app's row test reads it, from every row. */
function scanned(cache: CacheDb, needle: string): number[] {
  const hit = containsAny(cache.sqlite, ['x.text'], needle, 'q');
  return cache.sqlite
    .prepare(`SELECT x.row_id FROM ${TEXT_TABLE} x WHERE ${hit.sql} ORDER BY x.row_id`)
    .pluck()
    .all(hit.params) as number[];
}

/** The blocks `gramCandidates` names, one number each. */
function candidateBlocks(cache: CacheDb, needle: string): number[] {
  const blocks = gramCandidates(cache.sqlite, needle)
    .ranges()
    .flatMap(([first, last]) =>
      Array.from({ length: (last - first + 1) >> BLOCK_SHIFT }, (_, i) => (first >> BLOCK_SHIFT) + i),
    );
  return blocks;
}

const blocksOf = (rowIds: number[]) => [...new Set(rowIds.map((rowId) => rowId >> BLOCK_SHIFT))];

/** What the app's search answers for `needle`: every matching row id (up to 500). */
function searched(cache: CacheDb, needle: string): number[] {
  const ids = searchTransactions(cache, {
    filters: { freeText: needle },
    pagination: { page: 1, pageSize: 500 },
    withTotals: false,
  }).rows.map((row) => row.id);
  if (ids.length === 0) return [];
  return cache.sqlite
    .prepare(
      `SELECT row_id FROM bank_transactions WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY row_id`,
    )
    .pluck()
    .all(...ids) as number[];
}

const stale = (cache: CacheDb) =>
  cache.sqlite.prepare('SELECT count(*) FROM bank_transaction_gram_stale').pluck().get() as number;

describe('the gram blocks of the narrow text table', () => {
  it('mark the block of every row written, with the shift the code uses', () => {
    const cache = caches.open(caches.file());
    cache.db
      .insert(bankTransactions)
      .values({ ...transactionRow(), rowId: 1000 })
      .run();
    expect(cache.sqlite.prepare('SELECT block FROM bank_transaction_gram_stale').pluck().all()).toEqual([
      1000 >> BLOCK_SHIFT,
    ]);
  });

  it('name exactly the blocks that hold a two-character text once refreshed, and none for text found nowhere', () => {
    const cache = seeded(300);
    refreshGramBlocks(cache.sqlite);
    expect(stale(cache)).toBe(0);
    for (const needle of ['ba', 'QX', 'zz', "'b", '0%', '_s', ' &', '12']) {
      const matches = scanned(cache, needle);
      expect(matches.length, needle).toBeGreaterThan(0);
      // For ASCII pairs the bitmaps are exact at block level: no block too many.
      expect(candidateBlocks(cache, needle), needle).toEqual(blocksOf(matches));
    }
    for (const needle of ['jq', '~', '#x', 'q9']) {
      const candidates = gramCandidates(cache.sqlite, needle);
      expect([candidates.blocks, candidates.ranges()], needle).toEqual([0, []]);
    }
  });

  it('never miss a match, whatever the folding: a property over random one- and two-character text', () => {
    const cache = seeded(400, 7);
    const random = createRandom(31, 2);
    const alphabet = [...'abkiszü', 'Ü', 'İ', '\u212A', 'ß', 'é', '☕', '😀', "'", '&', '%', '_', '2'];
    // Lower case longer than the text ("İ" is "i" and a combining dot), the Kelvin sign that
    // lower-cases to an ASCII "k", a trailing space.
    const fixed = ['i̇', 'İs', 'ki', 'kü', '\u212A', 'e ', 'a&'];
    const check = () => {
      for (let n = 0; n < 150 + fixed.length; n++) {
        const typed =
          fixed[n - 150] ?? Array.from({ length: random.int(1, 2) }, () => random.pick(alphabet)).join('');
        const needle = typed.trim(); // as the search trims it
        const matches = scanned(cache, needle);
        const candidates = new Set(candidateBlocks(cache, needle));
        for (const block of blocksOf(matches)) expect(candidates.has(block), needle).toBe(true);
        expect(searched(cache, typed), typed).toEqual(matches);
      }
    };
    check(); // every block stale
    refreshGramBlocks(cache.sqlite);
    check(); // every block fresh
  });

  it('find rows written, upserted or replaced since the last refresh, and lose nothing to deletes', () => {
    const cache = seeded(120);
    refreshGramBlocks(cache.sqlite);
    const t = bankTransactions;
    const added = transactionRow({ counterparty: 'Jqw Added' });
    cache.db.insert(t).values(added).run();
    const changed = cache.sqlite
      .prepare('SELECT id FROM bank_transactions LIMIT 1 OFFSET 40')
      .pluck()
      .get() as string;
    cache.db.update(t).set({ counterparty: 'Vjx Changed' }).where(eq(t.id, changed)).run();
    expect(stale(cache)).toBe(2);
    // Sync writes by upsert: two rows of one block, the second into a block already stale
    // (the outer statement's conflict policy applies inside triggers), and a REPLACE.
    const [first, second] = cache.sqlite
      .prepare('SELECT id FROM bank_transactions WHERE row_id >> ? = 2 ORDER BY row_id LIMIT 2')
      .pluck()
      .all(BLOCK_SHIFT) as string[];
    for (const [id, counterparty] of [
      [first!, 'Xvk Upserted'],
      [second!, 'Xvk Upserted too'],
    ] as const) {
      const row = transactionRow({ id, counterparty });
      cache.db
        .insert(t)
        .values(row)
        .onConflictDoUpdate({ target: t.id, set: { ...row } })
        .run();
    }
    cache.sqlite
      .prepare(
        `INSERT OR REPLACE INTO bank_transactions (id, bank_account_id, amount_minor, amount_currency, booking_date, counterparty, raw)
         VALUES (?, 'acc-1', 100, 'EUR', '2026-03-03', 'Xvk Replaced', '{}')`,
      )
      .run(first);
    expect(stale(cache)).toBe(3); // blocks 2, 5 and the new rows' 15
    expect(searched(cache, 'xv')).toEqual(scanned(cache, 'xv'));
    expect(searched(cache, 'xv')).toHaveLength(2);
    expect(searched(cache, 'jq')).toEqual(scanned(cache, 'jq'));
    expect(searched(cache, 'jq')).toHaveLength(1);
    expect(searched(cache, 'vj')).toHaveLength(1);

    refreshGramBlocks(cache.sqlite);
    expect(stale(cache)).toBe(0);
    expect(searched(cache, 'jq')).toHaveLength(1);
    cache.db.delete(t).where(eq(t.id, added.id)).run();
    expect(searched(cache, 'jq')).toEqual([]);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
  });

  it("follow another connection's refresh instead of trusting their own copy", () => {
    const cache = seeded(64);
    refreshGramBlocks(cache.sqlite);
    expect(gramCandidates(cache.sqlite, 'wq').blocks).toBe(0); // this connection's copy is loaded
    const other = openCache(cache.file, { migrationsDir: defaultMigrationsDir() });
    try {
      other.db
        .insert(bankTransactions)
        .values(transactionRow({ counterparty: 'Wqa Other' }))
        .run();
      refreshGramBlocks(other.sqlite);
    } finally {
      other.close();
    }
    expect(stale(cache)).toBe(0);
    expect(gramCandidates(cache.sqlite, 'wq').blocks).toBe(1);
    expect(searched(cache, 'wq')).toHaveLength(1);
  });

  it('are checked with the other search indexes, and rebuilt with them', () => {
    const cache = seeded(50);
    refreshGramBlocks(cache.sqlite);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
    // A write that no trigger marked (as after a migration that forgot the trigger).
    cache.sqlite.exec('DROP TRIGGER bank_transaction_gram_stale_insert');
    cache.db
      .insert(bankTransactions)
      .values(transactionRow({ counterparty: 'Unmarked Yq' }))
      .run();
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(false);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(false);
    rebuildTransactionSearch(cache.sqlite);
    expect(stale(cache)).toBe(0);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
    expect(searched(cache, 'yq')).toHaveLength(1);
  });
});
