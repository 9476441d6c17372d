import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CTRL_C, runCliAtTerminal, terminalScreen } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { marksIn, useReviewFixtures } from '../../helpers/review-fixtures';
import { useTempDirs } from '../../helpers/temp-dir';

// Ctrl+C pressed at a terminal during `satchel review export`, `import` and `mark`, as a person
// presses it: the key goes into a real pseudo-terminal (util-linux's `script` passes it on as a
// key), whose line discipline echoes "^C" where the cursor stands and sends SIGINT to the
// command. The screen is read back as it shows (`terminalScreen`): the progress line redrawn in
// place stays readable with the "^C" after it, the stop message stands on a line of its own
// below it, the last count shown is where the work stopped, and the outcome is the last line,
// on its own too; no stack trace, exit 130. review-interrupt.test.ts checks the same stops off
// a terminal, with what they leave on disk.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);
const { manyMarks, manyTransactions, exportedThenCleared } = useReviewFixtures(tempDir, connect);

const STOPPING = 'satchel: stopping at the next safe point (Ctrl+C again quits at once)';

/** Counts as the CLI groups them ("40,000"). */
const grouped = (n: number) => new Intl.NumberFormat('en-US').format(n);
const count = (text: string) => Number(text.replaceAll(',', ''));

/**
 * The screen after a Ctrl+C, split at the stop message: the progress line it ended (shown with
 * the terminal's "^C" echo, or redrawn over it by a count drawn before the signal was handled),
 * then what came below it. Each part is checked whole, so that a message glued onto another
 * line, a line too many or a stray fragment fails.
 */
function afterStop(shown: string) {
  const screen = terminalScreen(shown);
  const stop = screen.indexOf(STOPPING);
  expect(screen, 'the stop message on a line of its own').toContain(STOPPING);
  expect(shown).not.toContain('    at ');
  return { screen, before: screen.slice(0, stop), after: screen.slice(stop + 1) };
}

// Each case fills an offline copy, starts a sandbox and one or two `satchel` processes.
describe('Ctrl+C at a terminal during review export, import and mark', { timeout: 180_000 }, () => {
  it('export: the progress line, then the stop, then the cancellation, each on its own line', async () => {
    const { env } = await manyMarks(40_000);
    const file = path.join(tempDir(), 'review.json');
    const stopped = await runCliAtTerminal(['review', 'export', '--out', file], {
      env,
      type: CTRL_C,
      when: /Exporting /,
    });
    const { before, after } = afterStop(stopped.shown);
    expect(before).toEqual([expect.stringMatching(/^Exporting [\d,]+ of 40,000 marks…(\^C)?$/)]);
    // The count where the export stopped, unless the line above said it already.
    expect(after).toEqual([
      ...(after.length === 3 ? [expect.stringMatching(/^Exporting [\d,]+ of 40,000 marks…$/)] : []),
      'satchel: The export was cancelled; no file was written.',
      '',
    ]);
    expect(terminalScreen(stopped.shown).join('\n')).not.toContain('40,000 of 40,000');
    expect(stopped.code).toBe(130);
    expect(existsSync(file)).toBe(false);
  });

  it('import: the merge stops where its last count says, and the message gives that count', async () => {
    const { env, cacheFile, file } = await exportedThenCleared(40_000);
    const stopped = await runCliAtTerminal(['review', 'import', file], {
      env,
      type: CTRL_C,
      when: /Importing /,
    });
    const { screen, before, after } = afterStop(stopped.shown);
    // The check's line was redrawn as the merge's: one line above the stop.
    expect(before).toEqual([expect.stringMatching(/^Importing [\d,]+ of 40,000 marks…(\^C)?$/)]);
    const shown = screen.flatMap((line) => /^Importing ([\d,]+) of 40,000 marks…/.exec(line)?.[1] ?? []);
    const last = shown.at(-1)!;
    expect(after).toEqual([
      ...(after.length === 3 ? [`Importing ${last} of 40,000 marks…`] : []),
      `satchel: The import was interrupted after ${last} of 40,000 marks; the marks merged so far stay. Import the same file again to finish.`,
      '',
    ]);
    expect(count(last)).toBeGreaterThan(0);
    expect(count(last)).toBeLessThan(40_000);
    expect(marksIn(cacheFile)).toBe(count(last));
    expect(stopped.code).toBe(130);
  });

  it('import: stopped while the file is checked, nothing changed, said below the check', async () => {
    const { env, cacheFile, file } = await exportedThenCleared(200_000);
    const stopped = await runCliAtTerminal(['review', 'import', file], {
      env,
      type: CTRL_C,
      when: /Checking /,
    });
    const { screen, before, after } = afterStop(stopped.shown);
    expect(before).toEqual([expect.stringMatching(/^Checking [\d,]+ of 200,000 marks in the file…(\^C)?$/)]);
    expect(after).toEqual([
      ...(after.length === 3
        ? [expect.stringMatching(/^Checking [\d,]+ of 200,000 marks in the file…$/)]
        : []),
      'satchel: The import was interrupted while the file was checked; nothing was changed.',
      '',
    ]);
    expect(screen.join('\n')).not.toContain('Importing ');
    expect(marksIn(cacheFile)).toBe(0);
    expect(stopped.code).toBe(130);
  });

  it('mark: the last count shown is the one the message gives, each on its own line', async () => {
    const { env, cacheFile, total } = await manyTransactions(100_000);
    const stopped = await runCliAtTerminal(['review', 'mark', '--reviewed', '--from', '2000-01-01'], {
      env,
      type: CTRL_C,
      when: /Marking /,
    });
    const { before, after } = afterStop(stopped.shown);
    // No slice begins once the stop is said: the count above it is the last.
    expect(before).toEqual([
      expect.stringMatching(new RegExp(`^Marking ([\\d,]+) of ${grouped(total)} records…(\\^C)?$`)),
    ]);
    const last = /^Marking ([\d,]+) of/.exec(before[0]!)![1]!;
    expect(after).toEqual([
      `satchel: The change was interrupted after ${last} of ${grouped(total)} records; those stay changed. Run the same command again to finish.`,
      '',
    ]);
    expect(count(last)).toBeLessThan(total);
    expect(marksIn(cacheFile)).toBe(count(last));
    expect(stopped.code).toBe(130);
  });
});
