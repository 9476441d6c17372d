import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { AppError } from '../../../src-shared/errors';
import type { EventPayload } from '../../../src-shared/ipc';
import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import { formatCount, formatTime, humanize } from '../../lib/format';
import { CHANGED_BY_EDIT } from '../../lib/live';
import { useCommand, useCommandMutation } from '../../lib/query';
import { formOf, queuedEditForm, serverValue, type FieldSpec } from './forms';
import { RecordEditor } from './RecordEditor';
import { RESOURCE_LABEL as RESOURCE, stoppedPushText } from './reasons';

type OutboxItem = z.infer<typeof OutboxItemShape>;

const show = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/** Fields a refusal may name that no form shows: the place of the record, not a value of it. */
const PLACE_LABELS: Record<string, string> = { dimensionId: 'Dimension' };

/** A field of an edit by the label its form gives it ("Supplier number", not `code`). */
function labelOf(item: OutboxItem, field: string): string {
  const spec = formOf(item.resource, item.operation === 'create').fields.find((f) => f.key === field);
  return spec?.label ?? PLACE_LABELS[field] ?? field;
}

/**
 * A refusal as the list says it: on its field by the field's label ("Status: …"), whether the
 * server refused the edit or Retry was refused here (checked again, the same rules).
 */
/**
 * The API's own code of a refusal (`DUPLICATE_CODE`), quietly beside the message: what a user
 * quotes to support, so it can be selected and copied; the CLI shows it as `[DUPLICATE_CODE]`.
 */
function ServerCode({ code }: { code: string | undefined }) {
  if (!code) return null;
  return (
    <small className="server-code">
      Server code: <code>{code}</code>
    </small>
  );
}

function refusalText(item: OutboxItem, error: { message: string; field?: string | undefined }): string {
  const field = error.field?.split('.').at(-1);
  return `${field ? `${labelOf(item, field)}: ` : ''}${error.message}`;
}

/**
 * A field's value as its form says it: a status by its label ("Deleted", not `DELETED`), an
 * IBAN in groups of four.
 */
function shownValue(item: OutboxItem, field: string, value: unknown): string {
  const spec: FieldSpec | undefined = formOf(item.resource, item.operation === 'create').fields.find(
    (f) => f.key === field,
  );
  const option = spec?.options?.find((candidate) => candidate.value === value);
  if (option) return option.label;
  return typeof value === 'string' && spec?.format ? spec.format(value) : show(value);
}

/**
 * A conflict's sides, field by field: the record as the edit found it, the user's edit, and the
 * server's newer record. Fields the edit leaves out that the colleague changed (a deletion, say)
 * are shown too: both resolutions leave them as the server has them, and keeping one's own
 * values on a record deleted meanwhile should not happen unseen.
 */
function BothSides({ item }: { item: OutboxItem }) {
  const server = item.server ?? {};
  const before = item.before;
  const value = (record: Record<string, unknown>, field: string) =>
    shownValue(item, field, serverValue(item.resource, record, field));
  const theirsOnly = before
    ? formOf(item.resource, false)
        .fields.map((field) => field.key)
        .filter((field) => !(field in item.payload) && value(before, field) !== value(server, field))
    : [];
  return (
    <table className="plain conflict-sides" aria-label="Yours and the server's">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">Yours</th>
          <th scope="col">On the server now</th>
        </tr>
      </thead>
      <tbody>
        {Object.keys(item.payload).map((field) => (
          <tr key={field}>
            <th scope="row">{labelOf(item, field)}</th>
            <td>{before ? value(before, field) : '—'}</td>
            <td>{shownValue(item, field, item.payload[field])}</td>
            <td>{value(server, field)}</td>
          </tr>
        ))}
        {theirsOnly.map((field) => (
          <tr key={field}>
            <th scope="row">{labelOf(item, field)}</th>
            <td>{before ? value(before, field) : '—'}</td>
            <td className="muted">Not in your edit</td>
            <td>{value(server, field)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function FieldByField({
  item,
  onMerge,
  onCancel,
}: {
  item: OutboxItem;
  onMerge(merged: Record<string, unknown>): void;
  onCancel(): void;
}) {
  const fields = Object.keys(item.payload);
  const [choice, setChoice] = useState<Record<string, 'mine' | 'theirs'>>(
    Object.fromEntries(fields.map((field) => [field, 'mine'])),
  );
  const server = item.server ?? {};
  const theirs = (field: string) => serverValue(item.resource, server, field);
  return (
    <fieldset className="merge">
      <legend>Choose each field</legend>
      <table className="plain">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Mine</th>
            <th scope="col">Theirs (server)</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => (
            <tr key={field}>
              <th scope="row">{labelOf(item, field)}</th>
              {(['mine', 'theirs'] as const).map((side) => (
                <td key={side}>
                  <label className="check">
                    <input
                      type="radio"
                      name={`${item.operationId}-${field}`}
                      checked={choice[field] === side}
                      onChange={() => setChoice({ ...choice, [field]: side })}
                    />{' '}
                    {shownValue(item, field, side === 'mine' ? item.payload[field] : theirs(field))}
                  </label>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() =>
            onMerge(
              Object.fromEntries(
                fields.map((field) => [
                  field,
                  choice[field] === 'mine' ? item.payload[field] : theirs(field),
                ]),
              ),
            )
          }
        >
          Keep the merged record
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}

function EditItem({
  profileId,
  organisation,
  item,
  onLeft,
  onSyncing,
}: {
  profileId: string;
  /** The organisation's name, as its connection is called: whom an interrupted edit may have reached. */
  organisation: string;
  item: OutboxItem;
  /** Called when an action takes the edit off the list (discarded, theirs taken). */
  onLeft(): void;
  /**
   * Sync now was pressed here (`true`), or its sync ended with the edit still listed (`false`):
   * a sync that settles the edit takes it off the list, and the list then keeps the focus.
   */
  onSyncing(syncing: boolean): void;
}) {
  const [mode, setMode] = useState<'view' | 'edit' | 'merge'>('view');
  const self = useRef<HTMLLIElement>(null);
  const retry = useCommandMutation('edits.retry', CHANGED_BY_EDIT);
  const discard = useCommandMutation('edits.discard', CHANGED_BY_EDIT);
  const edit = useCommandMutation('edits.edit', CHANGED_BY_EDIT);
  const resolve = useCommandMutation('edits.resolve', CHANGED_BY_EDIT);
  // An interrupted edit is settled by the next push: a sync pushes first, then reads the server.
  const sync = useCommandMutation('sync.start', [...CHANGED_BY_EDIT, 'sync.history']);
  const operation = { profileId, operationId: item.operationId };
  // A read-only copy: every action on the edit stays, off, with the reason.
  const off = writeControl(useReadOnly());
  const name = show(item.name ?? item.payload['name'] ?? item.server?.['name'] ?? item.recordId);
  const syncFailure =
    sync.data?.outcome === 'failed'
      ? (sync.data.errors.at(-1)?.message ?? 'The sync failed.')
      : (sync.error?.message ?? null);
  const error = retry.error ?? discard.error ?? resolve.error;
  // An interrupted create may have made the record already, and is found by the values it
  // was sent with: it is changed after a sync has settled it. An interrupted update may be.
  const editable =
    item.status !== 'sending' && !(item.status === 'interrupted' && item.operation === 'create');
  const queued = queuedEditForm(item);
  const stopped = stoppedPushText(item, organisation);
  // The button pressed goes away with the view it was in: the focus stays on this edit.
  const backToView = () => {
    setMode('view');
    self.current?.focus();
  };
  // Esc closes a form opened in this edit; the list and the other edits stay as they are.
  const escapeBack = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    backToView();
  };
  const stays = { onSuccess: backToView };
  const leaves = { onSuccess: onLeft };
  return (
    <li
      ref={self}
      tabIndex={-1}
      className={`edit-item status-${item.status}`}
      aria-label={`${humanize(item.operation)} ${RESOURCE[item.resource]} ${name}`}
    >
      <div className="edit-facts">
        <span className={`badge badge-${item.status}`}>{humanize(item.status)}</span>
        <strong>
          {humanize(item.operation)} {RESOURCE[item.resource]}: {name}
        </strong>
        <span className="muted">
          {Object.entries(item.payload)
            .map(([key, value]) => `${labelOf(item, key)} ${shownValue(item, key, value)}`)
            .join(' · ')}
        </span>
        <span className="muted">
          {formatTime(item.updatedAt)}
          {item.attempts > 0
            ? ` · ${formatCount(item.attempts)} ${item.attempts === 1 ? 'attempt' : 'attempts'}`
            : ''}
        </span>
      </div>
      {item.status === 'conflict' ? (
        <>
          <p className="field-error">
            Changed on the server
            {typeof item.server?.['updateTime'] === 'string'
              ? ` at ${formatTime(item.server['updateTime'])}`
              : ''}{' '}
            after you edited it. Keep yours, take theirs, or choose field by field.
          </p>
          {mode !== 'merge' && <BothSides item={item} />}
        </>
      ) : stopped ? (
        // A push stopped on it, or was interrupted: whether the user must act first, or the next
        // push sends it (after finding out whether it reached the server).
        <p className={stopped.needsYou ? 'field-error' : 'notice-warning'} data-testid="edit-stopped">
          {stopped.text}
        </p>
      ) : (
        item.error && (
          <p className="field-error">
            {refusalText(item, item.error)}
            <ServerCode code={item.error.remoteCode} />
          </p>
        )
      )}
      {mode === 'edit' && (
        <div onKeyDown={escapeBack}>
          <RecordEditor
            fields={queued.fields}
            schema={queued.schema}
            initial={queued.initial}
            mode={queued.mode}
            title={`Change the queued edit of ${name}`}
            busy={edit.isPending}
            serverError={edit.error}
            initialErrors={queued.refusal}
            {...(queued.warnings ? { warnings: queued.warnings } : {})}
            onCancel={backToView}
            onSubmit={(payload) => edit.mutate({ ...operation, input: queued.input(payload) }, stays)}
          />
        </div>
      )}
      {mode === 'merge' && (
        <div onKeyDown={escapeBack}>
          <FieldByField
            item={item}
            onCancel={backToView}
            onMerge={(merged) => resolve.mutate({ ...operation, resolution: { merged } }, stays)}
          />
        </div>
      )}
      {mode === 'view' && (
        <div className="actions">
          {item.status === 'conflict' ? (
            <>
              <button
                type="button"
                {...off}
                onClick={() => resolve.mutate({ ...operation, resolution: 'mine' }, stays)}
              >
                Keep mine
              </button>
              <button
                type="button"
                {...off}
                onClick={() => resolve.mutate({ ...operation, resolution: 'theirs' }, leaves)}
              >
                Take theirs
              </button>
              <button type="button" {...off} onClick={() => setMode('merge')}>
                Field by field…
              </button>
            </>
          ) : (
            item.status === 'failed' && (
              <button type="button" {...off} onClick={() => retry.mutate(operation, stays)}>
                Retry
              </button>
            )
          )}
          {item.status === 'interrupted' && (
            <button
              type="button"
              {...off}
              onClick={() => {
                if (sync.isPending) return;
                onSyncing(true);
                // Told only while this edit is listed: settled, it has left, and the list moves
                // the focus to its heading.
                sync.mutate({ profileId, full: false }, { onSettled: () => onSyncing(false) });
              }}
            >
              {sync.isPending ? 'Syncing…' : 'Sync now'}
            </button>
          )}
          {editable && (
            <button
              type="button"
              {...off}
              onClick={() => {
                edit.reset();
                setMode('edit');
              }}
            >
              Edit…
            </button>
          )}
          <button type="button" className="danger" {...off} onClick={() => discard.mutate(operation, leaves)}>
            Discard
          </button>
        </div>
      )}
      {syncFailure && mode === 'view' && (
        <p className="form-error" role="alert">
          {syncFailure}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {refusalText(item, error)}
          <ServerCode code={error instanceof AppError ? error.remoteCode : undefined} />
        </p>
      )}
    </li>
  );
}

/**
 * The outbox: edits waiting to be sent, failed ones with their field, conflicts to resolve.
 * `organisation` is the connection's name, which says whom an interrupted edit may have reached.
 */
export function EditsList({ profileId, organisation }: { profileId: string; organisation: string }) {
  const list = useCommand('edits.list', { profileId });
  const push = useCommandMutation('edits.push', [...CHANGED_BY_EDIT]);
  const items = list.data?.items ?? [];
  const readOnly = useReadOnly();
  const heading = useRef<HTMLHeadingElement>(null);
  // A push running now, started here or by a sync or a reconnect, with what it settled so far.
  const [progress, setProgress] = useState<EventPayload<'edits.progress'> | null>(null);
  useEffect(
    () =>
      window.satchel.on('edits.progress', (event) => {
        if (event.profileId === profileId) setProgress(event.running ? event : null);
      }),
    [profileId],
  );
  const sending = push.isPending || progress !== null;
  // Sync now pressed on an edit: if the sync takes the edit off the list, the focus it had goes
  // to the heading rather than to the page, where no key acts.
  const syncing = useRef(false);
  useEffect(() => {
    if (!syncing.current) return;
    const focused = document.activeElement;
    if (focused && focused !== document.body) return;
    syncing.current = false;
    heading.current?.focus();
  });
  const cancel = useCommandMutation('edits.cancel');
  // Send now is disabled while its push goes on, and for good once every edit is sent: each
  // would drop the focus on the page. Cancel holds it while the push goes on; Send now takes it
  // back if edits still wait, else the list's heading.
  const sendButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const pressed = useRef(false);
  useEffect(() => {
    if (!pressed.current) return;
    const button = sendButton.current;
    const stop = cancelButton.current;
    const focused = document.activeElement;
    const waiting =
      !focused ||
      focused === document.body ||
      focused === heading.current ||
      focused === button ||
      (stop !== null && focused === stop);
    if (waiting) {
      const target = button && !button.disabled ? button : (stop ?? heading.current);
      if (target !== focused) target?.focus();
    }
    if (!sending) pressed.current = false;
  });
  return (
    <section className="edits" aria-labelledby="edits-title" data-testid="edits">
      <div className="section-head">
        <h2 id="edits-title" ref={heading} tabIndex={-1}>
          Waiting to be sent ({formatCount(items.length)})
        </h2>
        <button
          type="button"
          ref={sendButton}
          {...writeControl(readOnly, items.length === 0 || sending)}
          onClick={() => {
            pressed.current = true;
            push.mutate({ profileId });
          }}
        >
          {sending ? 'Sending…' : 'Send now'}
        </button>
        {sending && (
          // Stops the push at the edit it is on, whoever started it: a long queue goes at the
          // write limit's pace. What was sent stays sent; the rest waits for the next push.
          <button
            type="button"
            ref={cancelButton}
            onClick={() => {
              pressed.current = true;
              cancel.mutate({ profileId });
            }}
          >
            Cancel
          </button>
        )}
      </div>
      {progress ? (
        <p role="status" className="muted" data-testid="push-progress">
          Sending: {formatCount(progress.sent)} sent · {formatCount(progress.failed)} failed ·{' '}
          {formatCount(progress.conflicts)} {progress.conflicts === 1 ? 'conflict' : 'conflicts'} so far,{' '}
          {formatCount(
            items.filter((item) => ['pending', 'sending', 'interrupted'].includes(item.status)).length,
          )}{' '}
          to go
        </p>
      ) : (
        push.data && (
          <p
            role="status"
            className={push.data.stoppedBy ? 'notice-warning' : 'muted'}
            data-testid="push-result"
          >
            {formatCount(push.data.sent)} sent · {formatCount(push.data.failed)} failed ·{' '}
            {formatCount(push.data.conflicts)} {push.data.conflicts === 1 ? 'conflict' : 'conflicts'} ·{' '}
            {formatCount(push.data.remaining)} waiting
            {push.data.stoppedBy ? ` — ${push.data.stoppedBy.message}` : ''}
          </p>
        )
      )}
      {push.error && (
        <p className="form-error" role="alert">
          {push.error.message}
        </p>
      )}
      {items.length === 0 ? (
        <p className="muted">Every edit has been sent.</p>
      ) : (
        <ul className="edit-list">
          {items.map((item) => (
            <EditItem
              key={item.operationId}
              profileId={profileId}
              organisation={organisation}
              item={item}
              // The heading keeps the focus when the edit that had it leaves the list.
              onLeft={() => heading.current?.focus()}
              onSyncing={(on) => (syncing.current = on)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
