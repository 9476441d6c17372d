/**
 * Bank transactions are stored column by column in typed arrays, one slot per row, so a
 * million rows take ~50 MB and a full scan is a few milliseconds. Strings (counterparty,
 * bank account number) are codes into small dictionaries; ids are derived from the row.
 * Columns grow by doubling when the control surface appends rows.
 */

export const TYPES = ['CARD', 'PAYOUT', 'TOP_UP', 'WITHDRAWAL', 'REPAYMENT'] as const;
export const CARD = 0;
export const PAYOUT = 1;
export const TOP_UP = 2;
export const WITHDRAWAL = 3;
export const REPAYMENT = 4;

/** Currencies a merchant can charge in; index 0..n into this list. */
export const MERCHANT_CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'JPY', 'SEK'] as const;

export interface Columns {
  type: Uint8Array;
  account: Uint8Array;
  bookingDay: Int32Array;
  /** bookingDay minus valueDay (value date is on or before the booking date). */
  valueLag: Uint8Array;
  /** Total in the wallet's minor units, fees included; negative leaves the wallet. */
  amount: Int32Array;
  fxFee: Int32Array;
  paymentFee: Int32Array;
  /** Card rows: what the merchant charged, in the merchant currency's minor units. */
  original: Int32Array;
  merchantCurrency: Uint8Array;
  counterparty: Uint16Array;
  bankAccountNumber: Uint16Array;
  group: Int32Array;
  matched: Uint8Array;
  deleted: Uint8Array;
  /** First 32 bits of the id; sorted within a booking day so row order is (bookingDate, id). */
  idPrefix: Uint32Array;
  createSec: Uint32Array;
  updateSec: Uint32Array;
}

type ColumnName = keyof Columns;
const CONSTRUCTORS: { [K in ColumnName]: new (length: number) => Columns[K] } = {
  type: Uint8Array,
  account: Uint8Array,
  bookingDay: Int32Array,
  valueLag: Uint8Array,
  amount: Int32Array,
  fxFee: Int32Array,
  paymentFee: Int32Array,
  original: Int32Array,
  merchantCurrency: Uint8Array,
  counterparty: Uint16Array,
  bankAccountNumber: Uint16Array,
  group: Int32Array,
  matched: Uint8Array,
  deleted: Uint8Array,
  idPrefix: Uint32Array,
  createSec: Uint32Array,
  updateSec: Uint32Array,
};

export function allocateColumns(capacity: number): Columns {
  const columns = {} as Record<ColumnName, unknown>;
  for (const name of Object.keys(CONSTRUCTORS) as ColumnName[])
    columns[name] = new CONSTRUCTORS[name](capacity);
  return columns as Columns;
}

/** Copies into columns of twice the capacity; the caller replaces its reference. */
export function growColumns(columns: Columns, used: number): Columns {
  const bigger = allocateColumns(Math.max(16, used * 2));
  for (const name of Object.keys(CONSTRUCTORS) as ColumnName[]) {
    (bigger[name] as Uint8Array).set((columns[name] as Uint8Array).subarray(0, used));
  }
  return bigger;
}

/** A string dictionary: code <-> text, with the lower-case form kept for free-text search. */
export interface Dictionary {
  texts: string[];
  lower: string[];
  code(text: string): number;
}

export function createDictionary(initial: readonly string[] = []): Dictionary {
  const texts: string[] = [];
  const lower: string[] = [];
  const codes = new Map<string, number>();
  const code = (text: string): number => {
    let value = codes.get(text);
    if (value === undefined) {
      if (texts.length >= 65_535) throw new Error('dictionary full');
      value = texts.length;
      codes.set(text, value);
      texts.push(text);
      lower.push(text.toLowerCase());
    }
    return value;
  };
  for (const text of initial) code(text);
  return { texts, lower, code };
}
