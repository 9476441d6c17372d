import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../src-main/secrets';
import { deleteProfileSecrets } from '../helpers/keychain';
import { useTempDirs } from '../helpers/temp-dir';

// The cleanup the CLI tests rely on: it runs while their folders still exist, and it deletes
// their own keychain entries and nobody else's (those tests run in parallel on one service).

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-helpers-${randomUUID()}` });
const seenInCleanup: boolean[] = [];
afterEach(() => {
  seenInCleanup.push(...tempDir.list().map((dir) => existsSync(dir)));
});
afterAll(async () => {
  for (const account of await secrets.list()) await secrets.delete(account);
});

describe('test helpers', () => {
  it('deletes the keychain entries of the data folders under the given roots only', async () => {
    const root = tempDir();
    const ours = [randomUUID(), randomUUID()];
    mkdirSync(path.join(root, 'data'));
    writeFileSync(
      path.join(root, 'data', 'profiles.json'),
      JSON.stringify({ profiles: ours.map((id) => ({ id, name: id })) }),
    );
    const theirs = randomUUID();
    for (const id of [...ours, theirs]) await secrets.set(`profile:${id}`, 'secret');

    await deleteProfileSecrets(secrets, tempDir.list());
    expect(await secrets.list()).toEqual([`profile:${theirs}`]);
  });

  it('ran the cleanup above while the test folder still existed', () => {
    expect(seenInCleanup).toEqual([true]);
  });
});
