import type Database from 'better-sqlite3';

/**
 * Remembers results (counts, totals, ordered id lists) per connection until the rows they
 * read change. "Changed" is the cache's content generation (store/tables/generation.ts): its
 * triggers count every real change of a searched row, by any writer on any connection (the
 * sync, an edit, a review mark, a repair), and nothing else. SQLite's own counters
 * (`data_version`, `total_changes()`) also move for the sync's history, its checkpoints and
 * the rows it reads again unchanged, so a sync that found nothing new used to drop totals that
 * take a second to count on a million rows. Reading the generation costs microseconds, so a
 * page turn that reuses the totals never scans again.
 */

type Memo = Map<string, { version: string; value: unknown }>;
const memos = new WeakMap<Database.Database, Map<string, Memo>>();
const generations = new WeakMap<Database.Database, () => string>();

/**
 * How to read the connection's data version: the content generation, or on a database without
 * one (not a cache: a test's bare database) SQLite's counters, which move with any write.
 */
function versionReader(sqlite: Database.Database): () => string {
  let read = generations.get(sqlite);
  if (read) return read;
  const hasGeneration = sqlite
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'content_generation'`)
    .get();
  if (hasGeneration) {
    const statement = sqlite.prepare('SELECT n FROM content_generation WHERE id = 1').pluck();
    read = () => String(statement.get());
  } else {
    const own = sqlite.prepare('SELECT total_changes()').pluck();
    read = () => `${String(sqlite.pragma('data_version', { simple: true }))}:${String(own.get())}`;
  }
  generations.set(sqlite, read);
  return read;
}

function dataVersion(sqlite: Database.Database): string {
  return versionReader(sqlite)();
}

/** The value of `key` in the memo `space` if it is there and current; nothing is computed. */
export function remembered<T>(sqlite: Database.Database, space: string, key: string): T | undefined {
  const hit = memos.get(sqlite)?.get(space)?.get(key);
  return hit && hit.version === dataVersion(sqlite) ? (hit.value as T) : undefined;
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
  // Within a transaction that may write, the generation may count a change that is then rolled
  // back, and count a different one to the same number later: what is read there is not kept.
  if (sqlite.inTransaction && !sqlite.readonly) return value;
  memo.set(key, { version, value });
  if (memo.size > entries) memo.delete(memo.keys().next().value as string);
  return value;
}
