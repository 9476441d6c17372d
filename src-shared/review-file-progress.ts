import type { ReviewFileStep } from './ipc';

/**
 * A review export or import under way, in the words of its step: "Exporting 12,000 of 54,000
 * marks…"; an import first checks its file, then imports. The window and the command line say
 * the same, each writing numbers its own way (`count`: the user's locale in the window).
 */
export function reviewFileProgressText(
  progress: { step: ReviewFileStep; done: number; total: number },
  count: (n: number) => string,
): string {
  const verb = { export: 'Exporting', check: 'Checking', merge: 'Importing' }[progress.step];
  const where = progress.step === 'check' ? ' in the file' : '';
  const marks = progress.total === 1 ? 'mark' : 'marks';
  return `${verb} ${count(progress.done)} of ${count(progress.total)} ${marks}${where}…`;
}

/**
 * What an import stopped part-way through its merge says, in the window and on the command line
 * alike: how far it came, that those marks stay, and how to finish. Stopped before its first
 * mark was merged (during the check), an import says CHECK_CANCELLED instead: nothing changed.
 */
export function importInterruptedText(merged: number, total: number, count: (n: number) => string): string {
  return `The import was interrupted after ${count(merged)} of ${count(total)} marks; the marks merged so far stay. Import the same file again to finish.`;
}
