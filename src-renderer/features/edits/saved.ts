import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import { stoppedPushText } from './reasons';

type OutboxItem = Pick<z.infer<typeof OutboxItemShape>, 'operationId' | 'operation' | 'status' | 'error'> &
  Partial<Pick<z.infer<typeof OutboxItemShape>, 'resource'>>;

/** An edit just saved in a form: how it was saved, the record's name, and its outbox entry. */
export interface SavedEdit {
  verb: 'Saved' | 'Created';
  name: string;
  operationId: string;
}

/**
 * What to say of the edit just saved, as the outbox has it now: waiting, being sent, maybe sent
 * (interrupted), stopped on something the user must do, in conflict, refused; nothing once it is
 * off the list (sent, or discarded). The list is read again before the save is reported, so a
 * saved edit is on it until something settles it. A push that stopped on it, or was
 * interrupted, is said in the edits list's words (`stoppedPushText`).
 */
export function savedEditStatus(
  saved: SavedEdit,
  waiting: readonly OutboxItem[],
  organisation: string,
): { text: string; problem: boolean } | null {
  const item = waiting.find((candidate) => candidate.operationId === saved.operationId);
  if (!item) return null;
  if (item.status === 'conflict')
    return {
      text: `${saved.name} was changed on the server too; choose below which version to keep.`,
      problem: true,
    };
  if (item.status === 'failed')
    return {
      text: `The server refused the change to ${saved.name}${item.error ? `: ${item.error.message}` : ''}. It is kept below to fix or discard.`,
      problem: true,
    };
  if (item.status === 'sending')
    return { text: `${saved.verb} ${saved.name}; it is being sent to ${organisation} now.`, problem: false };
  const stopped = stoppedPushText(item, organisation);
  if (stopped) return { text: `${saved.verb} ${saved.name}. ${stopped.text}`, problem: stopped.needsYou };
  return { text: `${saved.verb} ${saved.name}; it will be sent with the next push.`, problem: false };
}
