import { useEffect, useId, useRef, useState } from 'react';
import type { ProfileSummary } from '../../../src-shared/profiles';
import type { SupplierRow } from '../../../src-shared/search';
import { Pager } from '../../components/Pager';
import { useListKeys } from '../../components/useListKeys';
import { humanize } from '../../lib/format';
import { CHANGED_BY_EDIT } from '../../lib/live';
import { useCommand, useCommandMutation } from '../../lib/query';
import { EditsList } from './EditsList';
import { SupplierEditor } from './SupplierEditor';

const PAGE_SIZE = 50;

/** Suppliers: search, create and change them offline, and the edits waiting to be sent. */
export function SuppliersView({ profile }: { profile: ProfileSummary }) {
  const id = useId();
  const profileId = profile.id;
  const [text, setText] = useState('');
  const [debounced, setDebounced] = useState('');
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<{ supplier: SupplierRow | null } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const grid = useRef<HTMLTableElement>(null);
  useEffect(() => {
    const timer = setTimeout(() => {
      setDebounced(text.trim());
      setPage(1);
    }, 200);
    return () => clearTimeout(timer);
  }, [text]);

  const search = useCommand('suppliers.search', {
    profileId,
    search: { ...(debounced ? { text: debounced } : {}), pagination: { page, pageSize: PAGE_SIZE } },
  });
  const pending = useCommand('edits.list', { profileId });
  const pendingIds = new Set((pending.data?.items ?? []).map((item) => item.recordId));
  const rows = search.data?.rows ?? [];
  const create = useCommandMutation('suppliers.create', CHANGED_BY_EDIT);
  const update = useCommandMutation('suppliers.update', CHANGED_BY_EDIT);
  const startEdit = (supplier: SupplierRow | null) => {
    create.reset();
    update.reset();
    setSaved(null);
    setEditing({ supplier });
  };
  const keys = useListKeys(rows.length, (index) => startEdit(rows[index] ?? null));
  const finish = (message: string) => {
    setEditing(null);
    setSaved(message);
    grid.current?.focus();
  };

  return (
    <section className="area" data-area="suppliers">
      <div className="area-head">
        <h1 id="area-title">Suppliers</h1>
        <p className="muted">{profile.name}</p>
      </div>
      <div className="filter-row">
        <div className="field compact grow">
          <label htmlFor={`${id}-text`}>Search</label>
          <input
            id={`${id}-text`}
            type="search"
            data-search-input
            placeholder="Name, number, VAT id or IBAN  (/)"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
        </div>
        <button type="button" className="primary" onClick={() => startEdit(null)}>
          New supplier
        </button>
      </div>
      {saved && (
        <p role="status" className="muted" data-testid="supplier-saved">
          {saved}
        </p>
      )}
      <div className={editing ? 'split open' : 'split'}>
        <div className="list-column">
          <table
            ref={grid}
            className="list-grid"
            role="grid"
            aria-label="Suppliers"
            tabIndex={0}
            aria-activedescendant={rows.length > 0 ? `sup-row-${keys.active}` : undefined}
            onKeyDown={keys.onKeyDown}
            data-testid="suppliers-grid"
          >
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Number</th>
                <th scope="col">Status</th>
                <th scope="col">VAT id</th>
                <th scope="col">IBAN</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr
                  key={row.id}
                  id={`sup-row-${index}`}
                  aria-selected={index === keys.active}
                  data-active={index === keys.active || undefined}
                  onClick={() => keys.setActive(index)}
                >
                  <td>
                    {row.name ?? '—'}
                    {pendingIds.has(row.id) && <span className="badge badge-pending"> Not sent yet</span>}
                  </td>
                  <td className="mono">{row.number ?? '—'}</td>
                  <td>{humanize(row.status)}</td>
                  <td className="mono">{row.vatIdNo ?? '—'}</td>
                  <td className="mono">{row.iban ?? '—'}</td>
                  <td>
                    <button
                      type="button"
                      tabIndex={-1}
                      onClick={() => startEdit(row)}
                      aria-label={`Edit ${row.name ?? row.id}`}
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {search.data && search.data.total === 0 && <p className="empty">No supplier matches.</p>}
          {search.data && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={search.data.total}
              onPage={setPage}
              label="Suppliers"
            />
          )}
        </div>
        {editing && (
          <aside
            className="pane"
            aria-label="Supplier editor"
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.preventDefault();
                setEditing(null);
                grid.current?.focus();
              }
            }}
          >
            <SupplierEditor
              key={editing.supplier?.id ?? 'new'}
              supplier={editing.supplier}
              title={
                editing.supplier ? `Edit ${editing.supplier.name ?? editing.supplier.id}` : 'New supplier'
              }
              busy={create.isPending || update.isPending}
              serverError={create.error ?? update.error}
              onCancel={() => {
                setEditing(null);
                grid.current?.focus();
              }}
              onSubmit={(payload) => {
                const supplier = editing.supplier;
                if (supplier)
                  update.mutate(
                    { profileId, id: supplier.id, input: payload },
                    {
                      onSuccess: () =>
                        finish(
                          `Saved ${String(payload['name'] ?? supplier.name)}; it will be sent with the next push.`,
                        ),
                    },
                  );
                else
                  create.mutate(
                    { profileId, input: payload as { name: string } },
                    {
                      onSuccess: () =>
                        finish(`Created ${String(payload['name'])}; it will be sent with the next push.`),
                    },
                  );
              }}
            />
          </aside>
        )}
      </div>
      <EditsList profileId={profileId} />
    </section>
  );
}
