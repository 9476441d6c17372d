import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// "Did last night's sync run, and what went wrong?" from a script or over ssh: the runs the
// Sync screen's history lists, read from the offline copy.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('satchel sync history', () => {
  it('lists the recorded runs newest first, with their outcome, counts and errors', async () => {
    const { sandbox, dataDir, core, profile } = await connect('History', { transactions: 60 });
    const env = { SATCHEL_DATA_DIR: dataDir };
    expect(await runCli(['sync', 'history'], { env })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No sync of "History" is recorded yet; "satchel sync" runs one.\n',
    });

    const first = await core.sync.sync(profile.id);
    expect(first.outcome).toBe('succeeded');
    await sandbox.stop();
    const second = await core.sync.sync(profile.id);
    expect(second.outcome).toBe('failed');
    expect(second.errors.length).toBeGreaterThan(0);
    const runs = core.sync.history(profile.id, 20);
    await core.close();

    const json = await runCli(['sync', 'history', '--json'], { env });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toEqual({
      runs: runs.map((run) => ({
        id: run.id,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        outcome: run.outcome,
        counts: JSON.parse(run.counts) as unknown,
        errors: JSON.parse(run.errors) as unknown,
      })),
      lastSucceededAt: first.finishedAt,
    });
    expect(runs.map((run) => run.outcome)).toEqual(['failed', 'succeeded']);

    const text = await runCli(['sync', 'history'], { env });
    expect(text).toMatchObject({ code: 0, stderr: '' });
    const [header, failed, succeeded, ...rest] = text.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(header).toMatch(/^STARTED\s+FINISHED\s+OUTCOME\s+RECORDS\s+ERRORS\s+FIRST ERROR$/);
    const written = Object.values(first.counts).reduce((sum, n) => sum + n, 0);
    expect(written).toBeGreaterThan(0);
    expect(succeeded).toBe(
      `${first.startedAt}  ${first.finishedAt}  succeeded  ${String(written).padEnd(7)}  0`.trimEnd(),
    );
    expect(failed).toMatch(
      new RegExp(
        `^${second.startedAt}  ${second.finishedAt}  failed     \\d+\\s+${second.errors.length}\\s+\\S`,
      ),
    );
    expect(failed).toContain(second.errors[0]!.message.replace(/\s+/g, ' '));

    const newest = await runCli(['sync', 'history', '--limit', '1'], { env });
    expect(newest.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(newest.stdout).toContain('failed');
    expect(await runCli(['sync', 'history', '--limit', '0'], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--limit takes a whole number from 1 to 200, not "0"') as unknown,
    });
  });
});
