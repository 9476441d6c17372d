import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { marksIn, useReviewFixtures } from '../../helpers/review-fixtures';
import { useTempDirs } from '../../helpers/temp-dir';

// Ctrl+C on the real CLI (a child process) during `satchel review export` and `satchel review
// import`: the export stops between two slices, removes its temporary file and leaves the file
// it would have replaced as it was; the import stops between two slices, keeps what it merged
// and says how far it got; both end their progress line first, say so plainly, no stack trace,
// and exit with 130 as the other commands do on Ctrl+C.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

/** Enough marks that a Ctrl+C sent at the first progress line lands while the work goes on. */
const MARKS = 40_000;

/**
 * For the check: it takes about a second for 40,000 marks, too little margin for a signal sent
 * from a busy machine; this many take several.
 */
const CHECKED_MARKS = 200_000;

/** Transactions for a mark: slices of about 20 ms, enough of them for a signal to land between. */
const MARKED = 100_000;

const fixtures = useReviewFixtures(tempDir, connect);
const manyMarks = (marks = MARKS) => fixtures.manyMarks(marks);
const { manyTransactions } = fixtures;
const exportedThenCleared = (marks = MARKS) => fixtures.exportedThenCleared(marks);

const temporaries = (folder: string) => readdirSync(folder).filter((name) => name.endsWith('.partial'));

describe('Ctrl+C during review export and import', { timeout: 180_000 }, () => {
  it('stops an export: its temporary removed, the file it would replace as it was', async () => {
    const { env } = await manyMarks();
    const folder = tempDir();
    const file = path.join(folder, 'review.json');
    writeFileSync(file, 'the review file of last week\n');

    const stopped = await runCli(['review', 'export', '--out', file, '--force'], {
      env,
      interruptWhen: ({ stderr }) => stderr.includes('Exporting '),
    });
    expect(stopped.signal).toBeNull(); // it ended by itself, not by the signal
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe('the review file of last week\n');
    expect(temporaries(folder)).toEqual([]);
    // Each message on a line of its own, the progress line ended before it; the last count shown
    // is where the export stopped, above what became of it.
    const lines = stopped.stderr.split('\n');
    expect(lines.filter((line) => line.startsWith('satchel: '))).toEqual([
      'satchel: stopping at the next safe point (Ctrl+C again quits at once)',
      'satchel: The export was cancelled; no file was written.',
    ]);
    expect(lines.slice(-3)).toEqual([
      expect.stringMatching(/^Exporting [\d,]+ of 40,000 marks…$/),
      'satchel: The export was cancelled; no file was written.',
      '',
    ]);
    expect(stopped.stderr).not.toContain('\n\n');
    expect(stopped.stderr).not.toMatch(/40,000 of 40,000 marks/);
  });

  it('removes what a killed export left in the folder, a day old and of its own naming', async () => {
    const { env } = await manyMarks();
    const folder = tempDir();
    const stale = path.join(folder, '.satchel-export-0badf00d.partial');
    const fresh = path.join(folder, '.satchel-export-00c0ffee.partial'); // another export's, now
    const other = path.join(folder, '.someone-elses.partial');
    for (const leftover of [stale, fresh, other]) writeFileSync(leftover, '{"format": ');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(stale, twoDaysAgo, twoDaysAgo);
    utimesSync(other, twoDaysAgo, twoDaysAgo);

    const file = path.join(folder, 'review.json');
    const exported = await runCli(['review', 'export', '--out', file], { env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(`${MARKS} review marks written to ${file}\n`);
    expect(temporaries(folder).sort()).toEqual([path.basename(fresh), path.basename(other)].sort());
  });

  it('stops an import between slices: what it merged stays, said with its count', async () => {
    const { env, cacheFile, file } = await exportedThenCleared();

    const stopped = await runCli(['review', 'import', file], {
      env,
      interruptWhen: ({ stderr }) => stderr.includes('Importing '),
    });
    expect(stopped.signal).toBeNull();
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).not.toContain('    at ');
    // The last count shown is the one the message says, and the marks the copy holds.
    const lines = stopped.stderr.split('\n');
    expect(lines).toContain('satchel: stopping at the next safe point (Ctrl+C again quits at once)');
    const last = /^Importing ([\d,]+) of 40,000 marks…$/.exec(lines.at(-3) ?? '');
    expect(last).not.toBeNull();
    const merged = Number(last![1]!.replaceAll(',', ''));
    expect(merged).toBeGreaterThan(0);
    expect(merged).toBeLessThan(MARKS);
    expect(lines.slice(-2)).toEqual([
      `satchel: The import was interrupted after ${last![1]} of 40,000 marks; the marks merged so far stay. Import the same file again to finish.`,
      '',
    ]);
    expect(stopped.stderr).not.toContain('\n\n');
    expect(marksIn(cacheFile)).toBe(merged);

    const again = await runCli(['review', 'import', file], { env });
    expect(again.code).toBe(0);
    expect(marksIn(cacheFile)).toBe(MARKS);
  });

  it('stops a mark between slices: what it changed stays, said with its count', async () => {
    const { env, cacheFile, total } = await manyTransactions(MARKED);
    const mark = ['review', 'mark', '--reviewed', '--from', '2000-01-01'];
    // Off a terminal the mark prints nothing on its way: stopped once its first slice is in.
    const stopped = await runCli(mark, { env, interruptWhen: () => marksIn(cacheFile) > 0 });
    expect(stopped.signal).toBeNull();
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).not.toContain('    at ');
    const changed = marksIn(cacheFile);
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(total);
    expect(stopped.stderr.split('\n').slice(-3)).toEqual([
      'satchel: stopping at the next safe point (Ctrl+C again quits at once)',
      `satchel: The change was interrupted after ${new Intl.NumberFormat('en-US').format(changed)} of ${new Intl.NumberFormat('en-US').format(total)} records; those stay changed. Run the same command again to finish.`,
      '',
    ]);

    const again = await runCli(mark, { env });
    expect(again.code).toBe(0);
    expect(marksIn(cacheFile)).toBe(total);
  });

  it('stops an import while its file is checked: nothing changed', async () => {
    const { env, cacheFile, file } = await exportedThenCleared(CHECKED_MARKS);

    const stopped = await runCli(['review', 'import', file], {
      env,
      interruptWhen: ({ stderr }) => stderr.includes('Checking '),
    });
    expect(stopped.signal).toBeNull();
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).not.toContain('Importing ');
    expect(stopped.stderr).toContain(
      '\nsatchel: stopping at the next safe point (Ctrl+C again quits at once)\n',
    );
    // Stopped at once: the check counts no further after the stop. Its last count stands above
    // the message, before the stop notice or (a count not yet printed on this pipe) after it.
    const lines = stopped.stderr.split('\n');
    const checking = /^Checking [\d,]+ of 200,000 marks in the file…$/;
    const stop = 'satchel: stopping at the next safe point (Ctrl+C again quits at once)';
    const said = 'satchel: The import was interrupted while the file was checked; nothing was changed.';
    const [first, second, ...end] = lines.slice(-4);
    expect(end).toEqual([said, '']);
    expect([first, second]).toContain(stop);
    expect([first, second].filter((line) => line !== stop)).toEqual([expect.stringMatching(checking)]);
    expect(marksIn(cacheFile)).toBe(0);
  });
});
