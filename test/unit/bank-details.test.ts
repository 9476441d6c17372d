import { describe, expect, it } from 'vitest';
import {
  bankCountryWarning,
  checkBic,
  checkIban,
  checkVatId,
  formatIban,
  SupplierCreateInput,
  SupplierUpdateInput,
  vatIdWarning,
} from '../../src-shared/bank-details';
import { SupplierUpdate } from '../../src-shared/api';

// Published example IBANs (the banks' and the IBAN Registry's own), each valid.
const VALID_IBANS = [
  'DE89370400440532013000',
  'GB82WEST12345698765432',
  'FR1420041010050500013M02606',
  'NL91ABNA0417164300',
  'BE68539007547034',
  'AT611904300234573201',
  'CH9300762011623852957',
  'ES9121000418450200051332',
  'IT60X0542811101000000123456',
  'NO9386011117947',
  'MT84MALT011000012345MTLCAST001S',
  'GR1601101250000000012300695',
  'PL61109010140000071219812874',
  'SE4550000000058398257466',
];

describe('IBANs as typed', () => {
  it('accepts real IBANs of several countries and keeps them electronic', () => {
    for (const iban of VALID_IBANS) expect(checkIban(iban), iban).toEqual({ value: iban });
    // As printed on an invoice, or typed in lower case: the same IBAN, kept without spaces.
    expect(checkIban(' de89 3704 0044 0532 0130 00 ')).toEqual({ value: 'DE89370400440532013000' });
    expect(checkIban('gb82 west 1234 5698 7654 32')).toEqual({ value: 'GB82WEST12345698765432' });
    expect(checkIban('   ')).toEqual({ value: null });
  });

  it('says what is wrong with a mistyped one', () => {
    const mistyped = "The IBAN's check digits do not match: a character is probably mistyped.";
    // One digit wrong, two digits swapped, a letter wrong: the check digits catch them.
    expect(checkIban('DE89370400440532013001')).toEqual({ problem: mistyped });
    expect(checkIban('DE89370400440523013000')).toEqual({ problem: mistyped });
    expect(checkIban('GB82WEST12345698765423')).toEqual({ problem: mistyped });
    expect(checkIban('NL91ABNA0417164301')).toEqual({ problem: mistyped });
    expect(checkIban('FR1420041010050500013N02606')).toEqual({ problem: mistyped });
    // A digit left out or one too many.
    expect(checkIban('DE8937040044053201300')).toEqual({
      problem: 'A German IBAN has 22 characters; this one has 21.',
    });
    expect(checkIban('NL91ABNA04171643000')).toEqual({
      problem: 'A Dutch IBAN has 18 characters; this one has 19.',
    });
    expect(checkIban('AT6119043002345732011')).toEqual({
      problem: 'An Austrian IBAN has 20 characters; this one has 21.',
    });
    expect(checkIban('QQ89370400440532013000')).toEqual({
      problem: 'QQ is not a country with IBANs: check the first two letters.',
    });
    expect(checkIban('GP1420041010050500013M02606').problem).toBe(
      'Accounts in GP have IBANs starting with FR: check the first two letters.',
    );
    expect(checkIban('DE89-3704-0044-0532-0130-00').problem).toBe(
      'An IBAN has only letters and digits: take out the "-".',
    );
    expect(checkIban('89370400440532013000').problem).toBe(
      'An IBAN starts with the two letters of its country, like DE.',
    );
    expect(checkIban('DEX9370400440532013000').problem).toMatch(/^The 3rd and 4th characters .* not "X9"\.$/);
    // 01 is never a valid check number, even where mod 97 would come out right (98 is).
    expect(checkIban('DE98370400440532013032').problem).toBeUndefined();
    expect(checkIban('DE01370400440532013032').problem).toMatch(/check digits from 02 to 98/);
  });

  it('shows IBANs in groups of four, and anything else as it is', () => {
    expect(formatIban('DE89370400440532013000')).toBe('DE89 3704 0044 0532 0130 00');
    expect(formatIban('FR1420041010050500013M02606')).toBe('FR14 2004 1010 0505 0001 3M02 606');
    expect(formatIban('de89 37040044 0532013000')).toBe('de89 3704 0044 0532 0130 00');
    expect(formatIban('n/a')).toBe('n/a');
  });
});

describe('BICs as typed', () => {
  it('accepts 8 or 11 characters and keeps them upper case', () => {
    expect(checkBic('DEUTDEFF')).toEqual({ value: 'DEUTDEFF' });
    expect(checkBic('deut de ff 500')).toEqual({ value: 'DEUTDEFF500' });
    expect(checkBic('NWBKGB2L')).toEqual({ value: 'NWBKGB2L' });
    expect(checkBic('')).toEqual({ value: null });
  });

  it('says what is wrong', () => {
    expect(checkBic('DEUTDEF').problem).toBe('A BIC has 8 or 11 characters; this one has 7.');
    expect(checkBic('DEUTDEFF50').problem).toBe('A BIC has 8 or 11 characters; this one has 10.');
    expect(checkBic('DEU1DEFF').problem).toBe('A BIC starts with 4 letters for the bank, like DEUT.');
    expect(checkBic('DEUT0EFF').problem).toMatch(/^The 5th and 6th characters of a BIC .* not "0E"\.$/);
    expect(checkBic('DEUT-DEFF').problem).toBe('A BIC has only letters and digits: take out the "-".');
  });

  it("warns, without refusing, of a BIC of another country than the IBAN's", () => {
    expect(bankCountryWarning('DE89370400440532013000', 'COBADEFFXXX')).toBeUndefined();
    // A Monaco account with a French bank: possible, worth a look.
    expect(bankCountryWarning('MC5811222000010123456789030', 'BNPAFRPP')).toBe(
      'The BIC is of a bank in FR and the IBAN of an account in MC: check that they belong together (they can, across a border).',
    );
    // A bank of Guadeloupe keeps French IBANs: no mismatch.
    expect(bankCountryWarning('FR1420041010050500013M02606', 'BDAFGPGP')).toBeUndefined();
    // Nothing to compare until both are well formed.
    expect(bankCountryWarning('DE89370400440532013001', 'BNPAFRPP')).toBeUndefined();
    expect(bankCountryWarning('DE89370400440532013000', null)).toBeUndefined();
  });
});

describe('VAT ids as typed', () => {
  it("keeps one in its EU prefix's format compact in upper case, with no warning", () => {
    for (const [typed, kept] of [
      ['DE123456789', 'DE123456789'],
      ['de 123.456.789', 'DE123456789'],
      ['ATU12345678', 'ATU12345678'],
      ['FR40303265045', 'FR40303265045'],
      ['NL123456789B01', 'NL123456789B01'],
      ['EL123456789', 'EL123456789'],
      ['XI123456789', 'XI123456789'],
      ['IE6388047V', 'IE6388047V'],
      ['ESX1234567L', 'ESX1234567L'],
    ]) {
      expect(checkVatId(typed!)).toEqual({ value: kept });
      expect(vatIdWarning(typed)).toBeUndefined();
    }
  });

  it("saves one with an EU prefix but not that country's format as typed, with a warning", () => {
    // It may be a typo, or no VAT id at all: saved as typed, the user told what was expected.
    expect(checkVatId(' DE12345678 ')).toEqual({ value: 'DE12345678' });
    expect(vatIdWarning('DE12345678')).toBe(
      'This does not look like a German VAT id (DE followed by 9 digits); it is saved as typed — check it if it is meant to be one.',
    );
    expect(checkVatId('de 1234.5678')).toEqual({ value: 'de 1234.5678' });
    expect(vatIdWarning('de 1234.5678')).toMatch(/^This does not look like a German VAT id/);
    expect(vatIdWarning('ATU1234567')).toMatch(
      /^This does not look like an Austrian VAT id \(ATU followed by 8 digits\);/,
    );
    expect(vatIdWarning('NL123456789')).toMatch(
      /^This does not look like a Dutch VAT id \(NL followed by 9 digits, B/,
    );
    expect(vatIdWarning('ES123456789')).toMatch(/^This does not look like a Spanish VAT id/);
    expect(checkVatId('GR123456789')).toEqual({ value: 'GR123456789' });
    expect(vatIdWarning('GR123456789')).toBe(
      'Greek VAT ids start with EL, not GR: EL123456789. It is saved as typed — change it if it is meant to be a Greek VAT id.',
    );
  });

  it('saves a non-EU tax id that starts with EU letters as typed', () => {
    // A Mexican RFC starts with letters of the name: FR here, as a French VAT id would.
    expect(checkVatId(' FRAN800101AB1 ')).toEqual({ value: 'FRAN800101AB1' });
    expect(checkVatId('fran 800101 ab1')).toEqual({ value: 'fran 800101 ab1' });
    expect(vatIdWarning('FRAN800101AB1')).toMatch(
      /^This does not look like a French VAT id \(FR followed by/,
    );
    expect(SupplierCreateInput.parse({ name: 'Franco SA de CV', vatIdNo: 'FRAN800101AB1' })).toMatchObject({
      vatIdNo: 'FRAN800101AB1',
    });
  });

  it("keeps another country's tax id as typed, with no warning", () => {
    expect(checkVatId('CHE-123.456.789 MWST')).toEqual({ value: 'CHE-123.456.789 MWST' });
    expect(checkVatId('GB123456789')).toEqual({ value: 'GB123456789' });
    expect(checkVatId(' 12-3456789 ')).toEqual({ value: '12-3456789' });
    expect(checkVatId(' ')).toEqual({ value: null });
    for (const value of ['CHE-123.456.789 MWST', 'GB123456789', '12-3456789', 'GR12', '', null, undefined])
      expect(vatIdWarning(value)).toBeUndefined();
  });
});

describe('the supplier input schemas', () => {
  it('check and convert what the user typed, on the field at fault', () => {
    const created = SupplierCreateInput.parse({
      name: 'Kaffee Nord',
      iban: 'de89 3704 0044 0532 0130 00',
      bic: 'cobadeffxxx',
      vatIdNo: 'DE 123 456 789',
    });
    expect(created).toMatchObject({
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      vatIdNo: 'DE123456789',
    });
    const refused = SupplierUpdateInput.safeParse({ iban: 'DE89370400440532013001' });
    expect(refused.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['iban'], "The IBAN's check digits do not match: a character is probably mistyped."],
    ]);
    expect(SupplierUpdateInput.safeParse({ bic: 'DEUT' }).error?.issues[0]?.path).toEqual(['bic']);
    expect(SupplierUpdateInput.parse({ iban: '', bic: null })).toEqual({ iban: null, bic: null });
    // An update that leaves the bank details out is not about them.
    expect(SupplierUpdateInput.parse({ name: 'Renamed' })).toEqual({ name: 'Renamed' });
  });

  it("leave the API's own schema as the API has it: a record's IBAN is not the app's to refuse", () => {
    expect(SupplierUpdate.safeParse({ iban: 'DE00 not an IBAN' }).success).toBe(true);
  });
});
