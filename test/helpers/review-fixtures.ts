import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { runCli } from './cli';
import type { useCliProfiles } from './cli-profile';
import type { useTempDirs } from './temp-dir';

/**
 * Offline copies big enough that a Ctrl+C lands while `satchel review export`, `import` or
 * `mark` is at work: many review marks, or many transactions. Each is an organisation of the
 * sandbox, synced, then grown in its cache file directly (the CLI reads that file). Call it
 * after `useTempDirs` and `useCliProfiles`, with what they gave.
 */
export function useReviewFixtures(
  tempDir: ReturnType<typeof useTempDirs>,
  connect: ReturnType<typeof useCliProfiles>,
) {
  /** An organisation whose offline copy holds `marks` review marks (on records it does not hold). */
  async function manyMarks(marks: number) {
    const connected = await connect('Review', { transactions: 50 });
    expect((await connected.core.sync.sync(connected.profile.id)).outcome).toBe('succeeded');
    await connected.core.close();
    const db = new Database(connected.cacheFile);
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO review_marks (kind, record_id, reviewed_at, reviewed_changed_at, note, note_changed_at, updated_at)
       SELECT 'transaction', printf('tx-%06d', i), '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000Z',
              'checked against the statement ' || i, '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000Z'
         FROM n`,
    ).run(marks);
    db.close();
    return { ...connected, env: { SATCHEL_DATA_DIR: connected.dataDir } };
  }

  /** An organisation whose offline copy holds `count` transactions: its synced ones, copied under new ids. */
  async function manyTransactions(count: number) {
    const connected = await connect('Review', { transactions: 50 });
    expect((await connected.core.sync.sync(connected.profile.id)).outcome).toBe('succeeded');
    await connected.core.close();
    const db = new Database(connected.cacheFile);
    const columns = (
      db.prepare("SELECT name FROM pragma_table_info('bank_transactions')").pluck().all() as string[]
    )
      // row_id is SQLite's rowid: a copy gets its own.
      .filter((name) => name !== 'row_id')
      .map((name) => `"${name}"`)
      .join(', ');
    const synced = db.prepare('SELECT count(*) FROM bank_transactions').pluck().get() as number;
    const copies = Math.ceil(count / synced) - 1;
    // In one statement: copies made copy by copy would each read the table grown so far.
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO bank_transactions (${columns})
       SELECT ${columns.replace('"id"', "id || '-copy-' || n.i")} FROM bank_transactions, n`,
    ).run(copies);
    const total = db.prepare('SELECT count(*) FROM bank_transactions').pluck().get() as number;
    db.close();
    return { ...connected, total, env: { SATCHEL_DATA_DIR: connected.dataDir } };
  }

  /** `manyMarks`, exported to a review file, then cleared from the copy: an import to make. */
  async function exportedThenCleared(marks: number) {
    const connected = await manyMarks(marks);
    const file = path.join(tempDir(), 'review.json');
    expect((await runCli(['review', 'export', '--out', file], { env: connected.env })).code).toBe(0);
    const db = new Database(connected.cacheFile);
    db.exec('DELETE FROM review_tags; DELETE FROM review_marks');
    db.close();
    return { ...connected, file };
  }

  return { manyMarks, manyTransactions, exportedThenCleared };
}

/** How many review marks the cache file holds, read while no process has it open. */
export function marksIn(cacheFile: string): number {
  const db = new Database(cacheFile, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM review_marks').pluck().get() as number;
  } finally {
    db.close();
  }
}
