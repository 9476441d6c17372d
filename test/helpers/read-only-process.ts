import { defaultMigrationsDir, openCache } from '../../src-main/store';

/**
 * Opens a cache as the app does and keeps it open until the process is ended: for tests of what
 * a process that dies with a read-only copy open leaves behind. Prints the file the connection
 * reads (`readFile`: a private snapshot when the copy cannot be read in place) on one line.
 *
 *   node --import tsx test/helpers/read-only-process.ts CACHE_FILE
 */
const [cacheFile] = process.argv.slice(2);
if (!cacheFile) throw new Error('usage: read-only-process.ts CACHE_FILE');
const cache = openCache(cacheFile, { migrationsDir: defaultMigrationsDir() });
process.stdout.write(`${cache.readFile}\n`);
setInterval(() => cache.sqlite.prepare('SELECT count(*) FROM bank_transactions').get(), 1000);
