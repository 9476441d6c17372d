import { useId, useRef, useState, type RefObject } from 'react';
import { useReadOnly, writeControl } from '../../lib/read-only';
import type { ProfileSummary } from '../../../src-shared/profiles';
import type { DimensionItemRow, DimensionRow } from '../../../src-shared/search';
import { Badge, ListGrid } from '../../components/ListGrid';
import { SearchField } from '../../components/fields';
import { Pager, useKeptTotal } from '../../components/Pager';
import { useListKeys, useNewPageAtTop } from '../../components/useListKeys';
import { useTypedSearch } from '../../components/useTypedSearch';
import { formatCount, humanize } from '../../lib/format';
import { CHANGED_BY_EDIT } from '../../lib/live';
import { useCommand, useCommandMutation } from '../../lib/query';
import { EditStateBadge, recordStates, type EditState } from '../edits/EditStateBadge';
import { EditsList } from '../edits/EditsList';
import { formOf, valuesFrom } from '../edits/forms';
import type { Opening } from '../attention/groups';
import { EditorPane, RecordEditor } from '../edits/RecordEditor';
import { savedEditStatus, type SavedEdit } from '../edits/saved';
import { focusList } from '../../lib/list-focus';

const PAGE_SIZE = 50;

type Editing =
  | { kind: 'dimension'; record: DimensionRow | null }
  | { kind: 'item'; dimension: DimensionRow; record: DimensionItemRow | null };

const label = (record: { name: string | null; code: string | null; id: string }) =>
  record.name ?? record.code ?? record.id;
const isDeleted = (record: { status: string | null; deletedAt: string | null }) =>
  record.deletedAt !== null || record.status === 'DELETED';

/**
 * Dimensions (cost center, cost carrier, projects, …) and their items: listed from the
 * offline copy, created and changed there at once, each change queued for the API like a
 * supplier's. The items shown are those of the dimension highlighted in the first list.
 */
export function DimensionsView({
  profile,
  onOpen = () => undefined,
}: {
  profile: ProfileSummary;
  /** Opens another area with a search applied: an item's expenses. */
  onOpen?(opening: Opening): void;
}) {
  const id = useId();
  const profileId = profile.id;
  const [showDeleted, setShowDeleted] = useState(false);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [saved, setSaved] = useState<SavedEdit | null>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
  const dimensionGrid = useRef<HTMLTableElement>(null);
  const itemGrid = useRef<HTMLTableElement>(null);

  // The list stays while it is read again with or without the deleted ones (see useCommand).
  const list = useCommand(
    'dimensions.list',
    { profileId, search: { includeDeleted: showDeleted } },
    { keepPrevious: true },
  );
  const dimensions = list.data?.dimensions ?? [];
  // Each row's edit state as the edits list below has it ("Interrupted", "Failed", …); a row the
  // cache marks as edited before that list is read says "Not sent yet".
  const waiting = useCommand('edits.list', { profileId });
  const states = recordStates(waiting.data?.items ?? []);
  const stateOf = (row: { id: string; editPending: boolean }): EditState | undefined =>
    states.get(row.id) ?? (row.editPending ? 'pending' : undefined);
  const createDimension = useCommandMutation('dimensions.create', CHANGED_BY_EDIT);
  const updateDimension = useCommandMutation('dimensions.update', CHANGED_BY_EDIT);
  const createItem = useCommandMutation('dimensionItems.create', CHANGED_BY_EDIT);
  const updateItem = useCommandMutation('dimensionItems.update', CHANGED_BY_EDIT);
  const mutations = [createDimension, updateDimension, createItem, updateItem];

  // A read-only copy: New and Edit stay, off, with the reason; Enter on a row opens no editor.
  const readOnly = useReadOnly();
  const startEdit = (next: Editing) => {
    if (readOnly) return;
    for (const mutation of mutations) mutation.reset();
    setSaved(null);
    setEditing(next);
  };
  const keys = useListKeys(dimensions.length, (index) => {
    const dimension = dimensions[index];
    if (!dimension) return;
    // A system dimension cannot be changed: Enter goes to its items instead.
    if (dimension.system) {
      if (itemGrid.current) focusList(itemGrid.current);
    } else startEdit({ kind: 'dimension', record: dimension });
  });
  // A dimension just created is highlighted once the list holds it, so its items are shown.
  const created = highlight === null ? -1 : dimensions.findIndex((d) => d.id === highlight);
  if (created >= 0) {
    setHighlight(null);
    keys.setActive(created);
  }
  const selected = dimensions[created >= 0 ? created : keys.active] ?? null;
  const returnFocus = (kind: Editing['kind']) => {
    const list = (kind === 'dimension' ? dimensionGrid : itemGrid).current;
    if (list) focusList(list);
  };
  const close = () => {
    if (editing) returnFocus(editing.kind);
    setEditing(null);
  };
  const finish = (kind: Editing['kind'], done: SavedEdit) => {
    setEditing(null);
    setSaved(done);
    returnFocus(kind);
  };
  // What became of the edit just saved, as the outbox has it now (as the Suppliers area says it).
  const savedMessage = saved && savedEditStatus(saved, waiting.data?.items ?? [], profile.name);

  const submit = (payload: Record<string, unknown>) => {
    if (!editing) return;
    const name = String(payload['name'] ?? (editing.record ? label(editing.record) : ''));
    if (editing.kind === 'dimension') {
      const record = editing.record;
      if (record)
        updateDimension.mutate(
          { profileId, id: record.id, input: payload },
          { onSuccess: ({ operationId }) => finish('dimension', { verb: 'Saved', name, operationId }) },
        );
      else
        createDimension.mutate(
          { profileId, input: payload as { name: string; code: string } },
          {
            onSuccess: (created) => {
              setHighlight(created.recordId);
              finish('dimension', { verb: 'Created', name, operationId: created.operationId });
            },
          },
        );
      return;
    }
    const { dimension, record } = editing;
    if (record)
      updateItem.mutate(
        { profileId, dimensionId: dimension.id, id: record.id, input: payload },
        {
          onSuccess: ({ operationId }) =>
            finish('item', { verb: 'Saved', name: `${name} in ${label(dimension)}`, operationId }),
        },
      );
    else
      createItem.mutate(
        { profileId, dimensionId: dimension.id, input: payload as { name: string; code: string } },
        {
          onSuccess: ({ operationId }) =>
            finish('item', { verb: 'Created', name: `${name} in ${label(dimension)}`, operationId }),
        },
      );
  };

  const form = editing
    ? formOf(editing.kind === 'item' ? 'dimensionItem' : 'dimension', !editing.record)
    : null;
  const title = !editing
    ? ''
    : editing.kind === 'dimension'
      ? editing.record
        ? `Edit ${label(editing.record)}`
        : 'New dimension'
      : editing.record
        ? `Edit ${label(editing.record)} in ${label(editing.dimension)}`
        : `New item in ${label(editing.dimension)}`;

  return (
    <section className="area" data-area="dimensions">
      <div className="area-head">
        <h1 id="area-title">Dimensions</h1>
        <p className="muted">{profile.name}</p>
      </div>
      <div className="filter-row">
        <label className="check" htmlFor={`${id}-deleted`}>
          <input
            id={`${id}-deleted`}
            type="checkbox"
            checked={showDeleted}
            onChange={(event) => setShowDeleted(event.target.checked)}
          />{' '}
          Show deleted
        </label>
        <button
          type="button"
          className="primary"
          {...writeControl(readOnly)}
          onClick={() => startEdit({ kind: 'dimension', record: null })}
        >
          New dimension
        </button>
      </div>
      {savedMessage && (
        <p
          role="status"
          className={savedMessage.problem ? 'field-error' : 'muted'}
          data-testid="dimension-saved"
        >
          {savedMessage.text}
        </p>
      )}
      <div className={editing ? 'split open' : 'split'}>
        <div className="list-column">
          <ListGrid
            gridRef={dimensionGrid}
            label="Dimensions"
            idPrefix="dim-row"
            rows={dimensions}
            rowKey={(row) => row.id}
            keys={keys}
            head={
              <>
                <th scope="col">Name</th>
                <th scope="col">Code</th>
                <th scope="col">Status</th>
                <th scope="col" className="number">
                  Items
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </>
            }
          >
            {(row, index) => (
              <>
                <td>
                  {label(row)}
                  {row.system && (
                    <Badge title="Its name, code and status are fixed; its items can be edited.">
                      System
                    </Badge>
                  )}
                  <EditStateBadge status={stateOf(row)} organisation={profile.name} />
                </td>
                <td className="mono">{row.code ?? '—'}</td>
                <td>{humanize(row.status)}</td>
                <td className="number">{formatCount(row.itemCount)}</td>
                <td>
                  {!row.system && (
                    <button
                      type="button"
                      tabIndex={-1}
                      {...writeControl(readOnly)}
                      onClick={() => {
                        keys.setActive(index);
                        startEdit({ kind: 'dimension', record: row });
                      }}
                      aria-label={`Edit ${label(row)}`}
                    >
                      Edit
                    </button>
                  )}
                </td>
              </>
            )}
          </ListGrid>
          {list.error && (
            <p className="form-error" role="alert">
              {list.error.message}
            </p>
          )}
          {list.data && dimensions.length === 0 && (
            <p className="empty">No dimensions in the offline copy yet: sync to fetch them.</p>
          )}
          {selected && (
            <Items
              key={`${selected.id}:${showDeleted}`}
              profileId={profileId}
              organisation={profile.name}
              stateOf={stateOf}
              dimension={selected}
              showDeleted={showDeleted}
              grid={itemGrid}
              onEdit={(record) => startEdit({ kind: 'item', dimension: selected, record })}
              onExpenses={(record) =>
                onOpen({
                  area: 'expenses',
                  filters: { bookedOn: { dimensionId: selected.id, itemId: record.id } },
                })
              }
            />
          )}
        </div>
        {editing && form && (
          <EditorPane
            label={editing.kind === 'dimension' ? 'Dimension editor' : 'Dimension item editor'}
            onClose={close}
          >
            <RecordEditor
              key={`${editing.kind}:${editing.record?.id ?? 'new'}`}
              fields={form.fields}
              schema={form.schema}
              initial={valuesFrom(form.fields, editing.record ?? {}, form.defaults)}
              mode={editing.record ? 'update' : 'create'}
              title={title}
              busy={mutations.some((mutation) => mutation.isPending)}
              serverError={mutations.find((mutation) => mutation.error)?.error ?? null}
              onCancel={close}
              onSubmit={submit}
            />
          </EditorPane>
        )}
      </div>
      <EditsList profileId={profileId} organisation={profile.name} />
    </section>
  );
}

/** The highlighted dimension's items: found by name or code, a page at a time. */
function Items({
  profileId,
  organisation,
  stateOf,
  dimension,
  showDeleted,
  grid,
  onEdit,
  onExpenses,
}: {
  profileId: string;
  /** The connection's name: whom an interrupted edit may have reached. */
  organisation: string;
  /** A row's edit state, as the edits list has it. */
  stateOf(row: DimensionItemRow): EditState | undefined;
  dimension: DimensionRow;
  showDeleted: boolean;
  grid: RefObject<HTMLTableElement | null>;
  onEdit(record: DimensionItemRow | null): void;
  onExpenses(record: DimensionItemRow): void;
}) {
  const id = useId();
  const { text, setText, searched: debounced, page, setPage } = useTypedSearch();
  const search = useCommand(
    'dimensionItems.search',
    {
      profileId,
      search: {
        dimensionId: dimension.id,
        includeDeleted: showDeleted,
        ...(debounced ? { text: debounced } : {}),
        pagination: { page, pageSize: PAGE_SIZE },
      },
    },
    { keepPrevious: true },
  );
  const pagerTotal = useKeptTotal(search.data?.total);
  // The rows on screen stay while another search or page is read (see useCommand).
  const rows = search.data?.rows ?? [];
  const answer = search.isPlaceholderData ? undefined : search.data;
  const keys = useListKeys(
    rows.length,
    (index) => onEdit(rows[index] ?? null),
    (event, index) => {
      const row = rows[index];
      if (event.key === 'e' && row) {
        event.preventDefault();
        onExpenses(row);
      }
    },
  );
  useNewPageAtTop(grid, page, answer !== undefined, keys.setActive);
  const deleted = isDeleted(dimension);
  const name = label(dimension);
  const readOnly = useReadOnly();

  return (
    <section className="dimension-items" aria-labelledby={`${id}-title`}>
      <div className="section-head">
        <h2 id={`${id}-title`}>Items of {name}</h2>
        <button
          type="button"
          aria-describedby={deleted ? `${id}-deleted` : undefined}
          {...writeControl(readOnly, deleted)}
          onClick={() => onEdit(null)}
        >
          New item
        </button>
      </div>
      {deleted && (
        <p className="hint" id={`${id}-deleted`}>
          {name} is deleted: items cannot be added to it.
        </p>
      )}
      <div className="filter-row">
        <SearchField
          id={`${id}-text`}
          label="Search items"
          placeholder="Name or code  (/)"
          searches="Searches the items' names and codes. Press / to come here."
          value={text}
          onChange={setText}
          list={grid}
        />
      </div>
      <ListGrid
        gridRef={grid}
        label={`Items of ${name}`}
        idPrefix="item-row"
        rows={rows}
        rowKey={(row) => row.id}
        keys={keys}
        head={
          <>
            <th scope="col">Name</th>
            <th scope="col">Code</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </>
        }
      >
        {(row) => (
          <>
            <td>
              {label(row)}
              <EditStateBadge status={stateOf(row)} organisation={organisation} />
            </td>
            <td className="mono">{row.code ?? '—'}</td>
            <td>{humanize(row.status)}</td>
            <td className="row-actions">
              <button
                type="button"
                tabIndex={-1}
                {...writeControl(readOnly)}
                onClick={() => onEdit(row)}
                aria-label={`Edit ${label(row)}`}
              >
                Edit
              </button>
              <button
                type="button"
                tabIndex={-1}
                onClick={() => onExpenses(row)}
                aria-label={`Expenses booked on ${label(row)}`}
              >
                Expenses
              </button>
            </td>
          </>
        )}
      </ListGrid>
      {search.error && (
        <p className="form-error" role="alert">
          {search.error.message}
        </p>
      )}
      {answer && answer.total === 0 && (
        <p className="empty">{debounced ? 'No item matches.' : `${name} has no items yet.`}</p>
      )}
      {pagerTotal !== undefined && (
        <Pager
          page={page}
          pageSize={PAGE_SIZE}
          total={pagerTotal}
          onPage={setPage}
          label={`Items of ${name}`}
          one={`item of ${name}`}
          many={`items of ${name}`}
        />
      )}
    </section>
  );
}
