import { describe, expect, it } from 'vitest';
import { addDays, dateWindows } from '../../src-main/sync/dates';

describe('booking-date windows', () => {
  it('cover a range exactly, without gaps or overlaps, ends included', () => {
    const windows = dateWindows('2024-01-01', '2024-03-15', 30);
    expect(windows[0]).toEqual({ from: '2024-01-01', to: '2024-01-30' });
    expect(windows.at(-1)?.to).toBe('2024-03-15');
    for (let i = 1; i < windows.length; i += 1) {
      expect(windows[i]?.from).toBe(addDays(windows[i - 1]?.to ?? '', 1));
    }
  });

  it('cross leap days and year ends in UTC', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2025-03-30', -60)).toBe('2025-01-29');
    expect(dateWindows('2024-05-01', '2024-05-01', 90)).toEqual([{ from: '2024-05-01', to: '2024-05-01' }]);
    expect(dateWindows('2024-05-02', '2024-05-01', 90)).toEqual([]);
  });
});
