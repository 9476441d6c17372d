import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { startPrivateKeyring, type PrivateKeyring } from '../../helpers/keyring';
import { useReadOnlyFolders } from '../../helpers/read-only';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel status` says the state of the app as it is, whatever that state: an offline copy on a
// read-only disk (a real read-only bind mount, as root; write bits off otherwise), one that
// cannot be opened, a keychain that is locked (a real GNOME Keyring locked over D-Bus). It
// reports, changes nothing, and exits 0.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);
const makeReadOnly = useReadOnlyFolders();

const state = (file: string) => ({
  sha: createHash('sha256').update(readFileSync(file)).digest('hex'),
  mtime: statSync(file).mtimeMs,
});

interface StatusJson {
  keychain: { available: boolean; code?: string; message?: string };
  profiles: Array<{
    name: string;
    lastSync: { outcome: string } | null;
    cache: {
      readOnly: { message: string; where: string } | null;
      problem: { reason: string; message: string } | null;
    };
  }>;
}

describe('satchel status', { timeout: 120_000 }, () => {
  it('says which offline copies are read-only and why, and which do not open, without failing', async () => {
    const { sandbox, dataDir, core, profile, cacheFile } = await connect('Archive', { transactions: 30 });
    const auth = { kind: 'client' as const, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret };
    const old = await core.profiles.add({ name: 'Old', baseUrl: sandbox.url, auth });
    const current = await core.profiles.add({ name: 'Current', baseUrl: sandbox.url, auth });
    const damaged = await core.profiles.add({ name: 'Damaged', baseUrl: sandbox.url, auth });
    for (const { id } of [profile, old, current])
      expect((await core.sync.sync(id)).outcome).toBe('succeeded');
    await core.close();
    // "Old" was written by an earlier version: its copy needs an update that would be a write.
    const oldFile = core.profiles.cacheFile(old.id);
    const db = new Database(oldFile);
    db.exec('DELETE FROM __drizzle_migrations WHERE rowid = (SELECT max(rowid) FROM __drizzle_migrations)');
    db.close();
    writeFileSync(core.profiles.cacheFile(damaged.id), 'this is not a database');
    // One file read-only each, in a folder that stays writable (a copy restored as another user).
    makeReadOnly(cacheFile);
    makeReadOnly(oldFile);
    const before = [state(cacheFile), state(oldFile)];
    const env = { SATCHEL_DATA_DIR: dataDir };

    const text = await runCli(['status'], { env });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    const header = lines.findIndex((line) => line.startsWith('ORGANISATION'));
    expect(lines[header]).toMatch(/^ORGANISATION\s+URL\s+LAST SYNC\s+OFFLINE COPY$/);
    expect(lines.slice(header + 1, header + 5)).toEqual([
      expect.stringMatching(/^Archive\s+http:\S+\s+succeeded, .+ UTC\s+read-only$/),
      expect.stringMatching(/^Old\s+http:\S+\s+unknown\s+read-only, cannot be opened$/),
      expect.stringMatching(/^Current\s+http:\S+\s+succeeded, .+ UTC\s+writable$/),
      expect.stringMatching(/^Damaged\s+http:\S+\s+unknown\s+cannot be opened$/),
    ]);
    const notes = text.stdout.slice(text.stdout.indexOf('\n\n') + 2);
    expect(notes).toContain(
      `The offline copy of "Archive" is read-only: the file ${cacheFile} is on a read-only disk or share. You can search and read; sync, edits, review marks and downloads into the copy are off until ${cacheFile} can be written again (a writable disk, or write permission for your user): then run the command again.\n`,
    );
    expect(notes).toContain(
      `The offline copy at ${oldFile} must be updated for this version of Satchel before it can be read, and it cannot be written: the file ${oldFile} is on a read-only disk or share. Nothing was changed.`,
    );
    expect(notes).toMatch(
      /The offline copy of "Damaged" cannot be opened\. .*satchel profile rebuild --profile Damaged/,
    );
    expect(notes).not.toContain('Current');

    const json = await runCli(['status', '--json'], { env });
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as StatusJson;
    expect(parsed.profiles).toEqual([
      expect.objectContaining({
        name: 'Archive',
        lastSync: expect.objectContaining({ outcome: 'succeeded' }),
        cache: {
          problem: null,
          readOnly: {
            where: cacheFile,
            message: expect.stringMatching(
              /^The offline copy of "Archive" is read-only: .*run the command again\.$/,
            ),
          },
        },
      }),
      expect.objectContaining({
        name: 'Old',
        lastSync: null,
        cache: {
          problem: expect.objectContaining({
            reason: 'READ_ONLY',
            message: expect.stringContaining('must be updated'),
          }),
          readOnly: null,
        },
      }),
      expect.objectContaining({
        name: 'Current',
        lastSync: expect.objectContaining({ outcome: 'succeeded' }),
        cache: { problem: null, readOnly: null },
      }),
      expect.objectContaining({
        name: 'Damaged',
        lastSync: null,
        cache: { problem: expect.objectContaining({ reason: 'NOT_A_DATABASE' }), readOnly: null },
      }),
    ]);
    // Nothing of the read-only copies was written: no migration, no connection record.
    expect([state(cacheFile), state(oldFile)]).toEqual(before);
  });
});

describe('satchel status with the keychain locked', { timeout: 120_000 }, () => {
  let keyring: PrivateKeyring;
  beforeAll(async () => {
    keyring = await startPrivateKeyring();
  });
  afterAll(() => keyring?.stop());

  it('says the keychain is locked and what to do, and still lists the organisations', async () => {
    const { dataDir, core } = await connect('Locked GmbH');
    await core.close();
    keyring.lock();
    // The command's keychain is the locked one: its session bus is the private keyring's.
    const env = { SATCHEL_DATA_DIR: dataDir, DBUS_SESSION_BUS_ADDRESS: keyring.address };

    const text = await runCli(['status'], { env });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '\nKeychain: The system keychain is locked, so Satchel cannot read the key it signs in with. Unlock it in your system\'s keyring manager (on Linux: the "Login" keyring in Passwords and Keys, or sign in to your desktop again), then try again. Nothing needs to be entered again, and the offline copy stays readable meanwhile.',
    );
    expect(text.stdout).toMatch(/^Locked GmbH\s+http:\S+\s+never\s+writable$/m);

    const json = await runCli(['status', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      keychain: { available: false, code: 'KEYCHAIN_LOCKED', message: expect.stringContaining('Unlock it') },
      profiles: [{ name: 'Locked GmbH', cache: { readOnly: null, problem: null } }],
    });
    expect(keyring.locked()).toBe(true);
  });
});
