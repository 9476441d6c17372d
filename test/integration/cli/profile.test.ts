import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src-sandbox';
import { runCli, runCliAtTerminal } from '../../helpers/cli';
import { useTempDirs } from '../../helpers/temp-dir';

// The real CLI in a child process, the real keychain (scripts/with-keyring.sh).
const tempDir = useTempDirs();

describe('satchel CLI: connections', () => {
  it('adds with the secret from standard input, lists, renames and removes', async () => {
    const dataDir = tempDir();
    const env = { SATCHEL_DATA_DIR: dataDir };
    const added = await runCli(
      [
        'profile',
        'add',
        '--name',
        'Acme',
        '--url',
        'http://127.0.0.1:4010',
        '--client-id',
        'kid_acme',
        '--client-secret-stdin',
      ],
      { env, stdin: 'sk_from_stdin\n' },
    );
    // Nothing answers there: kept, and said to be unchecked.
    expect(added.stderr).toBe(
      'Connected "Acme" (http://127.0.0.1:4010).\n' +
        'Added. It could not be checked now (no connection); the first sync will check it.\n',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toBe('');
    expect(readFileSync(path.join(dataDir, 'profiles.json'), 'utf8')).not.toContain('sk_from_stdin');

    const listed = await runCli(['profile', 'list', '--json'], { env });
    const profiles = JSON.parse(listed.stdout) as Array<{ name: string; id: string }>;
    expect(profiles.map((profile) => profile.name)).toEqual(['Acme']);

    expect((await runCli(['profile', 'rename', 'Acme', '--name', 'Acme GmbH'], { env })).code).toBe(0);
    const status = await runCli(['status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({
      keychain: { available: true },
      profiles: [{ name: 'Acme GmbH' }],
    });

    const removed = await runCli(['profile', 'remove', 'Acme GmbH'], { env });
    expect(removed.code).toBe(0);
    expect(await runCli(['profile', 'list'], { env })).toMatchObject({
      stdout: '',
      stderr: expect.stringContaining('No organisation is connected') as unknown,
    });
  });

  it('takes the secret from SATCHEL_CLIENT_SECRET and never from an argument', async () => {
    const env = { SATCHEL_DATA_DIR: tempDir() };
    const missing = await runCli(
      ['profile', 'add', '--name', 'A', '--url', 'https://x.test', '--client-id', 'kid'],
      { env: { ...env, SATCHEL_CLIENT_SECRET: '' } },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/standard input|SATCHEL_CLIENT_SECRET/);
    const asArgument = await runCli(
      [
        'profile',
        'add',
        '--name',
        'A',
        '--url',
        'https://x.test',
        '--client-id',
        'kid',
        '--client-secret',
        'sk',
      ],
      { env },
    );
    expect(asArgument.code).toBe(2);
    const fromEnv = await runCli(
      ['profile', 'add', '--name', 'A', '--url', 'https://x.test', '--client-id', 'kid'],
      { env: { ...env, SATCHEL_CLIENT_SECRET: 'sk_env' } },
    );
    expect(fromEnv.code).toBe(0);
  });

  it('asks for the secret at a terminal without showing it, and checks it with the API', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 20 });
    try {
      const env = { SATCHEL_DATA_DIR: tempDir(), SATCHEL_CLIENT_SECRET: '' };
      const add = (secret: string, name: string) =>
        runCliAtTerminal(
          ['profile', 'add', '--name', name, '--url', sandbox.url, '--client-id', sandbox.clientId],
          { env, when: /Client secret \(not shown\): /, type: `${secret}\r` },
        );
      // The API accepts the key, so the typed secret arrived whole; the terminal never showed it.
      const right = await add(sandbox.clientSecret, 'Typed');
      expect(right.shown).toContain('Connected "Typed"');
      expect(right.shown).not.toContain(sandbox.clientSecret);
      expect(right.code).toBe(0);
      // Backspace takes back a mistyped character.
      const corrected = await add(`${sandbox.clientSecret}x\u007f`, 'Corrected');
      expect(corrected.shown).toContain('Connected "Corrected"');
      expect(corrected.code).toBe(0);
      const wrong = await add('sk_not_the_secret', 'Wrong');
      expect(wrong.shown).toContain('The API refused these credentials');
      expect(wrong.shown).not.toContain('sk_not_the_secret');
      expect(wrong.code).toBe(1);
      // Ctrl+C at the prompt adds nothing.
      const cancelled = await add('sk_half\u0003', 'Cancelled');
      expect(cancelled.code).toBe(130);
      expect(cancelled.shown).not.toContain('sk_half');
      const listed = await runCli(['profile', 'list', '--json'], { env });
      expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((p) => p.name)).toEqual([
        'Typed',
        'Corrected',
      ]);
    } finally {
      await sandbox.stop();
    }
  });

  it('connects with a token from SATCHEL_TOKEN, as its usage message says it can', async () => {
    const env = { SATCHEL_DATA_DIR: tempDir() };
    const added = await runCli(['profile', 'add', '--name', 'T', '--url', 'https://x.test'], {
      env: { ...env, SATCHEL_TOKEN: 'tok_from_env' },
    });
    expect(added.stderr).toBe(
      'Connected "T" (https://x.test).\n' +
        'Added. It could not be checked now (no connection); the first sync will check it.\n',
    );
    expect(added.code).toBe(0);
    const listed = await runCli(['profile', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'T', authKind: 'token' }]);
    // Without a token anywhere, the message names both ways to give one.
    const missing = await runCli(['profile', 'add', '--name', 'U', '--url', 'https://x.test'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--client-id');
  });

  it('exits 2 on usage mistakes and 1 on failures, with a message', async () => {
    const env = { SATCHEL_DATA_DIR: tempDir() };
    const unknown = await runCli(['fly'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "fly"');
    const badUrl = await runCli(['profile', 'add', '--name', 'A', '--url', 'ftp://x', '--client-id', 'kid'], {
      env: { ...env, SATCHEL_CLIENT_SECRET: 's' },
    });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--url: Enter an http(s) address');
    const noSuch = await runCli(['profile', 'remove', 'Nobody'], { env });
    expect(noSuch.code).toBe(1);
    expect(noSuch.stderr).toContain('No organisation called "Nobody"');
  });

  // Nine commands, each a child process through tsx.
  it(
    'refuses an option its action does not take (--json of add or rename), changing nothing',
    { timeout: 120_000 },
    async () => {
      const env = { SATCHEL_DATA_DIR: tempDir(), SATCHEL_CLIENT_SECRET: 'sk_never_used' };
      const add = ['profile', 'add', '--name', 'Acme', '--url', 'http://127.0.0.1:9', '--client-id', 'kid'];
      const json = 'only "satchel profile list --json" and "satchel profile recover --json" give JSON';
      expect(await runCli([...add, '--json'], { env })).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: `satchel: profile add takes no --json; ${json}\nRun "satchel profile --help" for its options.\n`,
      });
      expect((await runCli(['profile', 'list', '--json'], { env })).stdout).toBe('[]\n');

      expect((await runCli(add, { env })).code).toBe(0);
      const renamed = await runCli(['profile', 'rename', 'Acme', '--name', 'Acme GmbH', '--json'], { env });
      expect(renamed).toMatchObject({ code: 2, stdout: '' });
      expect(renamed.stderr).toBe(
        `satchel: profile rename takes no --json; ${json}\nRun "satchel profile --help" for its options.\n`,
      );
      // Any option of another action, not only --json: refused, not ignored.
      for (const [args, option] of [
        [['profile', 'rename', 'Acme', '--name', 'Acme GmbH', '--force'], '--force'],
        [['profile', 'set-url', 'Acme', '--url', 'http://127.0.0.1:8', '--name', 'Other'], '--name'],
        [['profile', 'remove', 'Acme', '--yes'], '--yes'],
        [['profile', 'list', '--demo'], '--demo'],
      ] as const) {
        const refused = await runCli([...args], { env });
        expect({ args, code: refused.code, stderr: refused.stderr }).toEqual({
          args,
          code: 2,
          stderr: `satchel: profile ${args[1]} takes no ${option}\nRun "satchel profile --help" for its options.\n`,
        });
      }
      const listed = JSON.parse((await runCli(['profile', 'list', '--json'], { env })).stdout) as Array<{
        name: string;
        baseUrl: string;
      }>;
      expect(listed).toMatchObject([{ name: 'Acme', baseUrl: 'http://127.0.0.1:9' }]);
      expect((await runCli(['profile', 'remove', 'Acme'], { env })).code).toBe(0);
    },
  );
});
