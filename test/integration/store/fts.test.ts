import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  FTS_TABLE,
  ftsLiteral,
  TEXT_TABLE,
  isIndexable,
  likeContains,
  rebuildTransactionSearch,
  transactionSearchIsConsistent,
  type CacheDb,
} from '../../../src-main/store';
import { bankTransactions } from '../../../src-main/store/schema';
import { transactionRow, useCaches } from './fixtures';

const caches = useCaches();

/** The search the app runs: the index for 3+ characters, a LIKE scan below that. */
function search(cache: CacheDb, text: string): string[] {
  const rows = isIndexable(text)
    ? cache.sqlite
        .prepare(
          `SELECT t.id FROM bank_transactions t
           WHERE t.row_id IN (SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH ?)
           ORDER BY t.id`,
        )
        .all(ftsLiteral(text))
    : cache.sqlite
        .prepare(
          `SELECT t.id FROM bank_transactions t
           WHERE t.id LIKE @q ESCAPE '\\' OR t.group_id LIKE @q ESCAPE '\\' OR t.counterparty LIKE @q ESCAPE '\\'
              OR t.bank_account_number LIKE @q ESCAPE '\\' OR t.description LIKE @q ESCAPE '\\'
           ORDER BY t.id`,
        )
        .all({ q: likeContains(text) });
  return (rows as { id: string }[]).map((r) => r.id);
}

/** `INSERT OR REPLACE` of a transaction (the delete trigger fires: recursive_triggers is on). */
function replaceRow(cache: CacheDb, id: string, counterparty: string): void {
  cache.sqlite
    .prepare(
      `INSERT OR REPLACE INTO bank_transactions (id, bank_account_id, amount_minor, amount_currency, booking_date, counterparty, raw)
       VALUES (?, 'acc-1', 100, 'EUR', '2026-03-03', ?, '{}')`,
    )
    .run(id, counterparty);
}

function seeded() {
  const cache = caches.open(caches.file());
  const insert = (overrides: Record<string, unknown>) =>
    cache.db.insert(bankTransactions).values(transactionRow(overrides)).run();
  insert({
    id: 'a1b2c3d4-0001',
    groupId: 'grp-travel',
    counterparty: 'Deutsche Bahn',
    bankAccountNumber: 'DE89370400440532013000',
  });
  insert({
    id: 'a1b2c3d4-0002',
    groupId: 'grp-office',
    counterparty: 'Büromarkt Müller GmbH',
    bankAccountNumber: 'FR7630006000011234567890189',
    description: 'Toner',
  });
  insert({
    id: 'ffff0000-0003',
    groupId: 'grp-weird',
    counterparty: 'Say "hello" (NEAR) OR * AND -x: ^y',
    bankAccountNumber: 'GB33BUKB20201555555555',
    description: '50%_off \\ sale',
  });
  return cache;
}

/** Drops `trigger`, then renames a transaction ('a1b2c3d4-0001' to "Drifted") that it would have followed. */
function driftWithout(cache: CacheDb, trigger: string): void {
  cache.sqlite.exec(`DROP TRIGGER ${trigger}`);
  cache.sqlite
    .prepare(`UPDATE bank_transactions SET counterparty = 'Drifted' WHERE id = 'a1b2c3d4-0001'`)
    .run();
}

describe('transaction free-text search (FTS5 trigram)', () => {
  it('finds case-insensitive substrings of id, group id, counterparty, account number and description', () => {
    const cache = seeded();
    expect(search(cache, 'a1b2c3')).toEqual(['a1b2c3d4-0001', 'a1b2c3d4-0002']);
    expect(search(cache, 'C3D4-0002')).toEqual(['a1b2c3d4-0002']);
    expect(search(cache, 'TRAVEL')).toEqual(['a1b2c3d4-0001']);
    expect(search(cache, 'sche ba')).toEqual(['a1b2c3d4-0001']);
    expect(search(cache, 'müller')).toEqual(['a1b2c3d4-0002']);
    expect(search(cache, '0532013')).toEqual(['a1b2c3d4-0001']);
    expect(search(cache, 'fr76')).toEqual(['a1b2c3d4-0002']);
    expect(search(cache, 'toner')).toEqual(['a1b2c3d4-0002']);
    expect(search(cache, 'nothing like this')).toEqual([]);
  });

  it('uses the index for 3+ characters', () => {
    const cache = seeded();
    const plan = cache.sqlite
      .prepare(`EXPLAIN QUERY PLAN SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH ?`)
      .all(ftsLiteral('bahn')) as { detail: string }[];
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/VIRTUAL TABLE INDEX/);
  });

  it('treats FTS syntax in user text literally', () => {
    const cache = seeded();
    for (const text of ['"hello"', '(NEAR)', 'OR *', '* AND', '-x: ^y', 'say "hello" (near) or']) {
      expect(search(cache, text), text).toEqual(['ffff0000-0003']);
    }
    // Operators alone are text too: no syntax error, no match-everything.
    for (const text of ['NEAR', 'AND', 'OR ', '"', '""""', '***', ')))', 'NEAR(a b)', 'counterparty:bahn']) {
      expect(() => search(cache, text), text).not.toThrow();
    }
    expect(search(cache, 'NEAR')).toEqual(['ffff0000-0003']);
    expect(search(cache, 'counterparty:bahn')).toEqual([]);
  });

  it('falls back to an escaped LIKE scan for 1–2 characters', () => {
    const cache = seeded();
    expect(isIndexable('ab')).toBe(false);
    expect(isIndexable('abc')).toBe(true);
    expect(isIndexable('€€€')).toBe(true);
    expect(search(cache, 'GB')).toEqual(['ffff0000-0003']);
    expect(search(cache, '%')).toEqual(['ffff0000-0003']);
    expect(search(cache, '%_')).toEqual(['ffff0000-0003']);
    expect(search(cache, '\\')).toEqual(['ffff0000-0003']);
    expect(search(cache, '_x')).toEqual([]);
  });

  it('keeps the index in step with inserts, updates and deletes', () => {
    const cache = seeded();
    const t = bankTransactions;

    cache.db.update(t).set({ counterparty: 'Lufthansa' }).where(eq(t.id, 'a1b2c3d4-0001')).run();
    expect(search(cache, 'bahn')).toEqual([]);
    expect(search(cache, 'hansa')).toEqual(['a1b2c3d4-0001']);

    // An upsert as sync writes it: every column set, only `matched` really changed.
    const row = transactionRow({
      id: 'a1b2c3d4-0001',
      counterparty: 'Lufthansa',
      groupId: 'grp-travel',
      matched: true,
    });
    cache.db
      .insert(t)
      .values(row)
      .onConflictDoUpdate({ target: t.id, set: { ...row } })
      .run();
    expect(search(cache, 'hansa')).toEqual(['a1b2c3d4-0001']);

    cache.db.update(t).set({ groupId: null, description: null }).where(eq(t.id, 'a1b2c3d4-0002')).run();
    expect(search(cache, 'grp-office')).toEqual([]);

    cache.db.delete(t).where(eq(t.id, 'a1b2c3d4-0002')).run();
    expect(search(cache, 'müller')).toEqual([]);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
  });

  it('stays consistent through INSERT OR REPLACE (recursive triggers on)', () => {
    const cache = seeded();
    replaceRow(cache, 'a1b2c3d4-0001', 'Replaced Ltd');
    expect(search(cache, 'bahn')).toEqual([]);
    expect(search(cache, 'replaced')).toEqual(['a1b2c3d4-0001']);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
  });

  it('detects a drifted index and rebuilds it', () => {
    const cache = seeded();
    driftWithout(cache, 'bank_transactions_fts_update');
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(false);
    rebuildTransactionSearch(cache.sqlite);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
    expect(search(cache, 'drifted')).toEqual(['a1b2c3d4-0001']);
  });
});

describe('the narrow text table (bank_transaction_text)', () => {
  /** What the table holds per transaction id. */
  const texts = (cache: CacheDb) =>
    Object.fromEntries(
      (
        cache.sqlite
          .prepare(`SELECT t.id, x.text FROM ${TEXT_TABLE} x JOIN bank_transactions t ON t.row_id = x.row_id`)
          .all() as { id: string; text: string }[]
      ).map((r) => [r.id, r.text]),
    );

  it('holds the four v0 values of every row, joined by U+001F, never the description', () => {
    const cache = seeded();
    expect(texts(cache)).toEqual({
      'a1b2c3d4-0001': 'a1b2c3d4-0001\u001fgrp-travel\u001fDeutsche Bahn\u001fDE89370400440532013000',
      'a1b2c3d4-0002':
        'a1b2c3d4-0002\u001fgrp-office\u001fBüromarkt Müller GmbH\u001fFR7630006000011234567890189',
      'ffff0000-0003':
        'ffff0000-0003\u001fgrp-weird\u001fSay "hello" (NEAR) OR * AND -x: ^y\u001fGB33BUKB20201555555555',
    });
  });

  it('follows inserts, updates (NULLs included), upserts, INSERT OR REPLACE and deletes', () => {
    const cache = seeded();
    const t = bankTransactions;
    cache.db.update(t).set({ counterparty: null, groupId: 'g2' }).where(eq(t.id, 'a1b2c3d4-0001')).run();
    expect(texts(cache)['a1b2c3d4-0001']).toBe('a1b2c3d4-0001\u001fg2\u001f\u001fDE89370400440532013000');

    const row = transactionRow({ id: 'a1b2c3d4-0002', counterparty: 'Upserted', bankAccountNumber: null });
    cache.db
      .insert(t)
      .values(row)
      .onConflictDoUpdate({ target: t.id, set: { ...row } })
      .run();
    expect(texts(cache)['a1b2c3d4-0002']).toBe(`a1b2c3d4-0002\u001f${row.groupId ?? ''}\u001fUpserted\u001f`);

    replaceRow(cache, 'ffff0000-0003', 'Replaced Ltd');
    expect(texts(cache)['ffff0000-0003']).toBe('ffff0000-0003\u001f\u001fReplaced Ltd\u001f');

    cache.db.delete(t).where(eq(t.id, 'a1b2c3d4-0001')).run();
    expect(Object.keys(texts(cache)).sort()).toEqual(['a1b2c3d4-0002', 'ffff0000-0003']);
    expect(cache.sqlite.prepare(`SELECT count(*) FROM ${TEXT_TABLE}`).pluck().get()).toBe(2);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
  });

  it('detects a drifted or orphaned text row and rebuilds the table', () => {
    const cache = seeded();
    driftWithout(cache, 'bank_transaction_text_update');
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(false);
    rebuildTransactionSearch(cache.sqlite);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
    expect(texts(cache)['a1b2c3d4-0001']).toContain('\u001fDrifted\u001f');

    cache.sqlite.prepare(`INSERT INTO ${TEXT_TABLE} (row_id, text) VALUES (99999, 'orphan')`).run();
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(false);
    rebuildTransactionSearch(cache.sqlite);
    expect(transactionSearchIsConsistent(cache.sqlite)).toBe(true);
  });
});

describe('ftsLiteral', () => {
  it('quotes the text as one FTS5 string and doubles inner quotes', () => {
    expect(ftsLiteral('bahn')).toBe('"bahn"');
    expect(ftsLiteral('say "hi"')).toBe('"say ""hi"""');
    expect(ftsLiteral('a OR b*')).toBe('"a OR b*"');
    expect(ftsLiteral('nul\u0000here')).toBe('"nulhere"');
  });

  it('escapes LIKE wildcards for the short-text fallback', () => {
    expect(likeContains('5%')).toBe('%5\\%%');
    expect(likeContains('a_b\\')).toBe('%a\\_b\\\\%');
  });
});
