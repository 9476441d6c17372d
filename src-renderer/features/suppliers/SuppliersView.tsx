import { useEffect, useId, useRef, useState } from 'react';
import { formatIban } from '../../../src-shared/bank-details';
import { useReadOnly, writeControl } from '../../lib/read-only';
import type { ProfileSummary } from '../../../src-shared/profiles';
import type { SupplierRow } from '../../../src-shared/search';
import { ListGrid } from '../../components/ListGrid';
import { SearchField } from '../../components/fields';
import { Pager, useKeptTotal } from '../../components/Pager';
import { useListKeys, useNewPageAtTop } from '../../components/useListKeys';
import { useTypedSearch } from '../../components/useTypedSearch';
import { humanize } from '../../lib/format';
import { CHANGED_BY_EDIT } from '../../lib/live';
import { useCommand, useCommandMutation } from '../../lib/query';
import { EditStateBadge, recordStates } from '../edits/EditStateBadge';
import { EditsList } from '../edits/EditsList';
import { formOf, valuesFrom } from '../edits/forms';
import { savedEditStatus, type SavedEdit } from '../edits/saved';
import { EditorPane, RecordEditor } from '../edits/RecordEditor';
import { focusList, revealActiveRow } from '../../lib/list-focus';
import './suppliers.css';

const PAGE_SIZE = 50;

/**
 * A supplier number, a VAT id or an IBAN (in groups of four), on one line (suppliers.css): cut
 * short with an ellipsis when the column is too narrow for it, its whole value in the tooltip.
 * The text stays whole in the page, so a screen reader reads all of it.
 */
function OneLineCell({ value, kind }: { value: string | null; kind: 'supplier-number' | 'vat' | 'iban' }) {
  if (value === null) return <td className="mono">—</td>;
  return (
    <td className={`mono ${kind}`} title={value}>
      <span className="clip">{value}</span>
    </td>
  );
}

function supplierForm(supplier: SupplierRow | null) {
  const form = formOf('supplier', supplier === null);
  return {
    fields: form.fields,
    schema: form.schema,
    warnings: form.warnings,
    initial: valuesFrom(form.fields, supplier ? { ...supplier, code: supplier.number } : {}, form.defaults),
    mode: supplier ? ('update' as const) : ('create' as const),
  };
}

/** Suppliers: search, create and change them offline, and the edits waiting to be sent. */
export function SuppliersView({ profile }: { profile: ProfileSummary }) {
  const id = useId();
  const profileId = profile.id;
  const { text, setText, searched: debounced, page, setPage } = useTypedSearch();
  const [editing, setEditing] = useState<{ supplier: SupplierRow | null } | null>(null);
  // The edit just saved here, said above the list until the push settles it.
  const [saved, setSaved] = useState<SavedEdit | null>(null);
  // Deleted suppliers (status DELETED, or gone from the server) only when asked, as dimensions.
  const [showDeleted, setShowDeleted] = useState(false);
  const grid = useRef<HTMLTableElement>(null);

  const search = useCommand(
    'suppliers.search',
    {
      profileId,
      search: {
        ...(debounced ? { text: debounced } : {}),
        ...(showDeleted ? { includeDeleted: true } : {}),
        pagination: { page, pageSize: PAGE_SIZE },
      },
    },
    { keepPrevious: true },
  );
  const pagerTotal = useKeptTotal(search.data?.total);
  const pending = useCommand('edits.list', { profileId });
  const waiting = pending.data?.items ?? [];
  const rowState = recordStates(waiting);
  const savedMessage = saved && savedEditStatus(saved, waiting, profile.name);
  // The rows on screen stay while another search or page is read (see useCommand).
  const rows = search.data?.rows ?? [];
  const answer = search.isPlaceholderData ? undefined : search.data;
  const create = useCommandMutation('suppliers.create', CHANGED_BY_EDIT);
  const update = useCommandMutation('suppliers.update', CHANGED_BY_EDIT);
  // A read-only copy: New and Edit stay, off, with the reason; Enter on a row opens no editor.
  const readOnly = useReadOnly();
  const startEdit = (supplier: SupplierRow | null) => {
    if (readOnly) return;
    create.reset();
    update.reset();
    setSaved(null);
    setEditing({ supplier });
  };
  const keys = useListKeys(rows.length, (index) => startEdit(rows[index] ?? null));
  useNewPageAtTop(grid, page, answer !== undefined, keys.setActive);
  // The editor beside the list narrows it, so names take more lines and the supplier being
  // edited may move out of view: it is brought back once the list is laid out again. (The
  // editor stays at the top of what is seen, styles.css.)
  const editedId = editing?.supplier?.id;
  useEffect(() => {
    const list = grid.current;
    if (!editedId || !list) return;
    const frame = requestAnimationFrame(() => revealActiveRow(list));
    return () => cancelAnimationFrame(frame);
  }, [editedId]);
  const close = () => {
    setEditing(null);
    if (grid.current) focusList(grid.current);
  };
  const finish = (done: SavedEdit) => {
    setEditing(null);
    setSaved(done);
    if (grid.current) focusList(grid.current);
  };

  return (
    <section className="area" data-area="suppliers">
      <div className="area-head">
        <h1 id="area-title">Suppliers</h1>
        <p className="muted">{profile.name}</p>
      </div>
      <div className="filter-row">
        <SearchField
          id={`${id}-text`}
          label="Search"
          placeholder="Name, number, VAT id or IBAN  (/)"
          searches="Searches the name, supplier number, VAT id and IBAN. Press / to come here."
          value={text}
          onChange={setText}
          list={grid}
        />
        <label className="check" htmlFor={`${id}-deleted`}>
          <input
            id={`${id}-deleted`}
            type="checkbox"
            checked={showDeleted}
            onChange={(event) => {
              setShowDeleted(event.target.checked);
              setPage(1);
            }}
          />{' '}
          Show deleted
        </label>
        <button type="button" className="primary" {...writeControl(readOnly)} onClick={() => startEdit(null)}>
          New supplier
        </button>
      </div>
      {savedMessage && (
        <p
          role="status"
          className={savedMessage.problem ? 'field-error' : 'muted'}
          data-testid="supplier-saved"
        >
          {savedMessage.text}
        </p>
      )}
      <div className={editing ? 'split open' : 'split'}>
        <div className="list-column">
          <ListGrid
            gridRef={grid}
            label="Suppliers"
            idPrefix="sup-row"
            rows={rows}
            rowKey={(row) => row.id}
            keys={keys}
            testId="suppliers-grid"
            head={
              <>
                <th scope="col">Name</th>
                <th scope="col">Number</th>
                <th scope="col" className="without-narrow-pane">
                  Status
                </th>
                <th scope="col">VAT id</th>
                <th scope="col">IBAN</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </>
            }
          >
            {(row) => (
              <>
                <td className="supplier-name">
                  {row.name ?? '—'}
                  <EditStateBadge status={rowState.get(row.id)} organisation={profile.name} />
                </td>
                <OneLineCell value={row.number} kind="supplier-number" />
                <td className="without-narrow-pane">
                  {row.deletedAt !== null ? 'Gone from the server' : humanize(row.status)}
                </td>
                <OneLineCell value={row.vatIdNo} kind="vat" />
                <OneLineCell value={row.iban === null ? null : formatIban(row.iban)} kind="iban" />
                <td>
                  <button
                    type="button"
                    tabIndex={-1}
                    {...writeControl(readOnly)}
                    onClick={() => startEdit(row)}
                    aria-label={`Edit ${row.name ?? row.id}`}
                  >
                    Edit
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
          {answer && answer.total === 0 && <p className="empty">No supplier matches.</p>}
          {pagerTotal !== undefined && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={pagerTotal}
              onPage={setPage}
              label="Suppliers"
              one="supplier"
              many="suppliers"
            />
          )}
        </div>
        {editing && (
          <EditorPane label="Supplier editor" onClose={close}>
            <RecordEditor
              key={editing.supplier?.id ?? 'new'}
              {...supplierForm(editing.supplier)}
              title={
                editing.supplier ? `Edit ${editing.supplier.name ?? editing.supplier.id}` : 'New supplier'
              }
              busy={create.isPending || update.isPending}
              serverError={create.error ?? update.error}
              onCancel={close}
              onSubmit={(payload) => {
                const supplier = editing.supplier;
                if (supplier)
                  update.mutate(
                    { profileId, id: supplier.id, input: payload },
                    {
                      onSuccess: ({ operationId }) =>
                        finish({
                          verb: 'Saved',
                          name: String(payload['name'] ?? supplier.name ?? supplier.id),
                          operationId,
                        }),
                    },
                  );
                else
                  create.mutate(
                    { profileId, input: payload as { name: string } },
                    {
                      onSuccess: ({ operationId }) =>
                        finish({ verb: 'Created', name: String(payload['name']), operationId }),
                    },
                  );
              }}
            />
          </EditorPane>
        )}
      </div>
      <EditsList profileId={profileId} organisation={profile.name} />
    </section>
  );
}
