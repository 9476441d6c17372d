import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, NamingTemplate, templateTokens } from '../../../src-shared/files';
import { createNameAllocator } from '../../../src-main/files/naming';
import {
  cacheExtension,
  layoutFolders,
  renderFileName,
  splitName,
  type FileFacts,
} from '../../../src-main/files/template';

const facts: FileFacts = {
  fileId: '0f1e2d3c-0000-4000-8000-000000000001',
  originalName: 'receipt-rewe-2026-03-01.png',
  mimeType: 'image/png',
  expenseId: 'e0000000-0000-4000-8000-000000000002',
  transactionId: 't0000000-0000-4000-8000-000000000003',
  bookingDate: '2026-03-01',
  counterparty: 'REWE Markt GmbH',
  amountMinor: -123456,
  currency: 'EUR',
  account: 'Main EUR wallet',
  supplier: 'REWE',
};

describe('naming template', () => {
  it('fills every token; amounts come exact from minor units in the currency’s decimals', () => {
    expect(renderFileName(DEFAULT_TEMPLATE, facts)).toBe(
      '2026-03-01_REWE Markt GmbH_-1234.56_EUR_receipt-rewe-2026-03-01.png',
    );
    expect(renderFileName('{expenseId} {transactionId} {fileId} {supplier} {account}', facts)).toBe(
      `${facts.expenseId} ${facts.transactionId} ${facts.fileId} REWE Main EUR wallet.png`,
    );
    expect(renderFileName('{amount} {currency}', { ...facts, amountMinor: -1500, currency: 'JPY' })).toBe(
      '-1500 JPY.png',
    );
    expect(renderFileName('{amount}', { ...facts, amountMinor: 1234, currency: 'KWD' })).toBe('1.234.png');
  });

  it('leaves no doubled or dangling separators where a token is empty', () => {
    const bare = { ...facts, transactionId: null, counterparty: null, amountMinor: null, currency: null };
    expect(renderFileName(DEFAULT_TEMPLATE, bare)).toBe('2026-03-01_receipt-rewe-2026-03-01.png');
    expect(renderFileName('{counterparty} - {originalName}', bare)).toBe('receipt-rewe-2026-03-01.png');
    expect(renderFileName('{counterparty}', bare)).toBe(`${facts.fileId}.png`);
  });

  it('keeps the extension from the name, else from the type, and never lets a value make folders', () => {
    expect(
      renderFileName('{originalName}', { ...facts, originalName: 'Invoice.FINAL.PDF', mimeType: null }),
    ).toBe('Invoice.FINAL.pdf');
    expect(
      renderFileName('{originalName}', { ...facts, originalName: 'scan', mimeType: 'application/pdf' }),
    ).toBe('scan.pdf');
    expect(renderFileName('{counterparty}', { ...facts, counterparty: '../../etc/passwd' })).toBe(
      '_.._etc_passwd.png',
    );
    expect(renderFileName('{counterparty}', { ...facts, counterparty: 'CON' })).toBe('_CON.png');
    expect(renderFileName('{counterparty}', { ...facts, counterparty: 'tab\there\u0000' })).toBe(
      'tabhere.png',
    );
    // C1 controls too (next line, CSI, APC).
    expect(renderFileName('{counterparty}', { ...facts, counterparty: 'a\u0085b\u009bc\u009f' })).toBe(
      'abc.png',
    );
    const long = renderFileName('{counterparty}', { ...facts, counterparty: 'ü'.repeat(400) });
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(255);
    // Four-byte characters count as four bytes, and are never cut in half.
    const emoji = renderFileName('{counterparty}', { ...facts, counterparty: '😀'.repeat(60) });
    expect(emoji).toBe(`${'😀'.repeat(50)}.png`);
    expect(renderFileName('{counterparty}', { ...facts, counterparty: 'ü'.repeat(100) })).toBe(
      `${'ü'.repeat(100)}.png`,
    );
  });

  it('renders each template as its own, one after another', () => {
    const a = renderFileName('{counterparty}', facts);
    const b = renderFileName('x-{fileId}', facts);
    expect(renderFileName('{counterparty}', facts)).toBe(a);
    expect(b).toBe(`x-${facts.fileId}.png`);
    expect(renderFileName('{currency}{currency}', facts)).toBe(`${facts.currency}${facts.currency}.png`);
  });

  it('validates templates: known tokens only, at least one, braces paired', () => {
    expect(NamingTemplate.safeParse('{bookingDate}-{originalName}').success).toBe(true);
    expect(NamingTemplate.safeParse('{date}').error?.issues[0]?.message).toContain('Unknown token {date}');
    expect(NamingTemplate.safeParse('plain').success).toBe(false);
    expect(NamingTemplate.safeParse('{originalName').success).toBe(false);
    expect(templateTokens('{a}x{b}')).toEqual(['a', 'b']);
  });

  it('refuses typed text no file name can hold, rather than changing it in every name', () => {
    const message = (template: string) => NamingTemplate.safeParse(template).error?.issues[0]?.message;
    expect(message('{bookingDate}/{originalName}')).toBe(
      'A file name cannot contain /; the folders come from the layout.',
    );
    expect(message('{bookingDate}\\{originalName}')).toBe(
      'A file name cannot contain \\; the folders come from the layout.',
    );
    for (const char of [':', '*', '?', '"', '<', '>', '|'])
      expect(message(`{bookingDate}${char}{originalName}`)).toBe(
        `A file name cannot contain ${char} (Windows does not allow it); use - or _ instead.`,
      );
    expect(message('{bookingDate}\t{originalName}')).toMatch(/control characters/);
    // Values are not the template's: they are made safe file by file.
    expect(NamingTemplate.safeParse('{counterparty} – {amount} {currency} (#{expenseId})').success).toBe(
      true,
    );
    // A token in the wrong case is named.
    expect(message('{BookingDate}_{originalName}')).toBe(
      'Unknown token {BookingDate}; did you mean {bookingDate}?',
    );
  });

  it('splits names and picks cache extensions', () => {
    expect(splitName('a.b.tar', null)).toEqual({ base: 'a.b', extension: '.tar' });
    expect(splitName('.hidden', 'image/png')).toEqual({ base: '.hidden', extension: '.png' });
    expect(cacheExtension('x.exe', 'application/pdf')).toBe('.pdf');
    expect(cacheExtension('x', 'application/octet-stream')).toBe('.bin');
  });
});

describe('folder layouts', () => {
  it('flat, by month, by account, by supplier, with fallbacks and safe folder names', () => {
    expect(layoutFolders('flat', facts)).toEqual([]);
    expect(layoutFolders('month', facts)).toEqual(['2026-03']);
    expect(layoutFolders('month', { ...facts, bookingDate: null })).toEqual(['undated']);
    expect(layoutFolders('account', facts)).toEqual(['Main EUR wallet']);
    expect(layoutFolders('account', { ...facts, account: null })).toEqual(['no account']);
    expect(layoutFolders('supplier', facts)).toEqual(['REWE']);
    expect(layoutFolders('supplier', { ...facts, supplier: null })).toEqual(['REWE Markt GmbH']);
    expect(layoutFolders('supplier', { ...facts, supplier: null, counterparty: null })).toEqual([
      'no supplier',
    ]);
    expect(layoutFolders('supplier', { ...facts, supplier: '../..' })).toEqual(['_']);
    expect(layoutFolders('supplier', { ...facts, supplier: 'A/B: C.' })).toEqual(['A_B_ C']);
  });

  it('numbers collisions within a folder, ignoring case', () => {
    const allocate = createNameAllocator();
    const name = renderFileName('{counterparty}', facts);
    expect(allocate(layoutFolders('month', facts), name)).toBe('2026-03/REWE Markt GmbH.png');
    expect(allocate(layoutFolders('month', facts), name.toLowerCase())).toBe(
      '2026-03/rewe markt gmbh (2).png',
    );
    expect(allocate(layoutFolders('flat', facts), name)).toBe('REWE Markt GmbH.png');
  });
});
