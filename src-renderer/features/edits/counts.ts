import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import { formatCount } from '../../lib/format';

type OutboxItem = Pick<z.infer<typeof OutboxItemShape>, 'resource' | 'status'>;

/** The open edits of one area: all of them, and those that need the user (failed, conflict). */
export interface AreaEdits {
  open: number;
  problems: number;
}

/** The outbox's open edits by the area that shows them: suppliers, and dimensions with their items. */
export function openEditsByArea(items: readonly OutboxItem[]): Record<'suppliers' | 'dimensions', AreaEdits> {
  const counts = { suppliers: { open: 0, problems: 0 }, dimensions: { open: 0, problems: 0 } };
  for (const item of items) {
    const area = counts[item.resource === 'supplier' ? 'suppliers' : 'dimensions'];
    area.open += 1;
    if (item.status === 'failed' || item.status === 'conflict') area.problems += 1;
  }
  return counts;
}

/** "3 edits waiting", "1 edit waiting, 1 needs you": said as the status bar says it. */
export function editsWaitingText({ open, problems }: AreaEdits): string {
  const waiting = `${formatCount(open)} ${open === 1 ? 'edit' : 'edits'} waiting`;
  return problems > 0
    ? `${waiting}, ${formatCount(problems)} ${problems === 1 ? 'needs' : 'need'} you`
    : waiting;
}
