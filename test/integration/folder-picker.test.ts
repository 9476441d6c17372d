import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import type { CommandInput } from '../../src-shared/ipc';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import { queuedFileDialog, queuedFolderDialog } from '../helpers/dialogs';
import { useTempDirs } from '../helpers/temp-dir';

// `dialog.pickFolder` and `dialog.pickFile`: the shell gives the core its folder dialog (`pickFolder`); here a real
// implementation answers in its place. The core refuses folders it cannot write to and opens
// the dialog where the last pick was.

const tempDir = useTempDirs();
const secrets = createKeychainSecrets({ service: `Satchel-folders-${randomUUID()}` });
const closes: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
});

function setup(answers: Array<string | null>) {
  const folderDialog = queuedFolderDialog(...answers);
  const core = createCore({ dataDir: tempDir(), secrets, pickFolder: folderDialog.pick });
  closes.push(() => core.close());
  return { handlers: createHandlers(core), asked: folderDialog.asked };
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

// `dialog.pickFile`: the same for exports and imports. The core names the dialog and its
// filter by purpose and checks the file: one to save gets its extension and must be in a
// folder it can write to; one to open must exist and be a file.
function fileSetup(answers: Array<string | null>) {
  const fileDialog = queuedFileDialog(...answers);
  const core = createCore({ dataDir: tempDir(), secrets, pickFile: fileDialog.pick });
  closes.push(() => core.close());
  const handlers = createHandlers(core);
  const pick = (input: CommandInput<'dialog.pickFile'>) => dispatch(handlers, 'dialog.pickFile', input);
  return { pick, asked: fileDialog.asked };
}

describe('file picker for exports and imports', () => {
  it('names the dialog by purpose, adds the extension, and opens by the last file next time', async () => {
    const folder = tempDir();
    const existing = path.join(folder, 'from-anna.json');
    writeFileSync(existing, '{}');
    const { pick, asked } = fileSetup([
      path.join(folder, 'March'),
      existing,
      path.join(folder, 'r.JSON'),
      null,
    ]);
    expect(await pick({ purpose: 'transactionsCsv', suggestedName: 'Transactions.csv' })).toEqual({
      ok: true,
      value: { file: path.join(folder, 'March.csv') },
    });
    expect(await pick({ purpose: 'reviewImport' })).toEqual({ ok: true, value: { file: existing } });
    expect(await pick({ purpose: 'reviewExport', suggestedName: 'Review.json' })).toEqual({
      ok: true,
      value: { file: path.join(folder, 'r.JSON') },
    });
    expect(await pick({ purpose: 'reviewExport' })).toEqual({ ok: true, value: { file: null } });
    expect(asked).toEqual([
      {
        mode: 'save',
        title: 'Export transactions as CSV',
        extension: 'csv',
        kind: 'CSV file',
        defaultPath: 'Transactions.csv',
      },
      {
        mode: 'open',
        title: 'Import review marks',
        extension: 'json',
        kind: 'Satchel review file',
        defaultPath: folder,
      },
      {
        mode: 'save',
        title: 'Export review marks',
        extension: 'json',
        kind: 'Satchel review file',
        defaultPath: path.join(folder, 'Review.json'),
      },
      {
        mode: 'save',
        title: 'Export review marks',
        extension: 'json',
        kind: 'Satchel review file',
        defaultPath: folder,
      },
    ]);
  });

  it('refuses what it cannot write or read, and a name that is a path', async () => {
    const root = tempDir();
    const sub = path.join(root, 'exports.csv');
    mkdirSync(sub);
    const { pick } = fileSetup([
      path.join(root, 'gone', 'a.csv'),
      sub,
      'relative.csv',
      path.join(root, 'missing.json'),
      root,
    ]);
    const refusal = (message: string) => ({
      ok: false,
      error: { code: 'VALIDATION_ERROR', message, field: 'file' },
    });
    expect(await pick({ purpose: 'transactionsCsv' })).toEqual(
      refusal('The folder of this file does not exist; choose another.'),
    );
    expect(await pick({ purpose: 'transactionsCsv' })).toEqual(
      refusal('This is a folder; choose a file name.'),
    );
    expect(await pick({ purpose: 'transactionsCsv' })).toEqual(refusal('Choose a file by its full path.'));
    expect(await pick({ purpose: 'reviewImport' })).toEqual(
      refusal('This file does not exist; choose another.'),
    );
    expect(await pick({ purpose: 'reviewImport' })).toEqual(refusal('This is a folder, not a file.'));
    // The renderer suggests a name, never a place.
    expect(await pick({ purpose: 'reviewExport', suggestedName: '../../etc/passwd' })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR' },
    });
  });

  it('says plainly when there is no dialog', async () => {
    const core = createCore({ dataDir: tempDir(), secrets });
    closes.push(() => core.close());
    const answer = await dispatch(createHandlers(core), 'dialog.pickFile', { purpose: 'reviewImport' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(!answer.ok && answer.error.message).toMatch(/no file dialog/);
  });
});
