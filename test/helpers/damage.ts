import { closeSync, openSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Overwrites the root page of `table` in a closed cache file: the file still opens, and SQLite
 * finds it damaged ("database disk image is malformed") only when something reads that table.
 */
export function damageTable(file: string, table: string): void {
  const sqlite = new Database(file, { readonly: true });
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const root = sqlite
    .prepare('SELECT rootpage FROM sqlite_master WHERE name = ?')
    .pluck()
    .get(table) as number;
  sqlite.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (root - 1) * pageSize);
  closeSync(fd);
}
