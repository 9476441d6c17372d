import { describe, expect, it } from 'vitest';
import { humanize, lineTypeLabel } from '../../../src-renderer/lib/format';

describe('words for the API values the window shows', () => {
  it('says an enum value in words, its acronyms letter by letter', () => {
    expect(humanize('CARD')).toBe('Card');
    expect(humanize('TOP_UP')).toBe('Top up');
    expect(humanize('FX_FEE')).toBe('FX fee');
    expect(humanize('ATM_WITHDRAWAL')).toBe('ATM withdrawal');
    expect(humanize('SEPA_TRANSFER_VAT')).toBe('SEPA transfer VAT');
    // Only whole words: letters inside a word stay as they are.
    expect(humanize('FIXED_IDLE')).toBe('Fixed idle');
    expect(humanize(null)).toBe('—');
    expect(humanize('')).toBe('—');
  });

  it('names each of the five expense line types of API 1.44.0 briefly, and a new one in words', () => {
    expect(
      [
        'CARD_TRANSACTION_LINE',
        'FX_FEE',
        'INVOICE_LINE',
        'REIMBURSEMENT_INVOICE_LINE',
        'REIMBURSEMENT_INVOICE_LINE_SPLIT',
      ].map(lineTypeLabel),
    ).toEqual(['Card', 'FX fee', 'Invoice', 'Reimbursement', 'Reimbursement, split']);
    expect(lineTypeLabel('MILEAGE_LINE')).toBe('Mileage line');
    // A value that is a name on every object is not taken for a type.
    expect(lineTypeLabel('constructor')).toBe('Constructor');
    expect(lineTypeLabel(null)).toBe('—');
  });
});
