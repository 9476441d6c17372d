import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCliAtTerminal, terminalScreen } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// The progress line a long command rewrites on a terminal (src-main/cli/status-line.ts), read
// as a person sees it: each command runs in a real pseudo-terminal, and what the terminal was
// sent is played back into the lines it shows. When the command fails half-way, its last
// progress stays readable and the error stands on a line of its own below it, not glued on.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

/** The cache refuses new rows of `table` once it holds `rows`, as a disk that fills up does. */
function refuseAfter(cacheFile: string, table: string, rows: number): void {
  const db = new Database(cacheFile);
  db.exec(
    `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} WHEN (SELECT count(*) FROM ${table}) >= ${rows}
     BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
  );
  db.close();
}

async function synced(transactions: number) {
  const connected = await connect('Screen', { transactions });
  expect((await connected.core.sync.sync(connected.profile.id)).outcome).toBe('succeeded');
  await connected.core.close();
  return { ...connected, env: { SATCHEL_DATA_DIR: connected.dataDir } };
}

// Each case starts a sandbox and one to three `satchel` processes through tsx.
describe('the progress line at a terminal', { timeout: 120_000 }, () => {
  it('review mark: the slices done stay on screen, and the error starts a line of its own', async () => {
    const { cacheFile, env } = await synced(3000);
    // The first slice (1,000 records) is written; the next is refused.
    refuseAfter(cacheFile, 'review_marks', 1000);
    const mark = await runCliAtTerminal(['review', 'mark', '--reviewed', '--from', '2000-01-01'], { env });
    expect(terminalScreen(mark.shown)).toEqual([
      'Marking 1,000 of 3,000 records…',
      'satchel: Satchel could not write to the offline copy of this organisation (database or disk is full).',
      '',
    ]);
    expect(mark.shown).toContain('\r\x1b[2KMarking 1,000 of 3,000 records…'); // a line rewritten in place
    expect(mark.code).toBe(1);
  });

  it('export: a file that cannot grow any more is said below the rows written so far', async () => {
    const { env } = await synced(3000);
    const out = path.join(tempDir(), 'all.csv');
    // Room for the first thousand rows, not for all three thousand.
    const exported = await runCliAtTerminal(['export', '--out', out], { env, fileLimitKiB: 400 });
    const screen = terminalScreen(exported.shown);
    expect(screen).toEqual([
      expect.stringMatching(/^exporting [1-9]\d* of 3000 transactions$/),
      `satchel: --out: Could not write ${out}: the file is too large for that disk. Nothing was written; choose another place.`,
      '',
    ]);
    expect(exported.code).toBe(1);
  });

  it('export to standard output: the rows scroll above the progress line, never after its text', async () => {
    const { env } = await synced(3000);
    const exported = await runCliAtTerminal(['export', '--out', '-', '--sort', 'id', '--asc'], { env });
    const screen = terminalScreen(exported.shown);
    expect(screen[0]).toMatch(/^\uFEFF?id,/); // the header
    const rows = screen.slice(1, -3);
    expect(rows).toHaveLength(3000);
    for (const row of rows) expect(row).not.toContain('exporting');
    expect(screen.slice(-3)).toEqual([
      'exporting 3000 of 3000 transactions',
      expect.stringMatching(/^3000 transactions written to standard output \(\d+ bytes\)$/),
      '',
    ]);
    expect(exported.code).toBe(0);
  });

  it('sync: the last state of a narrow terminal line stays, cut to its width, above the outcome', async () => {
    const { cacheFile, env } = await synced(1200);
    const db = new Database(cacheFile);
    db.exec('DELETE FROM bank_transactions');
    db.close();
    refuseAfter(cacheFile, 'bank_transactions', 500);
    const sync = await runCliAtTerminal(['sync', '--full'], { env, columns: 40 });
    const screen = terminalScreen(sync.shown);
    expect(screen[0]).toBe('Syncing Screen (repair: reading everything again)');
    // Each state fits the width (a wrapped one would not be rewritten whole): 38 characters and "…".
    expect(screen[1]).toMatch(/^bankTransactions: \d+ records · \d+ r?e?q?…$/);
    expect(screen[1]).toHaveLength(39);
    expect(screen.slice(2)).toEqual([
      expect.stringMatching(/^Screen: partial, \d+ records written$/),
      "  bankTransactions: Satchel could not write to this organisation's cache (database or disk is full); what was stored before is kept.",
      'satchel: Sync did not complete (Screen: partial).',
      '',
    ]);
    expect(sync.code).toBe(1);
  });

  it('download: the last progress line shows the total, not a state the summary has passed', async () => {
    // A download short enough to end within one interval of its progress events: its last state
    // came only with its end, which the line did not draw.
    const { sandbox, env } = await synced(40);
    const total = sandbox.state.files.length;
    const destination = path.join(tempDir(), 'all');
    const download = await runCliAtTerminal(['download', '--to', destination], { env });
    expect(download.shown).toContain('\r\x1b[2K');
    expect(terminalScreen(download.shown)).toEqual([
      `Downloading ${total} files to ${destination}`,
      expect.stringMatching(new RegExp(`^${total}/${total} files · (\\S+ \\S+) of \\1( · |$)`)),
      expect.stringMatching(new RegExp(`^${total} of ${total} files in ${destination} .*; manifest: `)),
      '',
    ]);
    expect(download.code).toBe(0);
  });

  it('download: a run ended by an error still ends its line on the counts the summary gives', async () => {
    // One file comes a second after the others: its bytes are the last progress event sent; the
    // count of it put in place comes within that event's interval, so it waits for the next. Then
    // the cache refuses to record the job as completed: the run ends through the service's error
    // path, which sends no last event, and the last one sent is a file short.
    const { cacheFile, sandbox, env } = await synced(40);
    const total = sandbox.state.files.length;
    const late = sandbox.state.files[0]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${late}/content`, latencyMs: 1000 });
    const db = new Database(cacheFile);
    db.exec(
      `CREATE TRIGGER refuse_completed BEFORE UPDATE OF status ON download_jobs WHEN NEW.status = 'completed'
       BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    );
    db.close();
    const destination = path.join(tempDir(), 'all');
    const download = await runCliAtTerminal(['download', '--to', destination], { env });
    expect(download.shown).toContain('\r\x1b[2K');
    expect(terminalScreen(download.shown)).toEqual([
      `Downloading ${total} files to ${destination}`,
      expect.stringMatching(new RegExp(`^${total}/${total} files · (\\S+ \\S+) of \\1( · |$)`)),
      `${total} of ${total} files in ${destination} (${total} fetched, 0 copied from the offline cache, 0 already there)`,
      expect.stringMatching(
        /^satchel: .*database or disk is full.* The download stopped; run the same command again/,
      ),
      '',
    ]);
    expect(download.code).toBe(1);
  });

  it('download: progress, the summary, the failed file and the error each on a line', async () => {
    const { sandbox, env } = await synced(200);
    const total = sandbox.state.files.length;
    const broken = sandbox.state.files[5]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${broken}/content`, corruptBody: true, times: 3 });
    const destination = path.join(tempDir(), 'out');
    const download = await runCliAtTerminal(['download', '--to', destination], { env });
    expect(download.shown).toContain('\r\x1b[2K');
    expect(terminalScreen(download.shown)).toEqual([
      `Downloading ${total} files to ${destination}`,
      expect.stringMatching(new RegExp(`^\\d+/${total} files · `)),
      expect.stringMatching(
        new RegExp(`^${total - 1} of ${total} files in ${destination} .*, 1 failed; manifest: `),
      ),
      expect.stringMatching(/^ {2}.+: File .+ arrived damaged/),
      'satchel: 1 file could not be downloaded; run the same command again to retry it.',
      '',
    ]);
    expect(download.code).toBe(1);
  });
});
