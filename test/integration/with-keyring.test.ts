import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/temp-dir';

// scripts/with-keyring.sh itself, run as a child: a real dbus-run-session, a real
// gnome-keyring-daemon (or a stand-in that starts nothing). This test file already runs inside
// the script, which puts SATCHEL_KEYRING_SESSION=1 in the environment so that its re-run inside
// dbus-run-session skips starting another session; each child here goes without it, so it
// makes a session and a keyring of its own.

const script = path.resolve('scripts/with-keyring.sh');
const tempDir = useTempDirs('satchel-with-keyring-');

// The Secret Service's bus name has an owner; NameHasOwner does not start it by D-Bus activation.
const NAME_HAS_OWNER =
  'dbus-send --session --print-reply --dest=org.freedesktop.DBus / ' +
  'org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets';

function run(command: string[], env: NodeJS.ProcessEnv = {}) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv['SATCHEL_KEYRING_SESSION'];
  if (!('SATCHEL_KEYRING_WAIT_MS' in env)) delete childEnv['SATCHEL_KEYRING_WAIT_MS'];
  const started = Date.now();
  const result = spawnSync('bash', [script, ...command], {
    env: childEnv,
    encoding: 'utf8',
    timeout: 25_000,
  });
  return { ...result, ms: Date.now() - started };
}

describe('scripts/with-keyring.sh', () => {
  it('runs the command once the keyring owns org.freedesktop.secrets', () => {
    // Without the wait, the name had no owner yet in about 3 of 5 starts (measured 27 to 32 of
    // 50 on a 2-core machine); ten starts all finding it owned is not luck.
    const unowned: string[] = [];
    for (let start = 0; start < 10; start += 1) {
      const result = run(['bash', '-c', `${NAME_HAS_OWNER} && echo "bus=$DBUS_SESSION_BUS_ADDRESS"`]);
      expect(result.status, result.stderr).toBe(0);
      // A session of its own, not this file's (where the name is owned already).
      const bus = /^bus=(.+)$/m.exec(result.stdout)?.[1];
      expect(bus).toBeTruthy();
      expect(bus).not.toBe(process.env['DBUS_SESSION_BUS_ADDRESS']);
      if (!/boolean true/.test(result.stdout)) unowned.push(result.stdout.trim());
    }
    expect(unowned, 'the commands that started while the name had no owner').toEqual([]);
  });

  it('says so and runs nothing when no daemon ever owns the name', () => {
    const dir = tempDir();
    // A stand-in gnome-keyring-daemon first on PATH: it reads the password and starts nothing.
    const fake = path.join(dir, 'gnome-keyring-daemon');
    writeFileSync(fake, '#!/bin/bash\ncat >/dev/null\nexit 0\n');
    chmodSync(fake, 0o755);
    const marker = path.join(dir, 'ran');

    const result = run(['bash', '-c', 'echo ran > "$1"', 'command', marker], {
      PATH: `${dir}${path.delimiter}${process.env['PATH'] ?? ''}`,
      SATCHEL_KEYRING_WAIT_MS: '500',
    });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "the Secret Service's bus name (org.freedesktop.secrets) had no owner within 500 ms, so the command was not run",
    );
    // It names the daemon it started, and how to see that daemon's errors.
    expect(result.stderr).toContain(`Check that ${fake} is GNOME Keyring's daemon`);
    expect(result.stderr).toContain('gnome-keyring-daemon --start --foreground --components=secrets');
    expect(existsSync(marker)).toBe(false);
    // It waited the time given, and not much longer.
    expect(result.ms).toBeGreaterThanOrEqual(500);
    expect(result.ms).toBeLessThan(5_000);
  });

  it('refuses a wait that is not a whole number of milliseconds, before starting anything', () => {
    const marker = path.join(tempDir(), 'ran');
    const result = run(['bash', '-c', 'echo ran > "$1"', 'command', marker], {
      SATCHEL_KEYRING_WAIT_MS: '10s',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "SATCHEL_KEYRING_WAIT_MS must be a whole number of milliseconds, not '10s'",
    );
    expect(existsSync(marker)).toBe(false);
  });
});
