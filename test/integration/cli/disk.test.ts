import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
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
