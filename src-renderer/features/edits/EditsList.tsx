import { useState } from 'react';
import type { z } from 'zod';
import type { OutboxItemShape } from '../../../src-shared/edits';
import { formatCount, formatTime, humanize } from '../../lib/format';
import { CHANGED_BY_EDIT } from '../../lib/live';
import { useCommand, useCommandMutation } from '../../lib/query';
import { queuedEditForm, serverValue } from './forms';
import { RecordEditor } from './RecordEditor';

type OutboxItem = z.infer<typeof OutboxItemShape>;

const RESOURCE: Record<OutboxItem['resource'], string> = {
  supplier: 'supplier',
  dimension: 'dimension',
  dimensionItem: 'dimension item',
};

const show = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

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
              <th scope="row">{field}</th>
              {(['mine', 'theirs'] as const).map((side) => (
                <td key={side}>
                  <label className="check">
                    <input
                      type="radio"
                      name={`${item.operationId}-${field}`}
                      checked={choice[field] === side}
                      onChange={() => setChoice({ ...choice, [field]: side })}
                    />{' '}
                    {show(side === 'mine' ? item.payload[field] : theirs(field))}
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

function EditItem({ profileId, item }: { profileId: string; item: OutboxItem }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'merge'>('view');
  const retry = useCommandMutation('edits.retry', CHANGED_BY_EDIT);
  const discard = useCommandMutation('edits.discard', CHANGED_BY_EDIT);
  const edit = useCommandMutation('edits.edit', CHANGED_BY_EDIT);
  const resolve = useCommandMutation('edits.resolve', CHANGED_BY_EDIT);
  const operation = { profileId, operationId: item.operationId };
  const name = show(item.payload['name'] ?? item.server?.['name'] ?? item.recordId);
  const error = retry.error ?? discard.error ?? resolve.error;
  const queued = queuedEditForm(item);
  return (
    <li
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
            .map(([key, value]) => `${key} ${show(value)}`)
            .join(' · ')}
        </span>
        <span className="muted">
          {formatTime(item.updatedAt)}
          {item.attempts > 0 ? ` · ${formatCount(item.attempts)} attempts` : ''}
        </span>
      </div>
      {item.error && (
        <p className="field-error">
          {item.error.field ? `${item.error.field}: ` : ''}
          {item.error.message}
        </p>
      )}
      {mode === 'edit' && (
        <RecordEditor
          fields={queued.fields}
          schema={queued.schema}
          initial={queued.initial}
          mode={queued.mode}
          title={`Change the queued edit of ${name}`}
          busy={edit.isPending}
          serverError={edit.error}
          onCancel={() => setMode('view')}
          onSubmit={(payload) =>
            edit.mutate({ ...operation, input: queued.input(payload) }, { onSuccess: () => setMode('view') })
          }
        />
      )}
      {mode === 'merge' && (
        <FieldByField
          item={item}
          onCancel={() => setMode('view')}
          onMerge={(merged) =>
            resolve.mutate({ ...operation, resolution: { merged } }, { onSuccess: () => setMode('view') })
          }
        />
      )}
      {mode === 'view' && (
        <div className="actions">
          {item.status === 'conflict' ? (
            <>
              <button type="button" onClick={() => resolve.mutate({ ...operation, resolution: 'mine' })}>
                Keep mine
              </button>
              <button type="button" onClick={() => resolve.mutate({ ...operation, resolution: 'theirs' })}>
                Take theirs
              </button>
              <button type="button" onClick={() => setMode('merge')}>
                Field by field…
              </button>
            </>
          ) : (
            item.status === 'failed' && (
              <button type="button" onClick={() => retry.mutate(operation)}>
                Retry
              </button>
            )
          )}
          {item.status !== 'sending' && (
            <button type="button" onClick={() => setMode('edit')}>
              Edit…
            </button>
          )}
          <button type="button" className="danger" onClick={() => discard.mutate(operation)}>
            Discard
          </button>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
    </li>
  );
}

/** The outbox: edits waiting to be sent, failed ones with their field, conflicts to resolve. */
export function EditsList({ profileId }: { profileId: string }) {
  const list = useCommand('edits.list', { profileId });
  const push = useCommandMutation('edits.push', [...CHANGED_BY_EDIT]);
  const items = list.data?.items ?? [];
  return (
    <section className="edits" aria-labelledby="edits-title" data-testid="edits">
      <div className="section-head">
        <h2 id="edits-title">Waiting to be sent ({formatCount(items.length)})</h2>
        <button
          type="button"
          disabled={items.length === 0 || push.isPending}
          onClick={() => push.mutate({ profileId })}
        >
          {push.isPending ? 'Sending…' : 'Send now'}
        </button>
      </div>
      {push.data && (
        <p
          role="status"
          className={push.data.stoppedBy ? 'notice-warning' : 'muted'}
          data-testid="push-result"
        >
          {formatCount(push.data.sent)} sent · {formatCount(push.data.failed)} failed ·{' '}
          {formatCount(push.data.conflicts)} conflicts · {formatCount(push.data.remaining)} waiting
          {push.data.stoppedBy ? ` — ${push.data.stoppedBy.message}` : ''}
        </p>
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
            <EditItem key={item.operationId} profileId={profileId} item={item} />
          ))}
        </ul>
      )}
    </section>
  );
}
