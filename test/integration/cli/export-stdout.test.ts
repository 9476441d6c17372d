import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel export --out - | csvkit…`: the CSV a file export would hold, on standard output and
// nothing else there; the summary line that names the file goes to stderr instead. The
// byte-order mark is for Excel opening a file, so a program reading the pipe does not get it.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);
const BOM = '\uFEFF';

describe('satchel export --out -', () => {
  it('writes the CSV alone to stdout, as the file export writes it but for the byte-order mark', async () => {
    const { dataDir, core, profile } = await connect('Piped', { transactions: 80 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const folder = tempDir();

    for (const [what, args] of [
      ['transactions', ['export', '--matched', 'false', '--locale', 'de-DE']],
      ['expenses', ['export', 'expenses', '--has-file', 'true', '--sort', 'amount', '--asc']],
    ] as const) {
      const file = path.join(folder, `${what}.csv`);
      const written = await runCli([...args, '--out', file], { env });
      expect(written.code).toBe(0);
      const rows = Number(/^(\d+) /.exec(written.stdout)?.[1]);
      expect(rows).toBeGreaterThan(0);

      const piped = await runCli([...args, '--out', '-'], { env });
      expect(piped.code).toBe(0);
      expect(BOM + piped.stdout).toBe(readFileSync(file, 'utf8'));
      expect(piped.stdout.startsWith('id')).toBe(true);
      expect(piped.stdout.trimEnd().split('\r\n')).toHaveLength(rows + 1);
      expect(piped.stderr).toBe(
        `${rows} ${what} written to standard output (${Buffer.byteLength(piped.stdout)} bytes)\n`,
      );
    }

    // Standard output is never "replaced"; asking to is a mistake of usage.
    expect(await runCli(['export', '--out', '-', '--force'], { env })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining(
        '--force replaces a file; "--out -" writes to standard output',
      ) as unknown,
    });
    // A reader that goes away at once (`| head -0`): a broken pipe's status, no stack trace.
    const closed = await runCli(['export', '--out', '-'], { env, closeOutput: 'stdout' });
    expect(closed.code).toBe(141);
    expect(closed.stderr).not.toContain('unexpected');
    expect(closed.stderr).not.toMatch(/\n\s+at /);
  });
});
