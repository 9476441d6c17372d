import { describe, expect, it } from 'vitest';
import {
  attentionItems,
  attentionTotal,
  reviewExportMessage,
  reviewFileProgressText,
  reviewImportMessage,
  reviewInterruptedMessage,
  reviewUndoMessage,
} from '../../../src-renderer/features/attention/groups';
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

describe('review file messages', () => {
  it('say how far an export or import is, in the words of its step', () => {
    expect(reviewFileProgressText({ step: 'export', done: 12_000, total: 54_000 })).toBe(
      'Exporting 12,000 of 54,000 marks…',
    );
    expect(reviewFileProgressText({ step: 'check', done: 1000, total: 30_000 })).toBe(
      'Checking 1,000 of 30,000 marks in the file…',
    );
    expect(reviewFileProgressText({ step: 'merge', done: 1, total: 1 })).toBe('Importing 1 of 1 mark…');
  });

  it('count marks and records in the singular and the plural', () => {
    expect(reviewExportMessage({ marks: 1, file: '/tmp/review.json' })).toBe(
      '1 review mark written to /tmp/review.json.',
    );
    expect(reviewExportMessage({ marks: 1200, file: '/tmp/review.json' })).toBe(
      '1,200 review marks written to /tmp/review.json.',
    );
    expect(reviewImportMessage({ marks: 1, updated: 1, keptLocal: 0, notCached: 0 })).toBe(
      '1 review mark read; 1 record took a newer mark from the file.',
    );
    expect(reviewImportMessage({ marks: 3, updated: 1, keptLocal: 0, notCached: 1 })).toBe(
      '3 review marks read; 1 record took a newer mark from the file. 1 is for a record not in the offline copy yet; it applies when a sync brings it.',
    );
    expect(reviewImportMessage({ marks: 9, updated: 2, keptLocal: 0, notCached: 4 })).toBe(
      '9 review marks read; 2 records took a newer mark from the file. 4 are for records not in the offline copy yet; they apply when a sync brings them.',
    );
  });

  it('say where the user’s own newer mark stayed, and when an import changed nothing', () => {
    expect(reviewImportMessage({ marks: 300, updated: 290, keptLocal: 10, notCached: 0 })).toBe(
      '300 review marks read; 290 records took a newer mark from the file. 10 records kept your own newer mark where the file says otherwise.',
    );
    expect(reviewImportMessage({ marks: 300, updated: 0, keptLocal: 1, notCached: 0 })).toBe(
      '300 review marks read; 0 records took a newer mark from the file. 1 record kept your own newer mark where the file says otherwise.',
    );
    expect(reviewImportMessage({ marks: 300, updated: 0, keptLocal: 0, notCached: 0 })).toBe(
      '300 review marks read; nothing changed: this copy had every mark of the file already, or a newer one.',
    );
  });

  it('say how far a stopped import came, in the command line’s words, and what it merged did', () => {
    expect(
      reviewInterruptedMessage({ interrupted: { merged: 3750, total: 40000 }, updated: 3750, keptLocal: 0 }),
    ).toBe(
      'The import was interrupted after 3,750 of 40,000 marks; the marks merged so far stay. Import the same file again to finish. So far 3,750 records took a newer mark from the file.',
    );
    expect(
      reviewInterruptedMessage({ interrupted: { merged: 250, total: 300 }, updated: 1, keptLocal: 2 }),
    ).toBe(
      'The import was interrupted after 250 of 300 marks; the marks merged so far stay. Import the same file again to finish. So far 1 record took a newer mark from the file; 2 records kept your own newer mark where the file says otherwise.',
    );
  });

  it('say what undoing an import put back, and what it left as changed since', () => {
    expect(reviewUndoMessage({ restored: 295, changedSince: 0 })).toBe(
      'Import undone: 295 records have their review marks as before it.',
    );
    expect(reviewUndoMessage({ restored: 1, changedSince: 2 })).toBe(
      'Import undone: 1 record has its review marks as before it. 2 records changed since the import were left as they are.',
    );
  });
});
