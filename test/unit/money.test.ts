import { describe, expect, test } from 'vitest';
import {
  MoneyError,
  addMoney,
  currencyDecimals,
  formatAmount,
  formatMoney,
  parseAmount,
  parseMoney,
  toMoney,
} from '../../src-shared/money';

describe('money', () => {
  test('currency decimals follow ISO 4217; unknown well-formed codes use 2', () => {
    expect(currencyDecimals('EUR')).toBe(2);
    expect(currencyDecimals('JPY')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
    expect(currencyDecimals('CLF')).toBe(4);
    expect(currencyDecimals('XYZ')).toBe(2);
    expect(() => currencyDecimals('eur')).toThrow(MoneyError);
  });

  test('parses decimal strings into integer minor units', () => {
    expect(parseAmount('-1234.56', 'EUR')).toBe(-123456);
    expect(parseAmount('12.3', 'EUR')).toBe(1230);
    expect(parseAmount('5', 'EUR')).toBe(500);
    expect(parseAmount('1500', 'JPY')).toBe(1500);
    expect(parseAmount('0.125', 'KWD')).toBe(125);
    expect(parseAmount('+7.00', 'USD')).toBe(700);
    expect(parseAmount('-0.00', 'EUR')).toBe(0);
    expect(Object.is(parseAmount('-0', 'EUR'), -0)).toBe(false);
  });

  test('never goes through binary floats: 0.1 + 0.2 style values are exact', () => {
    expect(parseAmount('0.29', 'EUR')).toBe(29);
    expect(parseAmount('1.005', 'KWD')).toBe(1005);
    expect(parseAmount('90071992547409.91', 'EUR')).toBe(9007199254740991);
  });

  test('rejects malformed strings with a clear message', () => {
    for (const bad of ['', ' 1.00', '1,00', '1.', '.5', '1e3', '--1', '1.2.3', 'NaN', '1 000.00']) {
      expect(() => parseAmount(bad, 'EUR'), bad).toThrow(/not a decimal amount/);
    }
  });

  test('rejects more decimals than the currency has', () => {
    expect(() => parseAmount('1.001', 'EUR')).toThrow(/more than 2 decimals/);
    expect(() => parseAmount('1.5', 'JPY')).toThrow(/more than 0 decimals/);
    expect(() => parseAmount('1.0001', 'KWD')).toThrow(/more than 3 decimals/);
    expect(() => parseAmount('0.000000001', 'EUR')).toThrow(/more than 2 decimals/);
  });

  test('reads zeros beyond the minor unit as the same exact amount', () => {
    expect(parseAmount('-12.5000', 'EUR')).toBe(-1250);
    expect(parseAmount('12.300', 'EUR')).toBe(1230);
    expect(parseAmount('1500.00', 'JPY')).toBe(1500);
    expect(parseAmount('-0.1250', 'KWD')).toBe(-125);
    expect(parseAmount('90071992547409.9100', 'EUR')).toBe(9007199254740991);
    expect(parseAmount('-0.000', 'EUR')).toBe(0);
  });

  test('rejects values beyond the safe-integer range', () => {
    expect(() => parseAmount('90071992547409.92', 'EUR')).toThrow(/too large/);
  });

  test("formats minor units with the currency's decimals", () => {
    expect(formatAmount(-123456, 'EUR')).toBe('-1234.56');
    expect(formatAmount(5, 'EUR')).toBe('0.05');
    expect(formatAmount(-5, 'EUR')).toBe('-0.05');
    expect(formatAmount(1500, 'JPY')).toBe('1500');
    expect(formatAmount(125, 'KWD')).toBe('0.125');
    expect(formatAmount(0, 'USD')).toBe('0.00');
    expect(() => formatAmount(1.5, 'EUR')).toThrow(MoneyError);
  });

  test('parse and format round-trip', () => {
    for (const [amount, currency] of [
      ['-0.01', 'EUR'],
      ['999999.99', 'GBP'],
      ['7', 'JPY'],
      ['-12.345', 'BHD'],
    ] as const) {
      expect(formatAmount(parseAmount(amount, currency), currency)).toBe(amount);
      expect(toMoney(parseMoney({ amount, currency }).minor, currency)).toEqual({ amount, currency });
    }
  });

  test('adds amounts of one currency and refuses to mix currencies', () => {
    expect(addMoney({ minor: 10, currency: 'EUR' }, { minor: -25, currency: 'EUR' })).toEqual({
      minor: -15,
      currency: 'EUR',
    });
    expect(() => addMoney({ minor: 1, currency: 'EUR' }, { minor: 1, currency: 'USD' })).toThrow(
      /Cannot add/,
    );
  });

  test('display formatting groups thousands and places the code', () => {
    expect(formatMoney(-123456789, 'EUR')).toBe('-1\u202f234\u202f567.89 EUR');
    expect(
      formatMoney(123456, 'EUR', { groupSeparator: '.', decimalSeparator: ',', currencyPosition: 'before' }),
    ).toBe('EUR 1.234,56');
    expect(formatMoney(1500000, 'JPY', { groupSeparator: ',', currencyPosition: 'none' })).toBe('1,500,000');
    expect(formatMoney(100, 'USD', { signPositive: true })).toBe('+1.00 USD');
  });
});
