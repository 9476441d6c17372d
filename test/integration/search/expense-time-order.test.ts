import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, dispatch } from '../../../src-main/handlers';
import { expenseIds } from '../../../src-main/search/expenses';
import type { ExpenseSearchResult, ExpenseSortField } from '../../../src-shared/search';
import { connectedCore } from '../../helpers/sync-fixture';
import { useTempDirs } from '../../helpers/temp-dir';

// The API's timestamps are ISO 8601 with an offset: whole seconds or any fraction of one, `Z`
// or `+01:00`. The cache keeps them as sent, so the expenses list must order them as instants:
// as text "10:00:00.5Z" comes before "10:00:00Z" ('.' < 'Z') and "10:30:00+01:00" (09:30 UTC)
// after both. Synced from the real sandbox, which serves these records with such times.
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

// Long before the sandbox's own data (2023 on), so that they are the first five in ascending
// order; listed here in the order of their instants.
const TIMES = [
  '2001-01-01T10:30:00+01:00', // 09:30:00 UTC
  '2001-01-01T09:59:59.999999Z',
  '2001-01-01T10:00:00Z',
  '2001-01-01T10:00:00.25-00:00',
  '2001-01-01T10:00:00.5Z',
];

describe('expenses ordered by a timestamp', () => {
  it('orders expense and update times as instants, whatever their fraction or offset', async () => {
    const setup = await connectedCore(tempDir(), { readLimit: 100_000 });
    cleanups.push(setup.close);
    const { sandbox, core, profile } = setup;
    const profileId = profile.id;
    // Five expenses served with these times, in an order that is neither theirs nor their text's.
    const chosen = sandbox.state.expenses.slice(0, TIMES.length).map((expense) => expense.id);
    const served = [3, 0, 4, 1, 2].map((at, i) => ({ id: chosen[i] as string, time: TIMES[at] as string }));
    for (const { id, time } of served)
      sandbox.control?.corruptRecord({
        resource: 'expenses',
        id,
        patch: { expenseTime: time, updateTime: time },
      });
    expect((await core.sync.sync(profileId)).outcome).toBe('succeeded');
    const cache = core.cacheOf(profileId);
    // Kept as sent: the list shows an expense's own date, offset included.
    for (const { id, time } of served)
      expect(
        cache.sqlite.prepare('SELECT expense_time, update_time FROM expenses WHERE id = ?').get(id),
      ).toEqual({ expense_time: time, update_time: time });

    const byInstant = [...served]
      .sort((a, b) => TIMES.indexOf(a.time) - TIMES.indexOf(b.time))
      .map((entry) => entry.id);
    const handlers = createHandlers(core);
    for (const field of ['expenseTime', 'updateTime'] as ExpenseSortField[]) {
      const page = async (direction: 'ASC' | 'DESC', pageNumber: number, pageSize: number) => {
        const answer = await dispatch(handlers, 'expenses.search', {
          profileId,
          search: {
            filters: { includeDeleted: true },
            sorting: { field, direction },
            pagination: { page: pageNumber, pageSize },
          },
        });
        if (!answer.ok) throw new Error(JSON.stringify(answer));
        const result = answer.value as ExpenseSearchResult;
        return { ids: result.rows.map((row) => row.id), total: result.total };
      };
      const first = await page('ASC', 1, TIMES.length);
      expect(first.ids, field).toEqual(byInstant);
      // Newest first, they are the last five, latest of them first.
      const last: string[] = [];
      for (let at = first.total - TIMES.length + 1; at <= first.total; at++)
        last.push(...(await page('DESC', at, 1)).ids);
      expect(last, field).toEqual([...byInstant].reverse());
      // The CSV export lists them in the same order.
      expect(
        expenseIds(cache, { includeDeleted: true }, { field, direction: 'ASC' }).slice(0, TIMES.length),
        field,
      ).toEqual(byInstant);
    }
  }, 60_000);
});
