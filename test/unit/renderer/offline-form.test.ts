import { describe, expect, it } from 'vitest';
import { parseOfflineForm } from '../../../src-renderer/features/files/offline-form';

// Files → "Kept offline": what the Days and Disk budget fields take, and what they say otherwise.
const GIB = 1024 ** 3;

describe('the offline files form', () => {
  it('takes plain decimal numbers', () => {
    expect(parseOfflineForm({ mode: 'recent', days: ' 30 ', budget: '0,5' }, 90)).toEqual({
      ok: true,
      scope: { mode: 'recent', days: 30, budgetBytes: GIB / 2 },
    });
    expect(parseOfflineForm({ mode: 'all', days: '90', budget: '2' }, 90)).toMatchObject({
      ok: true,
      scope: { budgetBytes: 2 * GIB },
    });
  });

  it('refuses hexadecimal and exponents, which Number() would read', () => {
    expect(parseOfflineForm({ mode: 'recent', days: '0x10', budget: '1e3' }, 90)).toEqual({
      ok: false,
      errors: {
        days: 'Enter the days as a whole number, such as 90.',
        budgetBytes: 'Enter the budget in GB, such as 2 or 0.5.',
      },
    });
    expect(parseOfflineForm({ mode: 'recent', days: '1e3', budget: '0x10' }, 90)).toMatchObject({
      ok: false,
      errors: { days: 'Enter the days as a whole number, such as 90.' },
    });
  });

  it('asks for the days in words when the field is empty or out of range', () => {
    expect(parseOfflineForm({ mode: 'recent', days: '', budget: '2' }, 90)).toEqual({
      ok: false,
      errors: { days: 'Enter how many days to keep, such as 90.' },
    });
    expect(parseOfflineForm({ mode: 'recent', days: '0', budget: '2' }, 90)).toEqual({
      ok: false,
      errors: { days: 'Enter between 1 and 36,600 days.' },
    });
    expect(parseOfflineForm({ mode: 'recent', days: '2', budget: '' }, 90)).toEqual({
      ok: false,
      errors: { budgetBytes: 'Enter the budget in GB, such as 2 or 0.5.' },
    });
  });

  it('keeps the saved days when they do not count', () => {
    expect(parseOfflineForm({ mode: 'none', days: '', budget: '2' }, 45)).toEqual({
      ok: true,
      scope: { mode: 'none', days: 45, budgetBytes: 2 * GIB },
    });
  });
});
