import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DimensionCreate, DimensionItemUpdate, SupplierCreate, SupplierUpdate } from '../../src-shared/api';
import { OfflineScope } from '../../src-shared/files';
import {
  DimensionItemSearch,
  ExpenseFilters,
  SupplierSearch,
  TransactionFilters,
} from '../../src-shared/search';

// The shared schemas' messages are shown under the field at fault (the edit forms, the filter
// form, the offline settings): they say what to do in words, never the schema library's own.

function issues(schema: z.ZodType, input: unknown): Array<{ path: string; message: string }> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('messages of the shared schemas', () => {
  it('ask for a name and a number of a supplier, and keep them short', () => {
    expect(issues(SupplierCreate, { name: '  ' })).toEqual([{ path: 'name', message: 'Enter a name.' }]);
    // A form leaves an empty field out: missing is said as blank is.
    expect(issues(SupplierCreate, { code: 'S-1' })).toEqual([{ path: 'name', message: 'Enter a name.' }]);
    expect(issues(SupplierUpdate, { name: '', code: '' })).toEqual([
      { path: 'name', message: 'Enter a name.' },
      { path: 'code', message: 'Enter a supplier number.' },
    ]);
    expect(issues(SupplierUpdate, { name: 'x'.repeat(201) })).toEqual([
      { path: 'name', message: 'Use at most 200 characters.' },
    ]);
  });

  it('keep the VAT id, IBAN and BIC of a supplier short, in words', () => {
    expect(
      issues(SupplierUpdate, { vatIdNo: 'x'.repeat(51), iban: 'x'.repeat(51), bic: 'x'.repeat(21) }),
    ).toEqual([
      { path: 'vatIdNo', message: 'Use at most 50 characters.' },
      { path: 'iban', message: 'Use at most 50 characters.' },
      { path: 'bic', message: 'Use at most 20 characters.' },
    ]);
    expect(issues(SupplierCreate, { name: 'n', currency: 'eur' })).toEqual([
      { path: 'currency', message: 'Use an ISO 4217 code like EUR.' },
    ]);
  });

  it('ask for a name and a code of a dimension and an item', () => {
    expect(issues(DimensionCreate, { name: '', code: '' })).toEqual([
      { path: 'name', message: 'Enter a name.' },
      { path: 'code', message: 'Enter a code.' },
    ]);
    expect(issues(DimensionCreate, {})).toEqual([
      { path: 'name', message: 'Enter a name.' },
      { path: 'code', message: 'Enter a code.' },
    ]);
    expect(issues(DimensionItemUpdate, { code: 'c'.repeat(51) })).toEqual([
      { path: 'code', message: 'Use at most 50 characters.' },
    ]);
  });

  it('ask for the currency of an amount range on the currency, not on its bounds', () => {
    expect(issues(TransactionFilters, { amount: { currency: '', min: '10' } })).toEqual([
      { path: 'amount.currency', message: 'Choose a currency for the amount range.' },
    ]);
    expect(issues(TransactionFilters, { amount: { currency: 'EUR', min: '1e3' } })[0]).toEqual({
      path: 'amount.min',
      message: 'Use a decimal amount like 12.30 (a dot, no thousands separators).',
    });
  });

  it('say how long a search text may be, in every search', () => {
    const long = 'x'.repeat(201);
    const message = 'Search for at most 200 characters.';
    expect(issues(TransactionFilters, { freeText: long })).toEqual([{ path: 'freeText', message }]);
    expect(issues(ExpenseFilters, { text: long })).toEqual([{ path: 'text', message }]);
    expect(issues(SupplierSearch, { text: long })).toEqual([{ path: 'text', message }]);
    expect(issues(DimensionItemSearch, { text: long })).toEqual([{ path: 'text', message }]);
    expect(issues(TransactionFilters, { freeText: 'x'.repeat(200) })).toEqual([]);
  });

  it('say how many days and how large a budget may be kept offline', () => {
    const scope = { mode: 'recent', budgetBytes: 1024 };
    expect(issues(OfflineScope, { ...scope, days: 0 })).toEqual([
      { path: 'days', message: 'Enter between 1 and 36,600 days.' },
    ]);
    expect(issues(OfflineScope, { ...scope, days: 1.5 })).toEqual([
      { path: 'days', message: 'Enter the days as a whole number, such as 90.' },
    ]);
    expect(issues(OfflineScope, { mode: 'all', days: 90, budgetBytes: -1 })).toEqual([
      { path: 'budgetBytes', message: 'The budget cannot be below 0 GB.' },
    ]);
  });
});
