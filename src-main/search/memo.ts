import type Database from 'better-sqlite3';

/**
 * Remembers results (counts, totals, ordered id lists) per connection until the data
 * changes. "Changed" is read from SQLite itself: `PRAGMA data_version` moves when another
 * connection commits (the sync worker, the CLI), `total_changes()` when this connection
 * writes (review marks). Both cost microseconds, so a page turn that reuses the totals never
 * scans again.
 */

type Memo = Map<string, { version: string; value: unknown }>;
const memos = new WeakMap<Database.Database, Map<string, Memo>>();

function dataVersion(sqlite: Database.Database): string {
  const other = sqlite.pragma('data_version', { simple: true }) as number;
  const own = (sqlite.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  return `${other}:${own}`;
}

/**
 * The value of `key` in the memo `space`, computed when missing or stale. Each space keeps
 * its `entries` most recently used values (small for big values such as id lists).
 */
export function memoized<T>(
  sqlite: Database.Database,
  space: string,
  key: string,
  compute: () => T,
  entries = 32,
): T {
  let spaces = memos.get(sqlite);
  if (!spaces) memos.set(sqlite, (spaces = new Map()));
  let memo = spaces.get(space);
  if (!memo) spaces.set(space, (memo = new Map()));
  const version = dataVersion(sqlite);
  const hit = memo.get(key);
  if (hit && hit.version === version) {
    memo.delete(key);
    memo.set(key, hit); // most recently used last
    return hit.value as T;
  }
  const value = compute();
  memo.set(key, { version, value });
  if (memo.size > entries) memo.delete(memo.keys().next().value as string);
  return value;
}
