import { describe, expect, it } from 'vitest';
import { queuedFileDialog, queuedFolderDialog } from '../helpers/dialogs';

// The tests' stand-in for the system dialogs: answers in the order queued, Cancel only when
// queued, and a dialog opened with nothing queued refused at once, not left waiting.
describe('a queued dialog', () => {
  const save = {
    mode: 'save',
    title: 'Export review marks',
    extension: 'json',
    kind: 'Satchel review file',
  } as const;

  it('answers what was queued, in order, and records what it was asked', async () => {
    const files = queuedFileDialog('/tmp/first.json');
    files.answers.push(null, '/tmp/second.json');
    expect(await files.pick(save)).toBe('/tmp/first.json');
    expect(await files.pick({ ...save, defaultPath: '/tmp/first.json' })).toBeNull();
    expect(await files.pick(save)).toBe('/tmp/second.json');
    expect(files.asked).toEqual([save, { ...save, defaultPath: '/tmp/first.json' }, save]);
    expect(files.unanswered).toEqual([]);
  });

  it('refuses a dialog opened with nothing queued, naming it, and keeps it for the test’s end', async () => {
    const folders = queuedFolderDialog();
    await expect(folders.pick({ title: 'Choose a folder for the downloads' })).rejects.toThrow(
      'The dialog "Choose a folder for the downloads" was opened with no answer queued',
    );
    expect(folders.unanswered).toEqual([{ title: 'Choose a folder for the downloads' }]);
    // Opened too often on purpose here: emptied, so the check at the test's end passes.
    folders.unanswered.splice(0);
  });
});
