import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import type { FileRequest, FolderRequest } from '../../src-main/folders';

/** A system dialog as the test answers it: given to the core as `pickFile` or `pickFolder`. */
export interface QueuedDialog<Request> {
  /** The dialog itself: answers the first path queued in `answers`, taking it off the queue. */
  pick: (request: Request) => Promise<string | null>;
  /** What the test answers, in order; `null` is the user's Cancel and must be queued too. */
  answers: Array<string | null>;
  /** Every request the dialog was opened with (its title, where it opened), in order. */
  asked: Request[];
  /**
   * The requests the dialog was opened with while no answer was queued. Each one fails the test
   * when it finishes; a test that opens the dialog too often on purpose empties this list.
   */
  unanswered: Request[];
}

/**
 * The system's open/save dialog (or folder dialog) answered from a queue the test fills before
 * each step that opens it. Nothing is answered by default: a dialog opened with the queue empty
 * rejects at once (the core's command fails rather than waiting) and the running test fails when
 * it ends, naming the dialog, so a test that asks for more answers than it queued neither hangs
 * nor passes on a Cancel nobody chose. Make it inside the test that uses it.
 */
export function queuedDialog<Request extends FileRequest | FolderRequest>(
  ...answers: Array<string | null>
): QueuedDialog<Request> {
  const dialog: QueuedDialog<Request> = {
    answers,
    asked: [],
    unanswered: [],
    pick: (request) => {
      dialog.asked.push(request);
      if (dialog.answers.length > 0) return Promise.resolve(dialog.answers.shift() ?? null);
      dialog.unanswered.push(request);
      return Promise.reject(new Error(noAnswer(request)));
    },
  };
  onTestFinished(() => {
    const first = dialog.unanswered[0];
    if (first) throw new Error(`${noAnswer(first)} (${dialog.unanswered.length} time(s) in all)`);
  });
  return dialog;
}

/** The dialogs for exports and imports (`pickFile`), answered from a queue. */
export const queuedFileDialog = (...answers: Array<string | null>) => queuedDialog<FileRequest>(...answers);

/** The folder dialog for downloads (`pickFolder`), answered from a queue. */
export const queuedFolderDialog = (...answers: Array<string | null>) =>
  queuedDialog<FolderRequest>(...answers);

/**
 * The folder dialog answered with a new empty folder each time, as if the user made one in it:
 * `${name} 1`, `${name} 2`, … each in a fresh folder of `tempDir`. `made` lists them in order.
 */
export function newFolderDialog(
  tempDir: () => string,
  name: string,
): { pick: (request: FolderRequest) => Promise<string>; made: string[] } {
  const made: string[] = [];
  return {
    made,
    pick: () => {
      const folder = path.join(tempDir(), `${name} ${made.length + 1}`);
      mkdirSync(folder);
      made.push(folder);
      return Promise.resolve(folder);
    },
  };
}

/**
 * The folder dialog answered with `folder` every time it opens, the folder made (if it is not
 * there yet) as the user would make it in the dialog.
 */
export function fixedFolderDialog(folder: string): (request: FolderRequest) => Promise<string> {
  return () => {
    mkdirSync(folder, { recursive: true });
    return Promise.resolve(folder);
  };
}

function noAnswer(request: FileRequest | FolderRequest): string {
  return `The dialog "${request.title}" was opened with no answer queued: push a path (or null for Cancel) to its answers before the step that opens it.`;
}
