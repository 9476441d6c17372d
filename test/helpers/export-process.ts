import { exportTransactions } from '../../src-main/export';
import { defaultMigrationsDir, openCache } from '../../src-main/store';

/**
 * One CSV export of every transaction of a cache (id order), run as the app runs it, in a
 * process of its own: for tests that give the export limits the test runner must not have
 * itself, such as a file size limit (`ulimit -f`). Prints the result as JSON, or the error's
 * code and message on stderr with exit status 1.
 *
 *   node --import tsx test/helpers/export-process.ts CACHE_FILE OUT_FILE.csv
 */
const [cacheFile, out] = process.argv.slice(2);
if (!cacheFile || !out) throw new Error('usage: export-process.ts CACHE_FILE OUT_FILE.csv');
const cache = openCache(cacheFile, { migrationsDir: defaultMigrationsDir() });
try {
  const result = await exportTransactions(cache, {
    search: { filters: {}, sorting: { field: 'id', direction: 'ASC' } },
    file: out,
    format: {},
    overwrite: false,
  });
  process.stdout.write(JSON.stringify(result));
} catch (error) {
  const { code, message } = error as { code?: string; message?: string };
  process.stderr.write(`${code ?? 'ERROR'}: ${message ?? String(error)}\n`);
  process.exitCode = 1;
} finally {
  cache.close();
}
