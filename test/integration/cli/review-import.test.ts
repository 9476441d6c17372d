import path from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { writeColleagueNotes } from '../../helpers/review-file';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel review import` of a large file while another Satchel writes to the same offline copy
// (the app syncing, a mark made in the window): the import takes the copy's write lock a slice
// at a time, so the other writer is never turned away as busy. The CLI runs in this process
// (`runCli`, as the `satchel` binary calls it); "the app" is a second connection to the cache
// file that, between the import's slices, takes the write lock without waiting for it.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list());
});

async function satchel(args: string[], env: NodeJS.ProcessEnv) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await runCli(args, { stdout, stderr, stdin: new PassThrough(), env });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

describe('satchel review import beside another writer', { timeout: 60_000 }, () => {
  it('lets another connection write between its slices, and merges every mark', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 22, transactions: 100 });
    stops.push(() => sandbox.stop());
    const dataDir = tempDir();
    const env = { SATCHEL_DATA_DIR: dataDir };
    expect(
      (await satchel(['profile', 'add', '--name', 'Demo', '--demo', '--url', sandbox.url], env)).code,
    ).toBe(0);
    expect((await satchel(['sync'], env)).code).toBe(0);
    const [profile] = JSON.parse((await satchel(['profile', 'list', '--json'], env)).stdout) as Array<{
      id: string;
    }>;

    // A colleague's review of 3,000 records (not synced here yet: they wait for a sync).
    const file = writeColleagueNotes(path.join(tempDir(), 'colleague.json'), 3000);

    const other = new Database(path.join(dataDir, 'caches', `${profile!.id}.sqlite`));
    stops.push(() => Promise.resolve(void other.close()));
    other.pragma('busy_timeout = 0');
    const count = other.prepare('SELECT count(*) FROM review_marks').pluck();
    // Each turn of the event loop: the marks merged so far, and whether the lock was free.
    const seen: Array<{ marks: number; wrote: boolean }> = [];
    let watching = true;
    const watch = () => {
      if (!watching) return;
      const merged = count.get() as number;
      let wrote = true;
      try {
        other.exec('BEGIN IMMEDIATE; ROLLBACK');
      } catch {
        wrote = false;
      }
      seen.push({ marks: merged, wrote });
      setImmediate(watch);
    };
    setImmediate(watch);
    const imported = await satchel(['review', 'import', file], env);
    watching = false;

    expect(imported.code).toBe(0);
    // stderr carries its progress lines alone (review-progress.test.ts), no complaint.
    expect(imported.stderr).toMatch(
      /^(?:(?:Checking|Importing) [\d,]+ of 3,000 marks(?: in the file)?…\n)+$/,
    );
    expect(imported.stdout).toBe(
      '3000 review marks read, 3000 records updated (3000 for records not in the offline copy yet; they apply when a sync brings them)\n',
    );
    expect(count.get()).toBe(3000);
    // Part-way through the import, the other connection saw some marks merged and took the
    // write lock at once, more than once.
    const partWay = seen.filter((turn) => turn.marks > 0 && turn.marks < 3000);
    expect(partWay.length).toBeGreaterThan(1);
    expect(partWay.every((turn) => turn.wrote)).toBe(true);
  });
});
