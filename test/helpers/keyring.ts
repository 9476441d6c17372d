import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The password of every throwaway keyring the tests make (as scripts/with-keyring.sh). */
export const KEYRING_PASSWORD = 'satchel-test-keyring';

export interface PrivateKeyring {
  /** The D-Bus address of its session bus. */
  address: string;
  /** Locks the login keyring through the Secret Service, as a screen lock does. */
  lock(): void;
  /** Unlocks it with its password, headless, as signing in to the desktop does. */
  unlock(): Promise<void>;
  /** Whether the login keyring is locked, as the Secret Service says. */
  locked(): boolean;
  /**
   * Makes another collection the default keyring (the Secret Service's `SetAlias`): gnome-keyring's
   * in-memory `session` one, always there and unlocked. The login keyring, with what was stored
   * in it, is then a second keyring, which the default keyring's `Locked` does not speak for.
   */
  makeSessionDefault(): void;
  /**
   * Deletes the login keyring (the Secret Service's `Collection.Delete`), and with it what was
   * stored in it. gnome-keyring then has no default keyring (`ReadAlias("default")` is "/"), as
   * on a system where no login keyring was ever made: only the in-memory `session` one is left.
   */
  deleteLogin(): void;
  stop(): void;
}

/**
 * A real GNOME Keyring on a D-Bus session bus of its own, with an unlocked login keyring, that a
 * test can lock and unlock. Not the keyring of scripts/with-keyring.sh: test files run in
 * parallel and share that one, and locking it would fail the others' keychain calls.
 *
 * A process uses it once `process.env.DBUS_SESSION_BUS_ADDRESS` is its `address` before the
 * process's first keychain call (libsecret connects once, on first use); a child process, with
 * that variable in its environment.
 *
 * Unlocking through the Secret Service (`Unlock`) would ask for the password in a prompt window,
 * which a headless test cannot answer; so `unlock` speaks gnome-keyring's control socket, as the
 * PAM module does at a desktop sign-in: the UNLOCK operation with the login password.
 */
export async function startPrivateKeyring(): Promise<PrivateKeyring> {
  const root = mkdtempSync(path.join(tmpdir(), 'satchel-keyring-'));
  const runtime = path.join(root, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  // No display: an unlock prompt cannot open a window, as on a locked screen nobody answers it.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_DATA_HOME: path.join(root, 'data'),
    XDG_RUNTIME_DIR: runtime,
    DISPLAY: '',
  };
  delete env['WAYLAND_DISPLAY'];
  const bus: ChildProcess = spawn(
    'dbus-daemon',
    ['--session', '--nofork', '--nopidfile', '--print-address=1'],
    {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const address = await new Promise<string>((resolve, reject) => {
    let text = '';
    bus.once('error', reject);
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited (${code}) before giving its address`)));
    bus.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.split('\n');
      if (line.length > 1 && line[0]) resolve(line[0].trim());
    });
  });
  bus.removeAllListeners('exit');
  env['DBUS_SESSION_BUS_ADDRESS'] = address;

  const started = execFileSync('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--daemonize'], {
    env,
    input: KEYRING_PASSWORD,
    encoding: 'utf8',
  });
  const control = /^GNOME_KEYRING_CONTROL=(.+)$/m.exec(started)?.[1] ?? path.join(runtime, 'keyring');

  const gdbus = (...args: string[]) =>
    execFileSync('gdbus', ['call', '--session', '--dest', 'org.freedesktop.secrets', ...args], {
      env,
      encoding: 'utf8',
    });
  const keyring = {
    address,
    lock() {
      gdbus(
        '--object-path',
        '/org/freedesktop/secrets',
        '--method',
        'org.freedesktop.Secret.Service.Lock',
        "['/org/freedesktop/secrets/collection/login']",
      );
      if (!keyring.locked()) throw new Error('The login keyring did not lock.');
    },
    async unlock() {
      const result = await controlUnlock(path.join(control, 'control'), KEYRING_PASSWORD);
      if (result !== 0) throw new Error(`gnome-keyring refused the unlock (result ${result}).`);
      if (keyring.locked()) throw new Error('The login keyring is still locked.');
    },
    locked() {
      const answer = gdbus(
        '--object-path',
        '/org/freedesktop/secrets/collection/login',
        '--method',
        'org.freedesktop.DBus.Properties.Get',
        'org.freedesktop.Secret.Collection',
        'Locked',
      );
      return answer.includes('true');
    },
    makeSessionDefault() {
      gdbus(
        '--object-path',
        '/org/freedesktop/secrets',
        '--method',
        'org.freedesktop.Secret.Service.SetAlias',
        'default',
        '/org/freedesktop/secrets/collection/session',
      );
      const now = gdbus(
        '--object-path',
        '/org/freedesktop/secrets',
        '--method',
        'org.freedesktop.Secret.Service.ReadAlias',
        'default',
      );
      if (!now.includes('/collection/session'))
        throw new Error(`The default keyring is still ${now.trim()}.`);
    },
    deleteLogin() {
      gdbus(
        '--object-path',
        '/org/freedesktop/secrets/collection/login',
        '--method',
        'org.freedesktop.Secret.Collection.Delete',
      );
      const now = gdbus(
        '--object-path',
        '/org/freedesktop/secrets',
        '--method',
        'org.freedesktop.Secret.Service.ReadAlias',
        'default',
      );
      if (!now.includes("'/'")) throw new Error(`The default keyring is still ${now.trim()}.`);
    },
    stop() {
      // gnome-keyring leaves when its bus goes.
      bus.kill();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return keyring;
}

/**
 * gnome-keyring's control protocol (daemon/control in its sources): a credentials byte, then a
 * packet of big-endian uint32 length, uint32 operation (1 = UNLOCK) and a length-prefixed
 * string; the answer is uint32 length and uint32 result (0 = OK).
 */
function controlUnlock(socketPath: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const secret = Buffer.from(password, 'utf8');
    const packet = Buffer.alloc(12 + secret.length);
    packet.writeUInt32BE(packet.length, 0);
    packet.writeUInt32BE(1, 4);
    packet.writeUInt32BE(secret.length, 8);
    secret.copy(packet, 12);
    let answer = Buffer.alloc(0);
    const socket = net.connect(socketPath, () => socket.write(Buffer.concat([Buffer.from([0]), packet])));
    socket.on('data', (chunk) => {
      answer = Buffer.concat([answer, chunk]);
      if (answer.length >= 8) {
        socket.end();
        resolve(answer.readUInt32BE(4));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('gnome-keyring closed its control socket without an answer.')));
  });
}
