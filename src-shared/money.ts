/**
 * Money on the wire is `{ amount: "-1234.56", currency: "EUR" }`: a decimal string in major
 * units. Inside the project it is an integer count of minor units next to the currency, using
 * the currency's own number of decimals. Never a binary float: parsing works on the digits.
 *
 * Minor units are JavaScript safe integers (|n| <= 2^53 - 1): about 90 trillion euros, far
 * beyond any expense, and they fit SQLite INTEGER columns without bigint plumbing. Anything
 * larger is rejected rather than rounded.
 */

/** ISO 4217 minor-unit exponents that differ from 2. Every other currency code uses 2. */
const DECIMALS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

export type Money = { amount: string; currency: string };

export type MinorMoney = { minor: number; currency: string };

export class MoneyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoneyError';
  }
}

const CURRENCY = /^[A-Z]{3}$/;
const AMOUNT = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * Number of decimals of a currency (JPY 0, EUR 2, KWD 3). A well-formed but unknown code
 * gets 2, the most common exponent, so a new currency still round-trips; a malformed code
 * is an error.
 */
export function currencyDecimals(currency: string): number {
  if (!CURRENCY.test(currency)) throw new MoneyError(`"${currency}" is not a currency code like EUR.`);
  return DECIMALS[currency] ?? 2;
}

/**
 * Parses a decimal string ("-12.30", "5", "0.125" for KWD) into minor units. Rejects empty
 * strings, spaces, thousands separators, exponents, a fraction finer than the currency's
 * minor unit, and values beyond the safe-integer range. Fewer decimals are fine ("12.3" EUR
 * is 1230), and so are more when they are zeros ("12.3000" EUR, as a server with four-place
 * decimals writes it, or "1500.00" JPY): the value is the same, exactly.
 */
export function parseAmount(amount: string, currency: string): number {
  const decimals = currencyDecimals(currency);
  const match = AMOUNT.exec(amount);
  if (!match) throw new MoneyError(`"${amount}" is not a decimal amount like -12.30.`);
  const [, sign = '', whole = ''] = match;
  let fraction = match[3] ?? '';
  if (fraction.length > decimals) {
    if (/[1-9]/.test(fraction.slice(decimals)))
      throw new MoneyError(`"${amount}" has more than ${decimals} decimals, the most ${currency} allows.`);
    fraction = fraction.slice(0, decimals);
  }
  const digits = (whole + fraction.padEnd(decimals, '0')).replace(/^0+(?=\d)/, '');
  const magnitude = Number(digits);
  if (!Number.isSafeInteger(magnitude)) throw new MoneyError(`"${amount}" is too large.`);
  return sign === '-' && magnitude !== 0 ? -magnitude : magnitude;
}

/** Formats minor units as the wire's decimal string: "-1234.56", "1500" for JPY. */
export function formatAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new MoneyError(`${minor} is not a whole number of minor units.`);
  const decimals = currencyDecimals(currency);
  const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
  const sign = minor < 0 ? '-' : '';
  if (decimals === 0) return sign + digits;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

export function parseMoney(value: Money): MinorMoney {
  return { minor: parseAmount(value.amount, value.currency), currency: value.currency };
}

export function toMoney(minor: number, currency: string): Money {
  return { amount: formatAmount(minor, currency), currency };
}

/** Adds amounts of one currency exactly; mixing currencies is a programming error. */
export function addMoney(a: MinorMoney, b: MinorMoney): MinorMoney {
  if (a.currency !== b.currency) throw new MoneyError(`Cannot add ${a.currency} and ${b.currency}.`);
  const minor = a.minor + b.minor;
  if (!Number.isSafeInteger(minor)) throw new MoneyError('The sum is too large.');
  return { minor, currency: a.currency };
}

export interface DisplayOptions {
  /** Character between thousands; a thin no-break space by default. */
  groupSeparator?: string;
  decimalSeparator?: string;
  /** Where the currency code goes; after the number by default ("1 234.56 EUR"). */
  currencyPosition?: 'before' | 'after' | 'none';
  /** Show "+" on positive amounts (money coming in). */
  signPositive?: boolean;
}

/** Human display of minor units: "-1 234.56 EUR". Pure string work, no locale tables. */
export function formatMoney(minor: number, currency: string, options: DisplayOptions = {}): string {
  const { groupSeparator = '\u202f', decimalSeparator = '.', currencyPosition = 'after' } = options;
  const plain = formatAmount(minor, currency);
  const negative = plain.startsWith('-');
  const [whole = '', fraction] = (negative ? plain.slice(1) : plain).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, groupSeparator);
  const sign = negative ? '-' : options.signPositive && minor > 0 ? '+' : '';
  const number = sign + grouped + (fraction === undefined ? '' : decimalSeparator + fraction);
  if (currencyPosition === 'before') return `${currency} ${number}`;
  if (currencyPosition === 'after') return `${number} ${currency}`;
  return number;
}
