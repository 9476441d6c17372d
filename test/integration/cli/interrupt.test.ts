import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { contentRequests, listFiles, readManifest, sandboxFile, sha256Of } from '../../helpers/files';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// Ctrl+C on the real CLI in a child process: a download is paused with everything that arrived
// put in place and recorded, a sync stops at a page boundary, a push between two edits, each
// says so and exits with 130, and the same command then finishes the work. An output nobody
// reads any more (`| head`) stops it the same way, silently, with a broken pipe's 141.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

const connected = (transactions: number, limits: { writeLimit?: number } = {}) =>
  connect('Interrupted', { transactions, ...limits });

/** The first column of a query's rows, read from the CLI's cache while no process has it open. */
function firstColumn(cacheFile: string, sql: string): unknown[] {
  const db = new Database(cacheFile, { readonly: true });
  try {
    return db.prepare(sql).pluck().all();
  } finally {
    db.close();
  }
}

describe('Ctrl+C and a closed output on the command line', () => {
  it('pauses a download; the same command continues it without fetching a placed file again', async () => {
    const { sandbox, dataDir, core, profile, cacheFile } = await connected(3000);
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const total = sandbox.state.files.length;
    // Slow answers, so that the interruption lands while files are in flight.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 15 });
    sandbox.control?.clearRequests();
    const destination = path.join(tempDir(), 'out');
    const args = ['download', '--to', destination, '--layout', 'month'];

    const first = await runCli(args, {
      env: { SATCHEL_DATA_DIR: dataDir },
      interruptWhen: () => (sandbox.control?.requests('getFileContent').length ?? 0) >= 300,
    });
    expect(first.signal).toBeNull(); // it ended by itself, not by the signal
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('stopping at the next safe point');
    expect(first.stderr).toContain('The download was interrupted; run the same command again to continue.');
    const printed = /(\d+) of (\d+) files in /.exec(first.stdout);
    expect(printed?.[2]).toBe(String(total));
    const doneAtStop = Number(printed?.[1]);
    expect(doneAtStop).toBeGreaterThan(0);
    expect(doneAtStop).toBeLessThan(total);

    // Everything that arrived whole is in place and recorded: the count printed, the files in
    // the folder and the queue's records agree, and the job is paused, not left running.
    const db = new Database(cacheFile, { readonly: true });
    const job = db.prepare(`SELECT id, status FROM download_jobs`).get() as { id: string; status: string };
    const done = db
      .prepare(`SELECT relative_path AS path, file_id AS id FROM download_items WHERE status = 'done'`)
      .all() as Array<{ path: string; id: string }>;
    db.close();
    expect(job.status).toBe('paused');
    expect(done).toHaveLength(doneAtStop);
    const placed = listFiles(destination).filter((name) => !name.startsWith('.'));
    expect(placed.sort()).toEqual(done.map((item) => item.path).sort());
    expect(existsSync(path.join(destination, 'manifest.csv'))).toBe(false); // written when it completes

    sandbox.control?.clearFaults();
    sandbox.control?.clearRequests();
    const second = await runCli(args, { env: { SATCHEL_DATA_DIR: dataDir }, timeoutMs: 120_000 });
    expect(second.stderr).not.toContain('satchel:');
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`Continuing the download to ${destination}: ${doneAtStop} of ${total}`);
    expect(second.stdout).toContain(`${total} of ${total} files`);
    expect(second.stdout).toContain(`; ${total - doneAtStop} fetched by this run)`);
    const requested = contentRequests(sandbox);
    expect(done.filter((item) => requested.has(item.id))).toEqual([]);
    expect(requested.size).toBe(total - doneAtStop);
    const manifest = readManifest(path.join(destination, 'manifest.csv'));
    expect(manifest).toHaveLength(total);
    for (const row of manifest) {
      expect(row['status']).toBe('done');
      const file = path.join(destination, ...(row['file'] ?? '').split('/'));
      expect(sha256Of(file)).toBe(sandboxFile(sandbox, row['file_id'] ?? '').sha256);
    }
  }, 180_000);

  it('stops a sync at a page boundary; the next sync finishes it', async () => {
    const { sandbox, dataDir, core, cacheFile } = await connected(3000);
    await core.close();
    sandbox.control?.addFault({ match: '*', latencyMs: 30 });
    sandbox.control?.clearRequests();

    const first = await runCli(['sync'], {
      env: { SATCHEL_DATA_DIR: dataDir },
      interruptWhen: () => (sandbox.control?.requests().length ?? 0) >= 15,
    });
    expect(first.signal).toBeNull();
    expect(first.code).toBe(130);
    expect(first.stdout).toMatch(/Interrupted: cancelled, \d+ records written/);
    expect(first.stderr).toMatch(/^Syncing Interrupted\n/);
    // Each message on a line of its own, with no blank line left by the progress lines.
    expect(first.stderr.split('\nsatchel: ').slice(1)).toEqual([
      'stopping at the next safe point (Ctrl+C again quits at once)',
      'Sync interrupted; every page it wrote is kept. Run it again to finish.\n',
    ]);
    expect(first.stderr).not.toContain('\n\n');
    const outcomes = () => firstColumn(cacheFile, `SELECT outcome FROM sync_runs ORDER BY started_at`);
    expect(outcomes()).toEqual(['cancelled']);
    // The cancel is how the run ended, not a problem of the resource it stopped in.
    expect(firstColumn(cacheFile, `SELECT errors FROM sync_runs`)).toEqual(['[]']);

    sandbox.control?.clearFaults();
    const second = await runCli(['sync'], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Interrupted: succeeded');
    expect(outcomes()).toEqual(['cancelled', 'succeeded']);
  }, 120_000);

  it('stops a push that waits for the rate limit; the edits left wait for the next push', async () => {
    // Three writes a minute: the fourth edit would wait for the next window.
    const { sandbox, dataDir, core, profile } = await connected(200, { writeLimit: 3 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    for (let i = 1; i <= 5; i += 1)
      core.outbox.createSupplier(profile.id, { name: `Interrupted ${i}`, code: `INT-${i}` });
    await core.close();
    sandbox.control?.clearRequests();

    const started = Date.now();
    const push = await runCli(['edits', 'push'], {
      env: { SATCHEL_DATA_DIR: dataDir },
      interruptWhen: () => (sandbox.control?.requests('createSupplier').length ?? 0) >= 3,
    });
    expect(push.signal).toBeNull();
    expect(push.code).toBe(130);
    expect(push.stdout).toBe('3 sent, 0 failed, 0 conflicts, 2 waiting\n');
    expect(push.stderr).toContain('Sending offline edits was interrupted; 2 wait for the next push.');
    expect(Date.now() - started).toBeLessThan(50_000); // it did not sit out the minute
    expect(sandbox.control?.requests('createSupplier')).toHaveLength(3);

    const listed = await runCli(['edits', 'list', '--json'], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(listed.code).toBe(0);
    const items = (JSON.parse(listed.stdout) as { items: Array<{ status: string }> }).items;
    expect(items.map((item) => item.status)).toEqual(['pending', 'pending']);
  }, 120_000);

  it('leaves an edit plainly cancelled when Ctrl+C lands while the push waits to retry', async () => {
    const { sandbox, dataDir, core, profile } = await connected(200);
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const supplier = sandbox.state.suppliers[0]!;
    core.outbox.updateSupplier(profile.id, supplier.id, { name: `${supplier.name} (renamed)` });
    await core.close();
    // The read before the PATCH answers 503: the push waits 250-500 ms before trying again.
    const unavailable = sandbox.control!.addFault({ match: 'getSupplier', status: 503 });

    const push = await runCli(['edits', 'push'], {
      env: { SATCHEL_DATA_DIR: dataDir },
      interruptWhen: () => sandbox.control!.faultFired(unavailable) >= 1,
    });
    expect(push.code).toBe(130);
    expect(push.stdout).toBe('0 sent, 0 failed, 0 conflicts, 1 waiting\n');
    expect(push.stderr).not.toContain('unexpected');
    const listed = await runCli(['edits', 'list', '--json'], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(JSON.parse(listed.stdout)).toMatchObject({
      items: [{ status: 'pending', error: { code: 'CANCELLED' } }],
    });
  }, 120_000);

  it('ends quietly when the reader of its output goes away: at once, or as on Ctrl+C', async () => {
    const { sandbox, dataDir, core, profile, cacheFile } = await connected(600);
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    // `satchel search | head -1`: a broken pipe's status, and no stack trace; the totals, said
    // to the terminal, still reach it.
    const search = await runCli(['search'], { env, closeOutput: 'stdout' });
    expect(search.signal).toBeNull();
    expect(search.code).toBe(141);
    expect(search.stderr).toMatch(/^\d+ transactions · [^\n]* · page 1\n$/);

    // `2>&1 | head`: a download whose progress nobody reads any more is paused, not left
    // running, and that is not a crash.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 15 });
    const both = await runCli(['download', '--to', path.join(tempDir(), 'out')], {
      env,
      closeOutput: 'both',
    });
    expect(both.signal).toBeNull();
    expect(both.code).toBe(141);
    const statuses = () => firstColumn(cacheFile, `SELECT status FROM download_jobs ORDER BY created_at`);
    expect(statuses()).toEqual(['paused']);

    // `| head` alone: its progress is still read on stderr, so the download, whose result is the
    // folder, finishes; the summary nobody reads gives a broken pipe's status, not a stack trace.
    sandbox.control?.clearFaults();
    const download = await runCli(['download', '--to', path.join(tempDir(), 'elsewhere')], {
      env,
      closeOutput: 'stdout',
    });
    expect(download.signal).toBeNull();
    expect(download.code).toBe(141);
    expect(download.stderr).not.toContain('satchel:');
    expect(download.stderr).not.toContain('    at ');
    expect(statuses()).toEqual(['paused', 'completed']);
  }, 120_000);
});
