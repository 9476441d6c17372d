import { describe, expect, it } from 'vitest';
import { csvText } from '../../src-main/export/csv';

// Text fields of the CSV export and the download manifest: the formula guard, then quotes.

/** The rule spelled out: guard a leading formula character, quote what holds quotes, line breaks or the delimiter. */
function reference(value: string | null, delimiter: string): string {
  if (value === null || value === '') return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return safe.includes(delimiter) || /["\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

describe('csvText', () => {
  it('writes plain text as it is and guards or quotes the rest', () => {
    expect(csvText('REWE Markt GmbH', ',')).toBe('REWE Markt GmbH');
    expect(csvText(null, ',')).toBe('');
    expect(csvText('=SUM(A1)', ',')).toBe("'=SUM(A1)");
    expect(csvText('-12,50', ';')).toBe("'-12,50");
    expect(csvText('-12,50', ',')).toBe(`"'-12,50"`);
    expect(csvText('a;b', ';')).toBe('"a;b"');
    expect(csvText('a;b', ',')).toBe('a;b');
    expect(csvText('tab\there', '\t')).toBe('"tab\there"');
    expect(csvText('say "hi"', ',')).toBe('"say ""hi"""');
    expect(csvText('two\nlines', ',')).toBe('"two\nlines"');
    expect(csvText('\rx', ',')).toBe(`"'\rx"`);
  });

  it('answers as the rule does for every delimiter, whatever the text', () => {
    const alphabet = ['a', 'Z', ' ', ',', ';', '\t', '"', '\r', '\n', '=', '+', '-', '@', "'", 'ü', '€', '1'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 5000; i += 1) {
      const length = Math.floor(random() * 6);
      const value = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      for (const delimiter of [',', ';', '\t'])
        expect(csvText(value, delimiter)).toBe(reference(value, delimiter));
    }
  });
});
