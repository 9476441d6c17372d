import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../src-main/core';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { syncedCore } from '../../helpers/sync-fixture';
import { contentRequests } from '../../helpers/files';
import { useReadOnlyFolders } from '../../helpers/read-only';
import { useTempDirs } from '../../helpers/temp-dir';

// A receipt's preview on an offline copy that opened read-only (docs/store.md, "A copy that
// cannot be written"; docs/files.md): one already on this computer is shown, online or not; one
// that is not is refused in the banner's words before any request, since its record could not
// be kept. The real sandbox counts the file content requests.

const tempDir = useTempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
// Declared after the temporary folders: undone before they are removed.
const makeReadOnly = useReadOnlyFolders();

/** A synced copy with `prepare` done on it, then opened again by a new core from a read-only folder. */
async function readOnlyCopy(prepare: (fixture: Awaited<ReturnType<typeof syncedCore>>) => Promise<void>) {
  const fixture = await syncedCore(tempDir(), closers);
  const { core, profile, secrets, sandbox, dir } = fixture;
  // The fill that sync started (nothing to keep) is over before the copy is closed.
  await core.files.fillOffline(profile.id);
  await prepare(fixture);
  const file = core.profiles.cacheFile(profile.id);
  await core.close();
  makeReadOnly(path.dirname(file));
  const reopened = createCore({ dataDir: path.join(dir, 'data'), secrets });
  closers.unshift(() => reopened.close());
  const handlers = createHandlers(reopened);
  const profileId = profile.id;
  expect(await dispatch(handlers, 'profiles.cacheStatus', { id: profileId })).toMatchObject({
    ok: true,
    value: { problem: null, readOnly: { where: expect.any(String) } },
  });
  sandbox.control?.clearRequests();
  const message = reopened.readOnlyError(profileId)?.message;
  expect(message).toMatch(/^The offline copy of "Sandbox" is read-only: .* then choose Check again/);
  const preview = (fileId: string) => dispatch(handlers, 'files.fetch', { profileId, fileId });
  const asked = () => [...contentRequests(sandbox).values()].reduce((sum, count) => sum + count, 0);
  return { core: reopened, profileId, sandbox, message, preview, asked };
}

describe('a receipt preview on a read-only offline copy', () => {
  it('refuses one not on this computer before any request, and shows one that is, offline too', async () => {
    let shownId = '';
    let shownUrl = '';
    const { core, sandbox, message, preview, asked } = await readOnlyCopy(
      async ({ core: writable, profile, sandbox: server }) => {
        const [shown] = server.state.files;
        if (!shown) throw new Error('the sandbox has no files');
        shownId = shown.id;
        shownUrl = (await writable.files.fetch(profile.id, shown.id)).url;
      },
    );
    const missing = sandbox.state.files.find((file) => file.id !== shownId);
    if (!missing) throw new Error('the sandbox has too few files');

    // Not on this computer: the banner's words at once, and nothing asked of the server.
    expect(await preview(missing.id)).toEqual({ ok: false, error: { code: 'READ_ONLY', message } });
    expect(asked()).toBe(0);
    // On this computer: shown from the folder, without a request.
    expect(await preview(shownId)).toMatchObject({ ok: true, value: { fileId: shownId, url: shownUrl } });
    expect(asked()).toBe(0);

    // No network: the one on this computer is still shown; the other still says why it cannot
    // be kept (read-only), not that the network is gone.
    core.connectivity.setNetwork(false);
    expect(await preview(shownId)).toMatchObject({ ok: true, value: { fileId: shownId, url: shownUrl } });
    expect(await preview(missing.id)).toEqual({ ok: false, error: { code: 'READ_ONLY', message } });
    expect(asked()).toBe(0);
  });

  it('shows a copy whose record changed type under the name it has, not renamed unrecorded', async () => {
    let fileId = '';
    let root = '';
    const { profileId, preview, asked } = await readOnlyCopy(
      async ({ core: writable, profile, sandbox: server }) => {
        const png = server.state.files.find((file) => file.mimeType === 'image/png');
        if (!png) throw new Error('the sandbox has no PNG');
        fileId = png.id;
        root = writable.files.filesRoot(profile.id);
        const { sqlite } = writable.cacheOf(profile.id);
        const name = sqlite.prepare('SELECT name FROM expense_files WHERE id = ?').pluck().get(fileId);
        // First known without a type: kept as .bin; a later sync learned it is a PNG.
        sqlite.prepare(`UPDATE expense_files SET mime_type = NULL, name = 'scan' WHERE id = ?`).run(fileId);
        await writable.files.fetch(profile.id, fileId);
        sqlite
          .prepare(`UPDATE expense_files SET mime_type = 'image/png', name = ? WHERE id = ?`)
          .run(name, fileId);
      },
    );
    // The rename could not be recorded: the copy stays as it is, shown under its own name, and
    // is still found next time.
    for (let look = 0; look < 2; look += 1)
      expect(await preview(fileId)).toMatchObject({
        ok: true,
        value: { fileId, url: `satchel-file://${profileId}/${fileId}.bin` },
      });
    expect(existsSync(path.join(root, `${fileId}.bin`))).toBe(true);
    expect(existsSync(path.join(root, `${fileId}.png`))).toBe(false);
    expect(asked()).toBe(0);
  });
});
