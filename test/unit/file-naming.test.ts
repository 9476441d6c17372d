import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNameAllocator, MAX_NAME_BYTES, safeFileName, safeSegment } from '../../src-main/files/naming';

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

  it('cuts long names on character boundaries', () => {
    const name = safeSegment('😀'.repeat(120));
    expect(name).toBe('😀'.repeat(MAX_NAME_BYTES / 4));
  });
});

describe('name allocator', () => {
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
