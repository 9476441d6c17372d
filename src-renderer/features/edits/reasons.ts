import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import type { ErrorCode } from '../../../src-shared/errors';

type OutboxItem = Pick<z.infer<typeof OutboxItemShape>, 'operation' | 'status' | 'error'> &
  Partial<Pick<z.infer<typeof OutboxItemShape>, 'resource'>>;

/** What each kind of record is called in the edits list. */
export const RESOURCE_LABEL: Record<z.infer<typeof OutboxItemShape>['resource'], string> = {
  supplier: 'supplier',
  dimension: 'dimension',
  dimensionItem: 'dimension item',
};

/**
 * Why a push stopped, when only the user can lift it: the credentials, their permission, the
 * keychain. Anything else (no network, a timeout, the server failing, a cancel) passes by itself.
 */
const USER_MUST_ACT = new Set<ErrorCode>([
  'AUTH_FAILED',
  'FORBIDDEN',
  'KEYCHAIN_UNAVAILABLE',
  'KEYCHAIN_LOCKED',
  'KEYCHAIN_ERROR',
]);

const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/**
 * What an edit still waiting says about the push that stopped on it: that it was not sent (or
 * may have been, for an interrupted edit: a create whose answer never came, an edit whose
 * process stopped), why, and whether the user must do something first or the next Send now or
 * sync sends it by itself. Null for an edit no push stopped on, and for failed and conflicting
 * edits, which say their own problem.
 */
export function stoppedPushText(
  item: OutboxItem,
  organisation = 'the server',
): { text: string; needsYou: boolean } | null {
  if (item.status === 'interrupted') return interruptedText(item, organisation);
  if (item.status !== 'pending' || !item.error) return null;
  const reason = sentence(item.error.message);
  const needsYou = USER_MUST_ACT.has(item.error.code as ErrorCode);
  const next = needsYou
    ? 'The edit waits: once that is done, it is sent with the next Send now or sync.'
    : 'It will be sent with the next Send now or sync.';
  return { text: `Not sent: ${reason} ${next}`, needsYou };
}

/**
 * An interrupted edit (its answer never came, or its process stopped): it may or may not have
 * reached the organisation (named as the core's refusal of Edit… names it), and the next Send
 * now or sync finds out. A create is looked up before it is sent again, so it cannot be changed
 * until then (the lookup goes by the values it was sent with); an update is checked against the
 * server's record, and Edit… sends a new value instead.
 */
function interruptedText(item: OutboxItem, organisation: string): { text: string; needsYou: boolean } {
  const needsYou = item.error !== null && USER_MUST_ACT.has(item.error.code as ErrorCode);
  const what =
    item.operation === 'create'
      ? `new ${item.resource ? RESOURCE_LABEL[item.resource] : 'record'}`
      : 'change';
  // Why: the reason the push stopped on, or, with none, that its process stopped.
  const reason = item.error
    ? sentence(item.error.message)
    : `Satchel stopped before ${organisation} answered.`;
  const then =
    item.operation === 'create'
      ? `Before sending it again, the next Send now or sync looks for the record on ${organisation}, so it is never created twice. To change the edit, sync first.`
      : `The next Send now or sync reads the record on ${organisation} first and sends the change only if it is not there yet; Edit… sends a new value instead.`;
  return {
    text: `Maybe sent: Satchel does not know yet whether this ${what} reached ${organisation}: sending it was interrupted. ${reason} ${then}${needsYou ? ' Do what is asked first.' : ''}`,
    needsYou,
  };
}
