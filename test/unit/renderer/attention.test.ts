import { describe, expect, it } from 'vitest';
import { attentionItems, attentionTotal } from '../../../src-renderer/features/attention/groups';
import { draftFromFilters, parseDraft } from '../../../src-renderer/features/transactions/FilterBar';

describe('needs attention', () => {
  it('opens each known group in its area with the core search as the filter', () => {
    const items = attentionItems([
      { group: 'unmatchedTransactions', count: 12, search: { matched: false, reviewed: false } },
      { group: 'expensesWithoutFile', count: 3, search: { hasFile: false, reviewed: false } },
      { group: 'flaggedTransactions', count: 0, search: { flagged: true } },
      { group: 'flaggedExpenses', count: 1, search: { flagged: true } },
    ]);
    expect(items.map((item) => item.opening)).toEqual([
      { area: 'transactions', filters: { matched: false, reviewed: false } },
      { area: 'expenses', filters: { hasFile: false, reviewed: false } },
      { area: 'transactions', filters: { flagged: true } },
      { area: 'expenses', filters: { flagged: true } },
    ]);
    expect(items[0]?.title).toBe('Unmatched transactions');
    expect(attentionTotal(items)).toBe(16);
  });

  it('counts a group it does not know, and opens no list for a search it cannot read', () => {
    const [unknown, invalid] = attentionItems([
      { group: 'somethingNew', count: 2, search: {} },
      { group: 'flaggedTransactions', count: 1, search: { flagged: 'yes' } },
    ]);
    expect(unknown).toMatchObject({ title: 'somethingNew', count: 2, opening: null });
    expect(invalid?.opening).toBeNull();
  });

  it('shows an opened search in the filter form, and the form gives the same search back', () => {
    for (const filters of [
      { matched: false, reviewed: false },
      { flagged: true },
      { freeText: 'hotel', bookingDateFrom: '2026-01-01', ids: ['a', 'b'], tag: 'VAT' },
      { amount: { currency: 'EUR', min: '10.00', max: '20', ignoreSign: true }, currencies: ['EUR'] },
    ]) {
      expect(parseDraft(draftFromFilters(filters))).toEqual({ ok: true, filters });
    }
  });
});
