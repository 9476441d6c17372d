import { mostPressingEdits } from '../../../src-shared/edits';
import type { CommandOutput } from '../../../src-shared/ipc';
import { Badge } from '../../components/ListGrid';

type WaitingEdit = CommandOutput<'edits.list'>['items'][number];
export type EditState = WaitingEdit['status'];

/**
 * Per record, the state of its waiting edits that most needs the user: conflict, failed,
 * interrupted (the next sync finds out whether it reached the organisation), waiting.
 */
export function recordStates(waiting: readonly WaitingEdit[]): Map<string, EditState> {
  return new Map([...mostPressingEdits(waiting)].map(([recordId, item]) => [recordId, item.status]));
}

/**
 * A record row's word for its waiting edits, as the edits list below says it (Suppliers,
 * Dimensions and their items alike). An interrupted edit is "Interrupted", never "Not sent yet"
 * nor "Sending": it may have reached the organisation already.
 */
export function EditStateBadge({
  status,
  organisation,
}: {
  status: EditState | undefined;
  organisation: string;
}) {
  if (status === undefined) return null;
  if (status === 'conflict')
    return (
      <Badge kind="conflict" title="Changed on the server too: settle it in Waiting to be sent.">
        Conflict
      </Badge>
    );
  if (status === 'failed')
    return (
      <Badge kind="failed" title="Refused by the server: see why in Waiting to be sent.">
        Failed
      </Badge>
    );
  if (status === 'interrupted')
    return (
      <Badge
        kind="interrupted"
        title={`Sending it was interrupted: the next sync finds out whether it reached ${organisation}.`}
      >
        Interrupted
      </Badge>
    );
  return <Badge kind="pending">Not sent yet</Badge>;
}
