import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useReadOnlyFolders } from '../../helpers/read-only';
import { useTempDirs } from '../../helpers/temp-dir';

// The command line when the offline copy refuses a write, as a full disk or a read-only folder
// makes it: the organisation's real cache file is given triggers that refuse writes with
// SQLite's own words, and each command says what happened and what to do, without a stack.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

function refuse(cacheFile: string, table: string): void {
  const db = new Database(cacheFile);
  db.exec(
    `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
  );
  db.close();
}

describe('the command line on a disk that refuses writes', () => {
  it('says the offline copy could not be written, with no stack trace', async () => {
    const { dataDir, core, profile, cacheFile } = await connect('Full', { transactions: 50 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    refuse(cacheFile, 'outbox');
    refuse(cacheFile, 'review_marks');
    refuse(cacheFile, 'sync_runs');
    const env = { SATCHEL_DATA_DIR: dataDir };
    const said =
      'satchel: Satchel could not write to the offline copy of this organisation (database or disk is full).\n';

    const edit = await runCli(['supplier', 'create', '--name', 'Full GmbH', '--code', 'F-1'], { env });
    expect(edit).toMatchObject({ code: 1, stdout: '', stderr: said });
    const mark = await runCli(['review', 'mark', '--reviewed', '--from', '2020-01-01'], { env });
    expect(mark).toMatchObject({ code: 1, stdout: '', stderr: said });

    const sync = await runCli(['sync'], { env });
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain("could not write to this organisation's cache (database or disk is full)");
    expect(sync.stderr).not.toMatch(/^\s+at /m);
    expect(sync.stderr).not.toContain('SqliteError');
  });
});

describe('the command line on a read-only data folder', () => {
  const makeReadOnly = useReadOnlyFolders();
  const state = (file: string) => ({
    sha: createHash('sha256').update(readFileSync(file)).digest('hex'),
    mtime: statSync(file).mtimeMs,
  });

  it('reads, and refuses what would write at once with the reason and exit status 3', async () => {
    const { dataDir, core, profile, cacheFile } = await connect('Archive', { transactions: 30 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const before = state(cacheFile);
    makeReadOnly(dataDir);
    const env = { SATCHEL_DATA_DIR: dataDir };

    const search = await runCli(['search', '--json'], { env });
    expect(search.stderr).toBe('');
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { rows: unknown[] }).rows.length).toBeGreaterThan(0);

    // Refused before anything is announced: the one line says why ("Syncing Archive" said first
    // read as though the sync had begun).
    const said = new RegExp(
      `^satchel: The offline copy of "Archive" is read-only: the folder ${dataDir}/caches is on a read-only disk or share\\. You can search and read; sync, edits, review marks and downloads into the copy are off until ${dataDir}/caches can be written again \\(a writable disk, or write permission for your user\\): then run the command again\\.\\n$`,
    );
    for (const args of [
      ['supplier', 'create', '--name', 'Never GmbH', '--code', 'N-1'],
      ['review', 'mark', '--reviewed', '--from', '2020-01-01'],
      ['sync'],
      ['sync', '--profile', 'Archive', '--full'],
      ['edits', 'push'],
      ['download', '--to', path.join(tempDir(), 'receipts')],
    ]) {
      const refused = await runCli(args, { env });
      expect({ args, code: refused.code, stdout: refused.stdout }).toEqual({ args, code: 3, stdout: '' });
      expect(refused.stderr).toMatch(said);
    }
    expect(state(cacheFile)).toEqual(before);
  });
});

describe('satchel sync with one organisation read-only among several', { timeout: 120_000 }, () => {
  const makeReadOnly = useReadOnlyFolders();

  it('leaves the read-only copy out in its turn, saying why, syncs the others and exits 3', async () => {
    // Archive comes second, after Current, and is said in its turn.
    const { sandbox, dataDir, core, profile: current } = await connect('Current', { transactions: 30 });
    const profile = await core.profiles.add({
      name: 'Archive',
      baseUrl: sandbox.url,
      auth: { kind: 'client', clientId: sandbox.clientId, clientSecret: sandbox.clientSecret },
    });
    const cacheFile = core.profiles.cacheFile(profile.id);
    for (const { id } of [profile, current]) expect((await core.sync.sync(id)).outcome).toBe('succeeded');
    await core.close();
    const runs = () => {
      const db = new Database(core.profiles.cacheFile(current.id), { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM sync_runs').pluck().get() as number;
      } finally {
        db.close();
      }
    };
    const before = runs();
    // Only Archive's file (restored from a backup onto a read-only share, say).
    makeReadOnly(cacheFile);
    const env = { SATCHEL_DATA_DIR: dataDir };

    const why = `The offline copy of "Archive" is read-only: the file ${cacheFile} is on a read-only disk or share. You can search and read; sync, edits, review marks and downloads into the copy are off until ${cacheFile} can be written again (a writable disk, or write permission for your user): then run the command again.`;
    const all = await runCli(['sync'], { env });
    expect(all.code).toBe(3);
    expect(all.stdout).toMatch(/^Current: succeeded, \d+ records written\n$/);
    expect(all.stderr).toMatch(/^Syncing Current\n/);
    expect(all.stderr).toContain(`\nNot syncing Archive: ${why}\n`);
    expect(all.stderr).toMatch(
      /\nsatchel: Sync did not complete \(Archive: not synced, its offline copy is read-only\); the others were synced\.\n$/,
    );
    expect(runs()).toBe(before + 1);

    // Named alone, it is refused at once, nothing said before the reason.
    const alone = await runCli(['sync', '--profile', 'Archive'], { env });
    expect(alone).toEqual({ code: 3, signal: null, stdout: '', stderr: `satchel: ${why}\n` });

    const named = await runCli(['sync', '--profile', 'Current'], { env });
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/^Current: succeeded, \d+ records written\n$/);
    expect(runs()).toBe(before + 2);
  });
});
