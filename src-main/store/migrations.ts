import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The cache migrations shipped beside the code: `resources/migrations/cache` in the repository. */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL('../../resources/migrations/cache', import.meta.url));
}

/** How many migrations this build ships: the schema version a fully migrated cache has. */
export function shippedSchemaVersion(migrationsDir: string): number {
  const journal = path.join(migrationsDir, 'meta', '_journal.json');
  if (!existsSync(journal)) return 0;
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries?: unknown[] };
  return Array.isArray(parsed.entries) ? parsed.entries.length : 0;
}
