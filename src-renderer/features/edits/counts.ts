import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import { formatCount } from '../../lib/format';
import { stoppedPushText } from './reasons';

type OutboxItem = Pick<z.infer<typeof OutboxItemShape>, 'resource' | 'operation' | 'status' | 'error'>;

/** Open edits: all of them, and those that need the user (see `editNeedsYou`). */
export interface AreaEdits {
  open: number;
  problems: number;
}

/**
 * Whether an open edit waits on the user: refused by the server, in conflict, or stopped by
 * something only the user can lift (refused credentials, a missing permission, the keychain),
 * as the edits list words it. The status bar and the sidebar count the same edits.
 */
export function editNeedsYou(item: Omit<OutboxItem, 'resource'>): boolean {
  if (item.status === 'failed' || item.status === 'conflict') return true;
  return stoppedPushText(item)?.needsYou ?? false;
}

/** All the outbox's open edits, as the status bar counts them. */
export function openEdits(items: readonly Omit<OutboxItem, 'resource'>[]): AreaEdits {
  return { open: items.length, problems: items.filter(editNeedsYou).length };
}

/** The outbox's open edits by the area that shows them: suppliers, and dimensions with their items. */
export function openEditsByArea(items: readonly OutboxItem[]): Record<'suppliers' | 'dimensions', AreaEdits> {
  const counts = { suppliers: { open: 0, problems: 0 }, dimensions: { open: 0, problems: 0 } };
  for (const item of items) {
    const area = counts[item.resource === 'supplier' ? 'suppliers' : 'dimensions'];
    area.open += 1;
    if (editNeedsYou(item)) area.problems += 1;
  }
  return counts;
}

/** "No edits waiting", "3 edits waiting", "1 edit waiting, 1 needs you": as the status bar says it. */
export function editsWaitingText({ open, problems }: AreaEdits): string {
  if (open === 0) return 'No edits waiting';
  const waiting = `${formatCount(open)} ${open === 1 ? 'edit' : 'edits'} waiting`;
  return problems > 0
    ? `${waiting}, ${formatCount(problems)} ${problems === 1 ? 'needs' : 'need'} you`
    : waiting;
}
