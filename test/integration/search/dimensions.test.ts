import { afterEach, describe, expect, it } from 'vitest';
import { COST_CENTER_DIMENSION_ID } from '../../../src-shared/api';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { connectedCore } from '../../helpers/sync-fixture';
import { sandboxToken } from '../../helpers/sandbox-token';
import { useTempDirs } from '../../helpers/temp-dir';

// The Dimensions screen's two queries over a cache synced from the sandbox, edits not yet
// sent included, through the handler table the renderer uses.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const byName = (a: { name: string }, b: { name: string }) =>
  a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0;

async function synced() {
  const setup = await connectedCore(tempDir());
  cleanups.push(setup.close);
  const handlers = createHandlers(setup.core);
  const profileId = setup.profile.id;
  expect(await dispatch(handlers, 'sync.start', { profileId })).toMatchObject({
    ok: true,
    value: { outcome: 'succeeded' },
  });
  const call = async <T>(command: Parameters<typeof dispatch>[1], input: object): Promise<T> => {
    const answer = await dispatch(handlers, command, { profileId, ...input } as never);
    if (!answer.ok) throw new Error(`${command}: ${answer.error.message}`);
    return answer.value as T;
  };
  return { ...setup, profileId, handlers, call };
}

interface Row {
  id: string;
  name: string;
  code: string;
  status: string;
  system?: boolean;
  itemCount?: number;
  dimensionId?: string;
  editPending: boolean;
}

describe('dimensions in the offline copy', () => {
  it('lists every live dimension in name order with its live items counted, the system ones marked', async () => {
    const { sandbox, call } = await synced();
    const state = sandbox.state;
    const live = (status: string) => status !== 'DELETED';
    const { dimensions } = await call<{ dimensions: Row[] }>('dimensions.list', { search: {} });
    const expected = state.dimensions.filter((d) => live(d.status)).sort(byName);
    expect(dimensions.map((d) => d.id)).toEqual(expected.map((d) => d.id));
    for (const row of dimensions) {
      expect(row.itemCount).toBe(
        state.items.filter((item) => item.dimensionId === row.id && live(item.status)).length,
      );
      expect(row.system).toBe(
        ['00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'].includes(row.id),
      );
      expect(row.editPending).toBe(false);
    }
    expect(dimensions.find((d) => d.id === COST_CENTER_DIMENSION_ID)?.name).toBe('Cost center');

    // Deleted ones (and their items) only when asked.
    const deleted = state.dimensions.find((d) => d.status === 'DELETED');
    if (!deleted) throw new Error('the demo data has no deleted dimension');
    const all = await call<{ dimensions: Row[] }>('dimensions.list', { search: { includeDeleted: true } });
    expect(all.dimensions.map((d) => d.id)).toEqual([...state.dimensions].sort(byName).map((d) => d.id));
    const items = await call<{ rows: Row[]; total: number }>('dimensionItems.search', {
      search: { dimensionId: deleted.id },
    });
    expect(items.total).toBe(0);
    const deletedItems = await call<{ rows: Row[]; total: number }>('dimensionItems.search', {
      search: { dimensionId: deleted.id, includeDeleted: true },
    });
    expect(deletedItems.total).toBe(state.items.filter((item) => item.dimensionId === deleted.id).length);
    expect(deletedItems.total).toBeGreaterThan(0);
  });

  it("finds a dimension's items by name or code, case-insensitively, a page at a time", async () => {
    const { sandbox, call } = await synced();
    const items = sandbox.state.items
      .filter((item) => item.dimensionId === COST_CENTER_DIMENSION_ID && item.status !== 'DELETED')
      .sort(byName);
    const search = (extra: object) =>
      call<{ rows: Row[]; total: number }>('dimensionItems.search', {
        search: { dimensionId: COST_CENTER_DIMENSION_ID, ...extra },
      });
    const first = await search({ pagination: { page: 1, pageSize: 5 } });
    const second = await search({ pagination: { page: 2, pageSize: 5 } });
    expect(first.total).toBe(items.length);
    expect([...first.rows, ...second.rows].map((row) => row.id)).toEqual(items.slice(0, 10).map((i) => i.id));

    const target = items[3]!;
    expect((await search({ text: target.code.toLowerCase() })).rows.map((row) => row.id)).toEqual([
      target.id,
    ]);
    const word = target.name.split(' ').at(-1)!.toUpperCase();
    expect((await search({ text: word })).rows.map((row) => row.id)).toContain(target.id);
    expect((await search({ text: 'no such item' })).total).toBe(0);
    // One item by its id (to name it), a deleted one only when asked.
    expect((await search({ id: target.id })).rows).toEqual([
      expect.objectContaining({ id: target.id, name: target.name, code: target.code }),
    ]);
    const gone = sandbox.state.items.find((item) => item.status === 'DELETED')!;
    expect((await call<{ total: number }>('dimensionItems.search', { search: { id: gone.id } })).total).toBe(
      0,
    );
    expect(
      (
        await call<{ rows: Row[] }>('dimensionItems.search', {
          search: { id: gone.id, includeDeleted: true },
        })
      ).rows,
    ).toEqual([expect.objectContaining({ id: gone.id })]);
    // Text that means something to LIKE is taken literally.
    expect((await search({ text: '%' })).total).toBe(0);
  });

  it('shows offline creates and changes at once, marked as waiting to be sent', async () => {
    const { call } = await synced();
    const created = await call<{ recordId: string }>('dimensions.create', {
      input: { name: 'Client engagements', code: 'ENG' },
    });
    let { dimensions } = await call<{ dimensions: Row[] }>('dimensions.list', { search: {} });
    expect(dimensions.find((d) => d.id === created.recordId)).toMatchObject({
      name: 'Client engagements',
      code: 'ENG',
      status: 'ACTIVE',
      itemCount: 0,
      editPending: true,
      system: false,
    });

    const item = await call<{ recordId: string }>('dimensionItems.create', {
      dimensionId: created.recordId,
      input: { name: 'Audit Müller 2026', code: 'ENG-01' },
    });
    ({ dimensions } = await call<{ dimensions: Row[] }>('dimensions.list', { search: {} }));
    expect(dimensions.find((d) => d.id === created.recordId)?.itemCount).toBe(1);
    const found = await call<{ rows: Row[] }>('dimensionItems.search', {
      search: { dimensionId: created.recordId, text: 'MÜLLER' },
    });
    expect(found.rows).toEqual([
      expect.objectContaining({ id: item.recordId, code: 'ENG-01', editPending: true }),
    ]);

    // Deleting an item offline takes it out of the count and the list at once.
    await call('dimensionItems.update', {
      dimensionId: created.recordId,
      id: item.recordId,
      input: { status: 'DELETED' },
    });
    ({ dimensions } = await call<{ dimensions: Row[] }>('dimensions.list', { search: {} }));
    expect(dimensions.find((d) => d.id === created.recordId)?.itemCount).toBe(0);
    const withDeleted = await call<{ rows: Row[] }>('dimensionItems.search', {
      search: { dimensionId: created.recordId, includeDeleted: true },
    });
    expect(withDeleted.rows.map((row) => row.status)).toEqual(['DELETED']);
  });

  it('offers no item of a deleted dimension, deleted on the server or here', async () => {
    const { sandbox, call } = await synced();
    const token = await sandboxToken(sandbox, 'read write');
    const [project, region] = sandbox.state.dimensions.filter((d) => d.code === 'PROJ' || d.code === 'REG');
    const liveItems = async (dimensionId?: string) =>
      (
        await call<{ rows: Row[] }>('dimensionItems.search', {
          search: dimensionId === undefined ? { pagination: { page: 1, pageSize: 100 } } : { dimensionId },
        })
      ).rows;
    expect(await liveItems(project!.id)).not.toEqual([]);
    expect(await liveItems(region!.id)).not.toEqual([]);

    // A colleague deletes Project on the server: after the sync its items are deleted too.
    const deleted = await fetch(`${sandbox.url}/v1/dimensions/${project!.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'DELETED' }),
    });
    expect(deleted.status).toBe(200);
    expect(await call('sync.start', {})).toMatchObject({ outcome: 'succeeded' });
    expect(await liveItems(project!.id)).toEqual([]);

    // Region deleted here, not yet sent: its items are still active in the cache, and are not
    // offered, counted or found in the search over all items either.
    await call('dimensions.update', { id: region!.id, input: { status: 'DELETED' } });
    expect(await liveItems(region!.id)).toEqual([]);
    const everywhere = await liveItems();
    expect(everywhere.filter((row) => [project!.id, region!.id].includes(row.dimensionId ?? ''))).toEqual([]);
    const { dimensions } = await call<{ dimensions: Row[] }>('dimensions.list', {
      search: { includeDeleted: true },
    });
    expect(dimensions.find((d) => d.id === region!.id)).toMatchObject({ status: 'DELETED', itemCount: 0 });
    // Asked for, they are there, as they stand in the cache.
    const all = await call<{ rows: Row[] }>('dimensionItems.search', {
      search: { dimensionId: region!.id, includeDeleted: true },
    });
    expect(all.rows.length).toBe(sandbox.state.items.filter((i) => i.dimensionId === region!.id).length);
  });

  it('finds the expenses booked on an item and names where each line is booked', async () => {
    const { sandbox, call } = await synced();
    const { expenses, items, dimensions, reference } = sandbox.state;
    const bookedOn = (dimensionId: string, itemId: string) =>
      expenses
        .filter((e) =>
          e.lines.some((l) =>
            l.dimensions.some((d) => d.dimensionId === dimensionId && d.dimensionItemId === itemId),
          ),
        )
        .map((e) => e.id)
        .sort();
    // The items of every dimension at once (the Expenses filter's choices), dimension by dimension.
    const every = await call<{ rows: Row[]; total: number }>('dimensionItems.search', {
      search: { pagination: { page: 1, pageSize: 500 } },
    });
    expect(every.total).toBe(items.filter((i) => i.status !== 'DELETED').length);
    // Several items of each kind are used: check every item the data books anything on.
    let checked = 0;
    for (const item of every.rows) {
      const dimensionId = (item as Row & { dimensionId: string }).dimensionId;
      const expected = bookedOn(dimensionId, item.id);
      const found = await call<{ rows: Array<{ id: string }>; total: number }>('expenses.search', {
        search: {
          filters: { bookedOn: { dimensionId, itemId: item.id } },
          pagination: { page: 1, pageSize: 500 },
        },
      });
      expect(found.rows.map((row) => row.id).sort(), item.name).toEqual(expected);
      expect(found.total).toBe(expected.length);
      if (expected.length > 0) checked++;
    }
    expect(checked).toBeGreaterThan(10);
    // An item of another dimension, or one nobody books on, finds nothing.
    const [first] = every.rows as Array<Row & { dimensionId: string }>;
    const other = dimensions.find((d) => d.id !== first!.dimensionId)!;
    expect(
      (
        await call<{ total: number }>('expenses.search', {
          search: { filters: { bookedOn: { dimensionId: other.id, itemId: first!.id } } },
        })
      ).total,
    ).toBe(0);

    // Expense accounts: listed by number, and each one's expenses found.
    const { accounts } = await call<{ accounts: Array<{ id: string; number: string; name: string }> }>(
      'expenseAccounts.list',
      {},
    );
    expect(accounts.map((a) => a.number)).toEqual(reference.expenseAccounts.map((a) => a.number).sort());
    let accountsChecked = 0;
    for (const account of accounts) {
      const expected = expenses
        .filter((e) => e.lines.some((l) => l.expenseAccountId === account.id))
        .map((e) => e.id)
        .sort();
      const found = await call<{ rows: Array<{ id: string }> }>('expenses.search', {
        search: { filters: { expenseAccountId: account.id }, pagination: { page: 1, pageSize: 500 } },
      });
      expect(found.rows.map((row) => row.id).sort(), account.name).toEqual(expected);
      if (expected.length > 0) accountsChecked++;
    }
    expect(accountsChecked).toBeGreaterThan(3);

    // The detail names the account, the tax rate and each dimension's item of every line.
    const expense = expenses.find(
      (e) => e.lines.length > 1 && e.lines.every((l) => l.dimensions.length > 0),
    )!;
    const detail = await call<{ lines: Array<Record<string, unknown>> }>('expenses.get', { id: expense.id });
    expect(detail.lines).toHaveLength(expense.lines.length);
    expense.lines.forEach((line, index) => {
      const shown = detail.lines[index]!;
      const account = reference.expenseAccounts.find((a) => a.id === line.expenseAccountId);
      const rate = reference.taxRates.find((t) => t.id === line.taxRateId);
      expect(shown['expenseAccount']).toEqual(
        line.expenseAccountId
          ? { id: line.expenseAccountId, number: account?.number ?? null, name: account?.name ?? null }
          : null,
      );
      expect(shown['taxRate']).toEqual(
        line.taxRateId ? { id: line.taxRateId, name: rate?.name ?? null, rate: rate?.rate ?? null } : null,
      );
      expect(shown['dimensions']).toEqual(
        line.dimensions.map((d) => {
          const item = items.find((i) => i.id === d.dimensionItemId);
          return {
            dimensionId: d.dimensionId,
            dimensionName: dimensions.find((x) => x.id === d.dimensionId)?.name ?? null,
            itemId: d.dimensionItemId,
            itemCode: item?.code ?? null,
            itemName: item?.name ?? null,
          };
        }),
      );
    });
  });

  it('refuses a query the renderer could not have meant', async () => {
    const { handlers, profileId } = await synced();
    const answer = await dispatch(handlers, 'dimensionItems.search', {
      profileId,
      search: { dimensionId: '', text: 'x' },
    });
    expect(answer).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });
});
