import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import type { ErrorCode } from '../../../src-shared/errors';

type OutboxItem = Pick<z.infer<typeof OutboxItemShape>, 'operation' | 'status' | 'error'>;

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
 * may have been, for a create whose answer never came), why, and whether the user must do
 * something first or the next Send now or sync sends it by itself. Null for an edit no push
 * stopped on, and for failed and conflicting edits, which say their own problem.
 */
export function stoppedPushText(item: OutboxItem): { text: string; needsYou: boolean } | null {
  if ((item.status !== 'pending' && item.status !== 'sending') || !item.error) return null;
  const code = item.error.code as ErrorCode;
  const reason = sentence(item.error.message);
  const needsYou = USER_MUST_ACT.has(code);
  const next = needsYou
    ? 'The edit waits: once that is done, it is sent with the next Send now or sync.'
    : 'It will be sent with the next Send now or sync.';
  if (item.status === 'sending')
    return {
      text: `Maybe sent: ${reason} Before sending it again, the next Send now or sync looks for the record on the server, so it is never created twice.${needsYou ? ' Do what is asked first.' : ''}`,
      needsYou,
    };
  return { text: `Not sent: ${reason} ${next}`, needsYou };
}
