import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inside } from '../../../src-main/files/folder';

// Where a download item's relative path lands: inside the destination, or nowhere.

describe('inside', () => {
  const root = path.resolve('/downloads/audit 2026');

  it('places a relative path of one or two segments under the folder', () => {
    expect(inside(root, 'receipt.pdf')).toBe(path.join(root, 'receipt.pdf'));
    expect(inside(root, '2026-03/receipt (2).pdf')).toBe(path.join(root, '2026-03', 'receipt (2).pdf'));
    expect(inside(root, '..receipt..pdf')).toBe(path.join(root, '..receipt..pdf'));
  });

  it.each([
    '',
    '.',
    '..',
    '../x.pdf',
    'a/../../x.pdf',
    'a/..',
    '/etc/passwd',
    'a//b.pdf',
    'a/./b.pdf',
    'a/',
    'a\\..\\..\\x.pdf',
    'C:\\x.pdf',
    'x\u0000.pdf',
  ])('refuses %j', (relative) => {
    expect(() => inside(root, relative)).toThrow('Refused to write outside the download folder');
  });
});
