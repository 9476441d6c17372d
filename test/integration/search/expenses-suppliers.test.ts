import { describe, expect, it } from 'vitest';
import { searchExpenses, searchSuppliers } from '../../../src-main/search';
import { applyReview } from '../../../src-main/review';
import { seedExpenses, useCaches } from './fixtures';

const caches = useCaches();

function seeded() {
  const cache = caches.open(caches.file());
  seedExpenses(cache);
  return cache;
}

describe('expense search', () => {
  const ids = (cache: ReturnType<typeof seeded>, filters: Parameters<typeof searchExpenses>[1]['filters']) =>
    searchExpenses(cache, { filters }).rows.map((row) => row.id);

  it('finds text in the description, booking text, merchant, supplier name and line descriptions', () => {
    const cache = seeded();
    expect(ids(cache, { text: 'PAPER' })).toEqual(['exp-1']);
    expect(ids(cache, { text: 'consulting' })).toEqual(['exp-2']); // booking text and supplier name
    expect(ids(cache, { text: 'einstein' })).toEqual(['exp-3']); // merchant
    expect(ids(cache, { text: 'büroshop' })).toEqual(['exp-1']); // supplier, non-ASCII folding
    expect(ids(cache, { text: 'BÜRO' })).toEqual(['exp-1']);
    expect(ids(cache, { text: 'hamburg' })).toEqual(['exp-2']); // a line's description
    expect(ids(cache, { text: 'buffet' })).toEqual(['exp-4']);
    expect(ids(cache, { text: '%' })).toEqual([]);
  });

  it('finds one or two characters in each place, from the documents or expense by expense', () => {
    const cache = seeded();
    applyReview(cache, { by: 'ids', kind: 'expense', ids: ['exp-2'] }, { action: 'flag', reason: 'Rate?' });
    // A limit of 0 collects no expenses from the documents: each expense is tested.
    for (const shortTextSet of [undefined, 0]) {
      const found = (filters: Parameters<typeof searchExpenses>[1]['filters']) => {
        const result = searchExpenses(cache, { filters }, { shortTextSet });
        return { ids: result.rows.map((row) => row.id), total: result.total };
      };
      const only = (...expected: string[]) => ({ ids: expected, total: expected.length });
      expect(found({ text: '24' })).toEqual(only('exp-1')); // the supplier's name alone
      expect(found({ text: 'ü' })).toEqual(only('exp-1')); // the same, non-ASCII folding
      expect(found({ text: 'EI' })).toEqual(only('exp-3')); // the merchant alone
      expect(found({ text: 'é' })).toEqual(only('exp-3'));
      expect(found({ text: 'q1' })).toEqual(only('exp-2')); // the booking text alone
      expect(found({ text: 'Bu' })).toEqual(only('exp-4', 'exp-2')); // lines' descriptions alone
      expect(found({ text: 'fr' })).toEqual(only()); // a deleted expense's merchant
      expect(found({ text: 'fr', includeDeleted: true })).toEqual(only('exp-5'));
      expect(found({ text: 'e', flagged: true })).toEqual(only('exp-2')); // with another filter
      expect(found({ text: 'zq' })).toEqual(only());
    }
  });

  it('leaves deleted expenses out unless asked, sorts newest first by default, and pages', () => {
    const cache = seeded();
    expect(ids(cache, {})).toEqual(['exp-4', 'exp-3', 'exp-2', 'exp-1']);
    expect(ids(cache, { includeDeleted: true })).toContain('exp-5');
    const page = searchExpenses(cache, {
      sorting: { field: 'amount', direction: 'ASC' },
      pagination: { page: 2, pageSize: 2 },
    });
    expect(page.rows.map((r) => r.id)).toEqual(['exp-3', 'exp-1']);
    expect(page.total).toBe(4);
  });

  it('knows which expenses have a live file, on the expense or on a line', () => {
    const cache = seeded();
    expect(ids(cache, { hasFile: true }).sort()).toEqual(['exp-1', 'exp-4']);
    expect(ids(cache, { hasFile: false }).sort()).toEqual(['exp-2', 'exp-3']);
    const rows = searchExpenses(cache, {}).rows;
    expect(Object.fromEntries(rows.map((r) => [r.id, r.fileCount]))).toEqual({
      'exp-1': 1,
      'exp-2': 0,
      'exp-3': 0,
      'exp-4': 1,
    });
    expect(rows.find((r) => r.id === 'exp-2')?.supplierName).toBe('Nordlicht Consulting');
  });

  it('filters on review state', () => {
    const cache = seeded();
    applyReview(
      cache,
      { by: 'ids', kind: 'expense', ids: ['exp-2'] },
      { action: 'flag', reason: 'Rate too high?' },
    );
    applyReview(cache, { by: 'ids', kind: 'expense', ids: ['exp-1', 'exp-3'] }, { action: 'setReviewed' });
    expect(ids(cache, { flagged: true })).toEqual(['exp-2']);
    expect(ids(cache, { reviewed: false })).toEqual(['exp-4', 'exp-2']);
    expect(searchExpenses(cache, { filters: { flagged: true } }).rows[0]?.review.flagReason).toBe(
      'Rate too high?',
    );
  });
});

describe('supplier search', () => {
  const names = (cache: ReturnType<typeof seeded>, text?: string, includeDeleted?: boolean) =>
    searchSuppliers(cache, { text, includeDeleted }).rows.map((row) => row.name);

  it('matches name, number, VAT id and IBAN, case-insensitively, in name order', () => {
    const cache = seeded();
    expect(names(cache)).toEqual(['Alpen Catering', 'Büroshop24 GmbH', 'Nordlicht Consulting']);
    expect(names(cache, 'NORD')).toEqual(['Nordlicht Consulting']);
    expect(names(cache, '7000')).toEqual(['Alpen Catering', 'Büroshop24 GmbH', 'Nordlicht Consulting']);
    expect(names(cache, '70003')).toEqual(['Alpen Catering']);
    expect(names(cache, 'at111')).toEqual(['Alpen Catering']);
    expect(names(cache, 'bÜRO')).toEqual(['Büroshop24 GmbH']);
  });

  it('ignores spaces in IBANs on both sides', () => {
    const cache = seeded();
    expect(names(cache, 'DE89 3704 0044')).toEqual(['Büroshop24 GmbH']);
    expect(names(cache, 'NWBK60161331')).toEqual(['Nordlicht Consulting']);
  });

  it('leaves deleted suppliers out unless asked, and pages', () => {
    const cache = seeded();
    expect(names(cache, 'old')).toEqual([]);
    expect(names(cache, 'old', true)).toEqual(['Old Supplier']);
    // Deleted on the server (the API still lists it, with status DELETED), as dimensions are.
    cache.sqlite
      .prepare(
        `INSERT INTO suppliers (id, name, number, status, raw) VALUES ('sup-9', 'Closed Bakery', '70009', 'DELETED', '{}')`,
      )
      .run();
    expect(names(cache, 'bakery')).toEqual([]);
    expect(names(cache, 'bakery', true)).toEqual(['Closed Bakery']);
    expect(searchSuppliers(cache, {}).total).toBe(3);
    expect(searchSuppliers(cache, { includeDeleted: true }).total).toBe(5);
    const page = searchSuppliers(cache, { pagination: { page: 2, pageSize: 2 } });
    expect(page.rows.map((r) => r.name)).toEqual(['Nordlicht Consulting']);
    expect(page.total).toBe(3);
  });
});
