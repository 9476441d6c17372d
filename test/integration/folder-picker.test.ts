import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import type { FolderRequest } from '../../src-main/folders';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { useTempDirs } from '../helpers/temp-dir';

// `dialog.pickFolder`: the shell gives the core its folder dialog (`pickFolder`); here a real
// implementation answers in its place. The core refuses folders it cannot write to and opens
// the dialog where the last pick was.

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-folders-${randomUUID()}` });
const closes: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
});

function setup(answers: Array<string | null>) {
  const asked: FolderRequest[] = [];
  const core = createCore({
    dataDir: tempDir(),
    secrets,
    pickFolder: async (request) => {
      asked.push(request);
      return answers.shift() ?? null;
    },
  });
  closes.push(() => core.close());
  return { handlers: createHandlers(core), asked };
}

describe('folder picker for bulk downloads', () => {
  it('returns the folder picked, opens there next time, and null when cancelled', async () => {
    const folder = tempDir();
    const { handlers, asked } = setup([folder, null]);
    expect(await dispatch(handlers, 'dialog.pickFolder', { title: 'Download receipts to…' })).toEqual({
      ok: true,
      value: { folder },
    });
    expect(await dispatch(handlers, 'dialog.pickFolder', {})).toEqual({ ok: true, value: { folder: null } });
    expect(asked).toEqual([
      { title: 'Download receipts to…' },
      { title: 'Choose a folder for the downloads', defaultPath: folder },
    ]);
  });

  it('refuses a file, a missing folder, a relative path and a folder it cannot write to', async () => {
    const root = tempDir();
    const file = path.join(root, 'receipt.pdf');
    writeFileSync(file, 'x');
    const locked = path.join(root, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    const canWriteAnyway = process.getuid?.() === 0; // root ignores the mode bits
    const { handlers } = setup([file, path.join(root, 'gone'), 'relative/folder', locked]);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await dispatch(handlers, 'dialog.pickFolder', {}));
    expect(answers.slice(0, 3)).toEqual([
      {
        ok: false,
        error: { code: 'VALIDATION_ERROR', message: 'This is a file, not a folder.', field: 'folder' },
      },
      {
        ok: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'This folder does not exist; choose another.',
          field: 'folder',
        },
      },
      {
        ok: false,
        error: { code: 'VALIDATION_ERROR', message: 'Choose a folder by its full path.', field: 'folder' },
      },
    ]);
    expect(answers[3]).toEqual(
      canWriteAnyway
        ? { ok: true, value: { folder: locked } }
        : {
            ok: false,
            error: {
              code: 'VALIDATION_ERROR',
              message: 'Satchel cannot write to this folder; choose another.',
              field: 'folder',
            },
          },
    );
    chmodSync(locked, 0o700);
  });

  it('says plainly when there is no dialog (command line, tests without one)', async () => {
    const core = createCore({ dataDir: tempDir(), secrets });
    closes.push(() => core.close());
    const answer = await dispatch(createHandlers(core), 'dialog.pickFolder', {});
    expect(answer).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(!answer.ok && answer.error.message).toMatch(/no folder dialog/);
  });
});
