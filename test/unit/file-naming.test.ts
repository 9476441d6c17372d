import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createNameAllocator,
  MAX_NAME_BYTES,
  nameKey,
  safeFileName,
  safeSegment,
  segmentByRules,
} from '../../src-main/files/naming';

const hostile = [
  '../../etc/passwd',
  '..\\..\\Windows\\system32\\config',
  '/absolute/path.pdf',
  'C:\\Users\\x.pdf',
  'CON',
  'nul.txt',
  'com1.pdf',
  'LPT9',
  'trailing dots...',
  'trailing space ',
  '.hidden',
  '..',
  '.',
  '',
  '   ',
  'tab\tand\nnewline\u0000nul.pdf',
  'quote"star*pipe|lt<gt>colon:question?.png',
  `${'€'.repeat(300)}.pdf`,
  `${'😀'.repeat(120)}.pdf`,
  'e\u0301cole.pdf',
];

describe('safe file names', () => {
  it('never lets a hostile name leave its folder or break on any OS', () => {
    const root = path.resolve('/dest');
    for (const raw of hostile) {
      const name = safeFileName(raw);
      expect(name.length, raw).toBeGreaterThan(0);
      // eslint-disable-next-line no-control-regex
      expect(name, raw).not.toMatch(/[\\/:*?"<>|\u0000-\u001f]/);
      expect(name, raw).not.toMatch(/[. ]$/);
      expect(name.startsWith('.'), raw).toBe(false);
      expect(name.split('.')[0], raw).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/i);
      expect(new TextEncoder().encode(name).length, raw).toBeLessThanOrEqual(MAX_NAME_BYTES + 11);
      expect(path.resolve(root, name).startsWith(root + path.sep), raw).toBe(true);
    }
  });

  it('keeps ordinary names readable', () => {
    expect(safeFileName('Receipt 2026-03-01.PDF')).toBe('Receipt 2026-03-01.pdf');
    expect(safeFileName('Rechnung Müller & Söhne.png')).toBe('Rechnung Müller & Söhne.png');
    expect(safeFileName('CON.pdf')).toBe('_CON.pdf');
    expect(safeFileName('../../etc/passwd')).toBe('_.._etc_passwd');
    expect(safeSegment('   ', 'folder')).toBe('folder');
    expect(safeFileName('e\u0301cole.pdf')).toBe('\u00e9cole.pdf');
  });

  it('gives plain names the answer the whole rules give', () => {
    // Every character that shortcuts or rules treat specially, and ordinary ones.
    const alphabet = [
      ..."aZ09 .-_()&,;=@[]{}~!#$%+'`^",
      '  ',
      '..',
      '"',
      '*',
      '/',
      '\\',
      ':',
      '<',
      '>',
      '?',
      '|',
      '\t',
      '\n',
      '\u0000',
      '\u007f',
      'é',
      'e\u0301',
      '€',
      '😀',
      '\u00a0',
    ];
    const reserved = ['con', 'NUL', 'com1', 'lpt9', 'Aux', 'prn'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const cases: string[] = [
      ...hostile,
      'a',
      'a.',
      '.a',
      'a b',
      'a  b',
      ' a',
      'x'.repeat(200),
      'x'.repeat(201),
    ];
    for (let i = 0; i < 20_000; i += 1) {
      let text = random(4) === 0 ? reserved[random(reserved.length)]! : '';
      const length = random(3) === 0 ? random(260) : random(12);
      for (let k = 0; k < length; k += 1) text += alphabet[random(alphabet.length)];
      cases.push(text);
    }
    let plain = 0;
    for (const text of cases) {
      for (const max of [MAX_NAME_BYTES, 5])
        expect(safeSegment(text, 'f', max), JSON.stringify(text)).toBe(segmentByRules(text, 'f', max));
      if (safeSegment(text) === text) plain += 1;
    }
    // The shortcut was taken often enough for the comparison to mean something.
    expect(plain).toBeGreaterThan(1000);
  });

  it('cuts long names on character boundaries', () => {
    const name = safeSegment('😀'.repeat(120));
    expect(name).toBe('😀'.repeat(MAX_NAME_BYTES / 4));
  });
});

describe('name allocator', () => {
  it('keys names by what macOS and Windows compare', () => {
    expect(nameKey('Receipt.PDF')).toBe('receipt.pdf');
    expect(nameKey('E\u0301cole/Re\u0301sume\u0301.pdf')).toBe('\u00e9cole/r\u00e9sum\u00e9.pdf');
    expect(nameKey('\u00c9cole')).toBe(nameKey('E\u0301cole'));
  });

  it('numbers collisions, ignoring case and Unicode form, per folder', () => {
    const allocate = createNameAllocator(['2026-03/receipt.pdf']);
    expect(allocate(['2026-03'], 'receipt.pdf')).toBe('2026-03/receipt (2).pdf');
    expect(allocate(['2026-03'], 'RECEIPT.pdf')).toBe('2026-03/RECEIPT (3).pdf');
    expect(allocate(['2026-04'], 'receipt.pdf')).toBe('2026-04/receipt.pdf');
    expect(allocate([], 'e\u0301cole.pdf')).toBe('e\u0301cole.pdf');
    expect(allocate([], '\u00e9cole.pdf')).toBe('\u00e9cole (2).pdf');
  });

  it('makes folder names safe too', () => {
    const allocate = createNameAllocator();
    expect(allocate(['..', 'AUX', 'Acme: Ltd.'], 'a.pdf')).toBe('folder/_AUX/Acme_ Ltd/a.pdf');
  });
});
