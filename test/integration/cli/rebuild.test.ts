import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyReview } from '../../../src-main/review';
import { runCli } from '../../helpers/cli';
import { damageTable } from '../../helpers/damage';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// A damaged offline copy from the command line: the messages name "satchel profile rebuild",
// which sets the copy aside (never deleted), keeps what of the user's work can still be read
// and says so; a copy that opens is refused. The real CLI in a child process, real SQLite
// files, the real sandbox and keychain.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('satchel profile rebuild', () => {
  it('sets a copy from a newer version aside, keeping the unsent edit and the review mark', async () => {
    const { dataDir, core, profile, cacheFile, sandbox } = await connect('Damaged AG', { transactions: 50 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const cache = core.cacheOf(profile.id);
    const transactionId = cache.sqlite
      .prepare('SELECT id FROM bank_transactions LIMIT 1')
      .pluck()
      .get() as string;
    applyReview(cache, { by: 'ids', kind: 'transaction', ids: [transactionId] }, { action: 'setReviewed' });
    const supplierId = sandbox.state.suppliers[0]!.id;
    core.outbox.updateSupplier(profile.id, supplierId, { name: 'Rebuilt Offline KG' });
    await core.close();
    // A later version of Satchel migrated the file further.
    const sqlite = new Database(cacheFile);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('from-the-future', 4_102_444_800_000);
    sqlite.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    // What the command line says names the command, with the organisation.
    const search = await runCli(['search'], { env });
    expect(search.code).toBe(1);
    expect(search.stderr).toContain(
      `set the copy aside and rebuild it with "satchel profile rebuild --profile 'Damaged AG'"`,
    );

    const rebuilt = await runCli(['profile', 'rebuild', '--profile', 'Damaged AG'], { env });
    expect(rebuilt).toMatchObject({ code: 0, stdout: '' });
    const aside = /^Set the offline copy of .* aside as (\S+\.sqlite) /m.exec(rebuilt.stderr)?.[1];
    expect(aside).toBeDefined();
    expect(path.dirname(aside!)).toBe(path.dirname(cacheFile));
    // Exactly its own message: the core's record of the rebuild goes to the log, not beside it.
    expect(rebuilt.stderr).toBe(
      `Set the offline copy of "Damaged AG" aside as ${aside} (nothing was deleted) and started a fresh one, keeping 1 unsent edit and 1 review mark it still held.\n` +
        `Run "satchel sync --profile 'Damaged AG'" to fill it.\n`,
    );
    const old = new Database(aside!, { readonly: true });
    expect(
      old.prepare('SELECT count(*) FROM __drizzle_migrations WHERE hash = ?').pluck().get('from-the-future'),
    ).toBe(1);
    old.close();

    // The sync fills the fresh copy and sends the kept edit.
    const sync = await runCli(['sync'], { env });
    expect(sync.code).toBe(0);
    expect(sandbox.state.suppliers.find((s) => s.id === supplierId)?.name).toBe('Rebuilt Offline KG');
    const reviewed = await runCli(['search', '--reviewed', 'true', '--json'], { env });
    expect(reviewed.code).toBe(0);
    expect(reviewed.stdout).toContain(transactionId);
  }, 90_000);

  it('keeps nothing from a file of garbage, and refuses a copy that opens', async () => {
    const { dataDir, core, profile, cacheFile } = await connect('Garbage', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const garbage = Buffer.alloc(8192, 0x41);
    writeFileSync(cacheFile, garbage);
    const env = { SATCHEL_DATA_DIR: dataDir };

    const search = await runCli(['search'], { env });
    expect(search.code).toBe(1);
    expect(search.stderr).toContain(
      'set it aside and rebuild it with "satchel profile rebuild --profile Garbage"',
    );

    // The only organisation: no --profile needed. Nothing of the file could be read, and the
    // core's warnings about each table it tried go to the log SATCHEL_LOG names, not to stderr.
    const logFile = path.join(tempDir(), 'satchel.log');
    const rebuilt = await runCli(['profile', 'rebuild'], { env: { ...env, SATCHEL_LOG: logFile } });
    expect(rebuilt.code).toBe(0);
    const aside = /^Set the offline copy of .* aside as (\S+\.sqlite) /m.exec(rebuilt.stderr)?.[1];
    expect(rebuilt.stderr).toBe(
      `Set the offline copy of "Garbage" aside as ${aside} (nothing was deleted) and started a fresh one, keeping nothing: no unsent edit, review mark or tag could be read from it.\n` +
        'Run "satchel sync --profile Garbage" to fill it.\n',
    );
    expect(readFileSync(aside!)).toEqual(garbage);
    const logged = readFileSync(logFile, 'utf8');
    expect(logged).toContain(`[satchel] set the damaged offline copy of ${profile.id} aside as ${aside}`);
    expect(logged).toContain('reading review_marks of a damaged offline copy stopped');

    const again = await runCli(['profile', 'rebuild', '--profile', 'Garbage'], { env });
    expect(again).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'satchel: The offline copy of "Garbage" opens; there is nothing to rebuild.\n',
    });
    const wrong = await runCli(['profile', 'rebuild', 'Garbage'], { env });
    expect(wrong.code).toBe(2);
  }, 90_000);

  it('says a copy damaged past its opening is damaged, not that it could not be written', async () => {
    const { dataDir, core, profile, cacheFile } = await connect('Damaged AG', { transactions: 50 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    // The transactions' root page overwritten: the file opens, the first search meets it.
    damageTable(cacheFile, 'bank_transactions');

    const search = await runCli(['search'], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(search.code).toBe(1);
    expect(search.stderr).not.toContain('could not write');
    expect(search.stderr).toContain('damaged');
    expect(search.stderr).toContain('satchel profile rebuild');
  });
});
