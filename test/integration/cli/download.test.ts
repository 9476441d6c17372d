import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { contentRequests } from '../../helpers/files';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel download` as a script sees it (no terminal): its progress lines, what it says when a
// file fails, when the network goes away in the middle and when the folder is wrong, and its
// exit status each time.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

/** A progress line on a pipe: counts, bytes, then a rate and time left only when they are known. */
const PROGRESS =
  /^\d+\/\d+ files · [\d.]+ [KMGT]?B of [\d.]+ [KMGT]?B( · [\d.]+ [KMGT]?B\/s)?( · about \d+(\.\d)? (s|min|h) left)?( · \d+ failed)?( · waiting for the rate limit until \d\d:\d\d:\d\d)?$/;

describe('satchel download on a pipe', () => {
  it('refuses an id the offline copy does not hold, and names the ones given that bring no file', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Audit', { transactions: 200 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    // A file deleted on the server since: the offline copy keeps its record, marked deleted.
    const [kept, deleted] = sandbox.state.files.map((file) => file.id);
    core
      .cacheOf(profile.id)
      .sqlite.prepare('UPDATE expense_files SET deleted_at = ? WHERE id = ?')
      .run('2026-11-01T00:00:00Z', deleted);
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const state = sandbox.state;
    // A transaction documented by an expense with exactly one file, and one no expense documents
    // (unmatched).
    const withFile = state.expenses.find(
      (expense) =>
        expense.bankTransactionId && state.files.filter((file) => file.expenseId === expense.id).length === 1,
    )!.bankTransactionId!;
    const unmatched = await runCli(['search', '--matched', 'false', '--json', '--page-size', '1'], { env });
    const bare = (JSON.parse(unmatched.stdout) as { rows: Array<{ id: string }> }).rows[0]!.id;
    expect(state.expenses.some((expense) => expense.bankTransactionId === bare)).toBe(false);
    const destination = path.join(tempDir(), 'out');

    // A mistyped id among good ones: the good ones' files used to be downloaded without a word.
    const typo = await runCli(
      ['download', '--to', destination, '--transaction', withFile, '--transaction', 'typo'],
      { env },
    );
    expect(typo).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'satchel: --transaction: No transaction with the id typo in the offline copy; nothing was downloaded. Sync, then try again.\n',
    });
    expect(existsSync(destination)).toBe(false);
    // Ids in upper case are the same records, as the other commands take them.
    const expense = await runCli(['download', '--to', destination, '--expense', 'TYPO'], { env });
    expect(expense.stderr).toContain('--expense: No expense with the id TYPO');

    // A transaction with no files beside one with a file: said, and the one file downloaded.
    const some = await runCli(
      ['download', '--to', destination, '--transaction', withFile, '--transaction', bare.toUpperCase()],
      { env },
    );
    expect(some.code).toBe(0);
    const lines = some.stderr.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `Note: the transaction ${bare.toUpperCase()} has no files.`,
      `Downloading 1 file to ${destination}`,
    ]);
    expect(some.stdout).toMatch(new RegExp(`^1 of 1 file in ${destination} \\(1 fetched, `));

    // A file deleted since beside one that is not.
    const files = await runCli(
      ['download', '--to', path.join(tempDir(), 'files'), '--file', kept!, '--file', deleted!],
      { env },
    );
    expect(files.code).toBe(0);
    expect(files.stderr.split('\n')[0]).toBe(`Note: the file ${deleted} was deleted.`);
    expect(files.stdout).toMatch(/^1 of 1 file in /);
  });

  it('prints plain progress lines on stderr, says which file failed and where the manifest is, and goes on after the network came back', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Audit', { transactions: 200 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const total = sandbox.state.files.length;
    const broken = sandbox.state.files[5]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${broken}/content`, corruptBody: true, times: 3 });
    const destination = path.join(tempDir(), 'out');
    const args = ['download', '--to', destination, '--layout', 'month'];

    const first = await runCli(args, { env });
    expect(first.code).toBe(1);
    // stdout holds the summary alone; what it is doing, and what failed, goes to stderr.
    expect(first.stdout).toBe(
      `${total - 1} of ${total} files in ${destination} (${total - 1} fetched, 0 copied from the offline cache, 0 already there), 1 failed; manifest: ${path.join(destination, 'manifest.csv')}\n`,
    );
    const lines = first.stderr.trim().split('\n');
    expect(lines[0]).toBe(`Downloading ${total} files to ${destination}`);
    const progress = lines.slice(1).filter((line) => PROGRESS.test(line));
    expect(progress.length).toBeGreaterThan(0);
    expect(lines.slice(1 + progress.length).join('\n')).toMatch(
      /^ {2}\d{4}-\d{2}\/.+: File .+ arrived damaged .*\(gave up after 3 attempts\)\.\n/,
    );
    expect(first.stderr).toContain(
      'satchel: 1 file could not be downloaded; run the same command again to retry it.\n',
    );

    // Again: only the failed file is fetched; the others are found in place (said at once), and
    // no rate is claimed for files that did not come over the network.
    sandbox.control?.clearRequests();
    const again = await runCli(args, { env });
    expect(again.code).toBe(0);
    expect([...contentRequests(sandbox).keys()]).toEqual([broken]);
    expect(again.stderr.split('\n')[0]).toBe(
      `Downloading ${total} files to ${destination} (${total - 1} already there)`,
    );
    for (const line of again.stderr.trim().split('\n').slice(1)) {
      expect(line).toMatch(PROGRESS);
      expect(line).not.toContain('0 B/s');
    }
    expect(again.stdout).toMatch(
      new RegExp(`^${total} of ${total} files in ${destination} \\(1 fetched, 0 copied[^\\n]+\\n$`),
    );

    // The network goes away in the middle: the reason, that it can go on, and a failure status.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 30 });
    sandbox.control?.clearRequests();
    const cut = path.join(tempDir(), 'cut');
    const running = runCli(['download', '--to', cut], { env });
    const deadline = Date.now() + 30_000;
    while ((sandbox.control?.requests('getFileContent').length ?? 0) < 20 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await sandbox.stop();
    const offline = await running;
    expect(offline.code).toBe(1);
    expect(offline.stdout).toMatch(new RegExp(`\\d+ of ${total} files in `));
    expect(offline.stderr).toMatch(
      /\nsatchel: Could not reach .+ The download stopped; run the same command again to continue\.\n$/,
    );

    // Other options into that folder make another download, and say that the first is left as it is.
    const other = await runCli(['download', '--to', cut, '--layout', 'month'], { env });
    expect(other.stderr).toMatch(
      new RegExp(
        `^Downloading ${total} files to ${cut}\\nNote: the download into this folder started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\(--layout flat --template "\\{bookingDate\\}_\\{counterparty\\}_\\{amount\\}_\\{currency\\}_\\{originalName\\}"; \\d+ of ${total} files, pending\\) is not continued by this one; run it with its own options, or resume it in Satchel\\.\\n`,
      ),
    );
  }, 120_000);

  it('ends its progress lines on the final state, done or stopped, each state once', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Audit', { transactions: 200 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const total = sandbox.state.files.length;
    // Slow enough for several progress events, whose last one while running trails the end.
    sandbox.control?.addFault({ match: 'getFileContent', latencyMs: 20 });
    const progressOf = (stderr: string) => stderr.split('\n').filter((line) => PROGRESS.test(line));
    const countsOf = (line: string) => line.split(' · ').slice(0, 2).join(' · ');

    const done = await runCli(['download', '--to', path.join(tempDir(), 'all')], { env });
    expect(done.code).toBe(0);
    const lines = progressOf(done.stderr);
    expect(lines.length).toBeGreaterThan(1);
    // All of them, every byte.
    expect(lines.at(-1)).toMatch(new RegExp(`^${total}/${total} files · ([\\d.]+ [KMGT]?B) of \\1( · |$)`));
    // The state before the summary is said once, not again in other words.
    const counts = lines.map(countsOf);
    expect(counts.filter((line) => line === counts.at(-1))).toHaveLength(1);
    expect(done.stderr.endsWith(`${lines.at(-1)}\n`)).toBe(true);

    // Stopped by Ctrl+C half way: the last line is where it stopped, as the summary says.
    sandbox.control?.clearRequests();
    const cut = await runCli(['download', '--to', path.join(tempDir(), 'cut')], {
      env,
      interruptWhen: () => (sandbox.control?.requests('getFileContent').length ?? 0) >= total / 2,
    });
    expect(cut.code).toBe(130);
    const summary = /^(\d+) of (\d+) files in .*?(?:, (\d+) failed)?(?:; manifest: .*)?\n$/.exec(cut.stdout);
    expect(summary).not.toBeNull();
    const stoppedAt = Number(summary![1]) + Number(summary![3] ?? 0);
    expect(stoppedAt).toBeLessThan(total);
    const stopped = progressOf(cut.stderr);
    expect(stopped.at(-1)).toMatch(new RegExp(`^${stoppedAt}/${total} files · `));
    expect(stopped.map(countsOf).filter((line) => line === countsOf(stopped.at(-1)!))).toHaveLength(1);
  }, 120_000);

  it('names --to when the folder cannot be used', async () => {
    const { dataDir, core, profile } = await connect('Audit', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const file = path.join(tempDir(), 'receipts.pdf');
    writeFileSync(file, 'not a folder');
    const result = await runCli(['download', '--to', file], { env: { SATCHEL_DATA_DIR: dataDir } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `satchel: --to: Satchel cannot create the folder ${file}: a file of that name is in the way.\n`,
    );
  });
});

describe('satchel sync and download when the server resets the connection', () => {
  it('say the connection was reset, not that the network is gone', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Audit', { transactions: 40 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const host = new URL(sandbox.url).host;
    const reset = `The connection to ${host} was reset before the server answered`;

    // Connected, then cut before the headers: one file, every time.
    const dropped = sandbox.state.files[2]!.id;
    sandbox.control?.addFault({ match: `/v1/files/${dropped}/content`, drop: true });
    const download = await runCli(['download', '--to', path.join(tempDir(), 'out')], { env });
    expect(download.code).toBe(1);
    expect(download.stderr).toMatch(
      new RegExp(`\\n {2}\\S.*: ${reset} \\(gave up after 3 attempts\\)\\.\\n`),
    );
    expect(download.stderr).toContain('satchel: 1 file could not be downloaded; run the same command again');
    expect(download.stderr).not.toMatch(/Could not reach|offline/);

    // Every connection of the sync: it fails, and says why.
    sandbox.control?.clearFaults();
    sandbox.control?.addFault({ match: '*', drop: true });
    const sync = await runCli(['sync'], { env });
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(`${reset}. Try again later.\n`);
    expect(sync.stderr).not.toMatch(/Could not reach|offline/);
  }, 120_000);
});
