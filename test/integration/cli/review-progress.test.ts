import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, runCliAtTerminal, terminalScreen } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// How far `satchel review export` and `satchel review import` are, on stderr: at a real
// terminal (a pseudo-terminal) one line rewritten and ended on its last count before the
// summary or the error; on a pipe a line at each tenth of each step, the last one where the
// work ended. Standard output keeps its one summary line, as scripts read it.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

/** An organisation of 3,000 transactions, each marked reviewed: 3,000 review marks. */
async function marked() {
  const connected = await connect('Review', { transactions: 3000 });
  expect((await connected.core.sync.sync(connected.profile.id)).outcome).toBe('succeeded');
  await connected.core.close();
  const env = { SATCHEL_DATA_DIR: connected.dataDir };
  const mark = await runCli(['review', 'mark', '--reviewed', '--from', '2000-01-01'], { env });
  expect(mark).toMatchObject({ code: 0, stdout: '3000 records changed\n' });
  return { ...connected, env };
}

/** The cache forgets its marks (and refuses new ones past `refuseAfter`), so that an import takes the file's. */
function forgetMarks(cacheFile: string, refuseAfter?: number): void {
  const db = new Database(cacheFile);
  db.exec('DELETE FROM review_tags; DELETE FROM review_marks');
  if (refuseAfter !== undefined)
    db.exec(
      `CREATE TRIGGER refuse_marks BEFORE INSERT ON review_marks
         WHEN (SELECT count(*) FROM review_marks) >= ${refuseAfter}
       BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    );
  db.close();
}

/** "Exporting 250 of 3,000 marks…" for each count given. */
const lines = (verb: string, counts: number[], where = '') =>
  counts.map((done) => `${verb} ${done.toLocaleString('en-US')} of 3,000 marks${where}…`);

describe('review export and import progress', { timeout: 180_000 }, () => {
  it('at a terminal: one line rewritten, its last count above the summary', async () => {
    const { cacheFile, env } = await marked();
    const file = path.join(tempDir(), 'review.json');
    const exported = await runCliAtTerminal(['review', 'export', '--out', file], { env });
    expect(exported.shown).toContain('\r\x1b[2KExporting 250 of 3,000 marks…'); // the first slice at once
    expect(terminalScreen(exported.shown)).toEqual([
      'Exporting 3,000 of 3,000 marks…',
      `3000 review marks written to ${file}`,
      '',
    ]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).marks).toHaveLength(3000);

    forgetMarks(cacheFile);
    const imported = await runCliAtTerminal(['review', 'import', file], { env });
    expect(imported.shown).toContain('\r\x1b[2KChecking 1,000 of 3,000 marks in the file…');
    expect(imported.shown).toContain('\r\x1b[2KImporting 250 of 3,000 marks…');
    expect(terminalScreen(imported.shown)).toEqual([
      'Importing 3,000 of 3,000 marks…',
      '3000 review marks read, 3000 records updated',
      '',
    ]);
    expect(imported.code).toBe(0);
  });

  it('at a terminal: an export that cannot grow the file says so below the marks written', async () => {
    const { env } = await marked();
    const file = path.join(tempDir(), 'review.json');
    // Room for part of the file (about 200 bytes a mark), not for all of it.
    const exported = await runCliAtTerminal(['review', 'export', '--out', file], { env, fileLimitKiB: 200 });
    const screen = terminalScreen(exported.shown);
    expect(screen).toEqual([
      expect.stringMatching(/^Exporting [\d,]+ of 3,000 marks…$/),
      expect.stringMatching(new RegExp(`^satchel: --out: Could not write ${file}: .*Nothing was written`)),
      '',
    ]);
    expect(screen[0]).not.toBe('Exporting 3,000 of 3,000 marks…');
    expect(exported.code).toBe(1);
  });

  it('on a pipe: a line at each tenth of each step, stdout as before', async () => {
    const { cacheFile, env } = await marked();
    const file = path.join(tempDir(), 'review.json');
    const exported = await runCli(['review', 'export', '--out', file], { env });
    expect(exported).toMatchObject({ code: 0, stdout: `3000 review marks written to ${file}\n` });
    // Slices of 250: 1,750 is in the same tenth as 1,500.
    const tenths = [250, 500, 750, 1000, 1250, 1500, 2000, 2250, 2500, 2750, 3000];
    expect(exported.stderr).toBe(
      lines('Exporting', tenths)
        .map((line) => `${line}\n`)
        .join(''),
    );
    expect(exported.stderr).not.toContain('\r');

    forgetMarks(cacheFile);
    const imported = await runCli(['review', 'import', file], { env });
    expect(imported).toMatchObject({ code: 0, stdout: '3000 review marks read, 3000 records updated\n' });
    expect(imported.stderr.split('\n')).toEqual([
      ...lines('Checking', [1000, 2000, 3000], ' in the file'),
      ...lines('Importing', tenths),
      '',
    ]);
  });

  it('on a pipe: an import stopped part-way ends its lines on where it stopped', async () => {
    const { cacheFile, env } = await marked();
    const file = path.join(tempDir(), 'review.json');
    expect((await runCli(['review', 'export', '--out', file], { env })).code).toBe(0);
    // Seven slices go in (1,750 marks, the same tenth as 1,500); the eighth is refused.
    forgetMarks(cacheFile, 1750);
    const imported = await runCli(['review', 'import', file], { env });
    expect(imported.code).not.toBe(0);
    expect(imported.stdout).toBe('');
    expect(imported.stderr.split('\n')).toEqual([
      ...lines('Checking', [1000, 2000, 3000], ' in the file'),
      ...lines('Importing', [250, 500, 750, 1000, 1250, 1500, 1750]),
      expect.stringMatching(/^satchel: .*database or disk is full/),
      '',
    ]);
  });
});
