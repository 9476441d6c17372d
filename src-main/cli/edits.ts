import { parseArgs } from 'node:util';
import { mostPressingEdits } from '../../src-shared/edits';
import { AppError } from '../../src-shared/errors';
import type { Core } from '../core';
import { conflictMessage, type OutboxItem } from '../outbox';
import { specs } from '../outbox/records';
import { chooseProfile } from './filters';
import { onInterrupt, table, UsageError, type CliIo } from './io';

export const editsUsage = `satchel edits list [--profile NAME_OR_ID] [--json]
satchel edits push [--profile NAME_OR_ID]
satchel edits retry|discard OPERATION_ID [--profile NAME_OR_ID]
satchel edits resolve OPERATION_ID (--mine | --theirs) [--profile NAME_OR_ID]`;

/** Offline edits waiting in the outbox: list them, send them, retry or drop one. */
export async function editsCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  // A mistyped action is said before any organisation is looked for.
  if (!['list', 'push', 'resolve', 'retry', 'discard'].includes(action ?? ''))
    throw new UsageError(
      `edits takes list, push, retry, discard or resolve${action ? `, not "${action}"` : ''}`,
    );
  const { values, positionals } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      json: { type: 'boolean', default: false },
      mine: { type: 'boolean', default: false },
      theirs: { type: 'boolean', default: false },
    },
  });
  const profile = chooseProfile(core, values.profile);
  switch (action) {
    case 'list': {
      const items = core.outbox.list(profile.id);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
        return;
      }
      if (items.length === 0) {
        io.stderr.write('No edits are waiting.\n');
        return;
      }
      io.stdout.write(
        table([
          ['OPERATION', 'EDIT', 'STATUS', 'PROBLEM'],
          ...items.map((item) => [
            item.operationId,
            // Named as the user knows the record; the id tells two of the same name apart.
            `${item.operation} ${specs[item.resource].label} ${item.name ? `"${item.name}" ` : ''}(${item.recordId})`,
            statusText(item),
            problem(item),
          ]),
        ]),
      );
      return;
    }
    case 'push': {
      // Ctrl+C stops the push between two edits (it watches the signal itself); the rest wait
      // for the next push.
      const release = onInterrupt(io, () => undefined);
      const summary = await core.outbox.push(profile.id, io.signal).finally(release);
      io.stdout.write(
        `${summary.sent} sent, ${summary.failed} failed, ${summary.conflicts} conflicts, ${summary.remaining} waiting\n`,
      );
      if (summary.stoppedBy && io.signal?.aborted)
        throw new AppError(
          'CANCELLED',
          `Sending offline edits was interrupted; ${summary.remaining} wait for the next push.`,
        );
      if (summary.stoppedBy) throw new AppError(summary.stoppedBy.code, summary.stoppedBy.message);
      // Counted over the whole queue: a conflict of an earlier push still holds its record's
      // later edits back.
      const attention = needingAttention(core, profile.id);
      if (attention) throw new AppError('REMOTE_REJECTED', attention);
      return;
    }
    case 'resolve': {
      const [operationId] = positionals;
      if (!operationId || values.mine === values.theirs)
        throw new UsageError('edits resolve takes an operation id and one of --mine or --theirs');
      core.outbox.resolve(profile.id, operationId, values.mine ? 'mine' : 'theirs');
      io.stderr.write(
        values.mine
          ? `Kept yours: ${operationId} is sent with the next push, over the server's version\n`
          : `Took theirs: ${operationId} is discarded and the server's version kept\n`,
      );
      return;
    }
    case 'retry':
    case 'discard': {
      const [operationId] = positionals;
      if (!operationId) throw new UsageError(`edits ${action} needs an operation id (see "edits list")`);
      if (action === 'retry') core.outbox.retry(profile.id, operationId);
      else core.outbox.discard(profile.id, operationId);
      io.stderr.write(`${action === 'retry' ? 'Will send again' : 'Discarded'}: ${operationId}\n`);
      return;
    }
  }
}

/**
 * An edit's status in the list's words: one a live push has on its way is "sending"; one left
 * on its way by a push that is no more (a process killed, an answer that never came) is
 * "interrupted", and may or may not have reached the server. `satchel dimension list` says a
 * record's edit in these words too.
 */
export function statusText(item: Pick<OutboxItem, 'status' | 'operation'>): string {
  if (item.status !== 'interrupted') return item.status;
  return item.operation === 'create'
    ? 'interrupted (maybe sent; looked up before sending again; sync to find out)'
    : 'interrupted (maybe sent; checked before sending again)';
}

/**
 * Per record of one kind, the waiting edit that most needs the user (`mostPressingEdits`), as
 * `dimension list` and `supplier list` say it: after the record's status in words
 * (`editNote`), and in `--json` as the record's `edit` (`editJson`).
 */
export function recordEdits(
  core: Core,
  profileId: string,
  resource: OutboxItem['resource'],
): Map<string, OutboxItem> {
  return mostPressingEdits(core.outbox.list(profileId).filter((item) => item.resource === resource));
}

/** A record's waiting edit as a list says it after the record's status: `; edit conflict`. */
export function editNote(edit: OutboxItem | undefined): string {
  return edit ? `; edit ${statusText(edit)}` : '';
}

/**
 * A record's waiting edit in `--json`: the state `edits list` gives it (`pending`, `sending`,
 * `interrupted`, `failed`, `conflict`) and the operation id `edits retry|discard|resolve`
 * take; null when none waits.
 */
export function editJson(
  edit: OutboxItem | undefined,
): Pick<OutboxItem, 'operationId' | 'operation' | 'status'> | null {
  return edit ? { operationId: edit.operationId, operation: edit.operation, status: edit.status } : null;
}

/** Why an edit waits: the server's reason, or for a conflict when the server's version is from. */
function problem(item: OutboxItem): string {
  if (!item.error) return '';
  // Said anew from the server's record, so an edit stored with an older wording reads the same.
  const message =
    item.status === 'conflict' && item.server
      ? conflictMessage(specs[item.resource].label, item.server.updateTime)
      : item.error.message;
  // The API's own code of a refusal (DIMENSION_DELETED) tells which rule to look up.
  const remote = item.status === 'failed' && item.error.remoteCode ? ` [${item.error.remoteCode}]` : '';
  return `${item.error.field ? `${item.error.field}: ` : ''}${message}${remote}`;
}

/** What the waiting edits need from the user (conflicts, refused edits), or null. */
export function needingAttention(core: Core, profileId: string): string | null {
  const items = core.outbox.list(profileId);
  const conflicts = items.filter((item) => item.status === 'conflict').length;
  const failed = items.filter((item) => item.status === 'failed').length;
  if (conflicts === 0 && failed === 0) return null;
  const parts = [
    ...(conflicts > 0
      ? [`${conflicts} in conflict with the server (edits resolve OP --mine or --theirs)`]
      : []),
    ...(failed > 0
      ? [`${failed} refused by the server (its reason is in the list; edits retry OP or edits discard OP)`]
      : []),
  ];
  return `Offline edits need your attention: ${parts.join('; ')}. See "satchel edits list".`;
}
