import type { BankTransaction } from '../../src-shared/api';
import { toMoney } from '../../src-shared/money';
import {
  CARD,
  MERCHANT_CURRENCIES,
  PAYOUT,
  REPAYMENT,
  TOP_UP,
  TYPES,
  WITHDRAWAL,
  allocateColumns,
  createDictionary,
  growColumns,
  type Columns,
  type Dictionary,
} from './columns';
import { formatUuid, hash32, uuidFor, writeUuid, writeUuidFor } from './random';
import { NS, type Wallet } from './organisation';
import { isoFromDay, isoFromSeconds } from './time';

/** The bank-transaction table: columns, dictionaries, derived ids, and the few mutations. */
export interface TransactionTable {
  readonly seed: number;
  readonly organisationId: string;
  readonly wallets: readonly Wallet[];
  readonly counterparties: Dictionary;
  readonly bankAccountNumbers: Dictionary;
  /** Current columns; replaced when rows are appended, so read it per operation. */
  columns(): Columns;
  size(): number;
  groupCount(): number;
  /** Bumps whenever rows are appended: precomputed orders and text indexes are rebuilt. */
  version(): number;
  /** Bumps on every change (matched flips, deletions, appends): cached search results key on it. */
  revision(): number;
  /** Whether row order is still (bookingDate, id) ascending, as generated. */
  inDateOrder(): boolean;
  idOf(row: number): string;
  groupIdOf(group: number): string;
  /** The 36 ASCII bytes of idOf(row) / groupIdOf(group), written into `out` at `offset`. */
  writeId(row: number, out: Uint8Array, offset: number): void;
  writeGroupId(group: number, out: Uint8Array, offset: number): void;
  /** Row of an id, or -1. */
  rowOf(id: string): number;
  toRecord(row: number): BankTransaction;
  append(row: NewRow): number;
  setMatched(row: number, matched: boolean, nowSec: number): void;
  remove(row: number, nowSec: number): void;
}

export interface NewRow {
  type: number;
  account: number;
  bookingDay: number;
  valueLag: number;
  amount: number;
  fxFee: number;
  paymentFee: number;
  original: number;
  merchantCurrency: number;
  counterparty: string;
  bankAccountNumber: string;
  /** Join an existing group, or -1 for a new one. */
  group: number;
  matched: boolean;
  createSec: number;
  idPrefix: number;
}

export function createTable(
  seed: number,
  organisationId: string,
  wallets: readonly Wallet[],
  capacity: number,
): TransactionTable & { setSize(n: number, groups: number): void } {
  let columns = allocateColumns(Math.max(16, capacity));
  let size = 0;
  let groups = 0;
  let version = 0;
  let revision = 0;
  let inDateOrder = true;
  const mask = hash32(seed, NS.transaction, 0xffff);
  const counterparties = createDictionary();
  const bankAccountNumbers = createDictionary();

  const idOf = (row: number): string =>
    formatUuid(
      columns.idPrefix[row] ?? 0,
      hash32(seed, NS.transaction, row, 2),
      hash32(seed, NS.transaction, row, 3),
      (row ^ mask) >>> 0,
    );

  const rowOf = (id: string): number => {
    const lower = id.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(lower)) return -1;
    const row = (parseInt(lower.slice(-8), 16) ^ mask) >>> 0;
    return row < size && idOf(row) === lower ? row : -1;
  };

  const toRecord = (row: number): BankTransaction => {
    const c = columns;
    const wallet = wallets[c.account[row] ?? 0] as Wallet;
    const type = c.type[row] ?? 0;
    const counterparty = counterparties.texts[c.counterparty[row] ?? 0] ?? '';
    const fees: BankTransaction['fees'] = [];
    if (c.fxFee[row]) fees.push({ feeType: 'FX_FEE', amount: toMoney(c.fxFee[row] ?? 0, wallet.currency) });
    if (c.paymentFee[row])
      fees.push({ feeType: 'PAYMENT_FEE', amount: toMoney(c.paymentFee[row] ?? 0, wallet.currency) });
    const bookingDay = c.bookingDay[row] ?? 0;
    return {
      id: idOf(row),
      bankAccountId: wallet.id,
      organisationId,
      transactionType: TYPES[type] ?? 'CARD',
      amount: toMoney(c.amount[row] ?? 0, wallet.currency),
      bookingDate: isoFromDay(bookingDay),
      valueDate: isoFromDay(bookingDay - (c.valueLag[row] ?? 0)),
      description: describe(type, counterparty, c.amount[row] ?? 0, row, seed),
      counterparty,
      fees,
      groupId: uuidFor(seed, NS.group, c.group[row] ?? 0),
      bankAccountNumber: bankAccountNumbers.texts[c.bankAccountNumber[row] ?? 0] ?? '',
      matched: c.matched[row] === 1,
      createTime: isoFromSeconds(c.createSec[row] ?? 0),
      updateTime: isoFromSeconds(c.updateSec[row] ?? 0),
    };
  };

  const append = (input: NewRow): number => {
    if (size >= columns.type.length) columns = growColumns(columns, size);
    const row = size;
    const c = columns;
    const previousDay = row > 0 ? (c.bookingDay[row - 1] ?? 0) : -Infinity;
    const afterPrevious =
      input.bookingDay > previousDay ||
      (input.bookingDay === previousDay && input.idPrefix > (c.idPrefix[row - 1] ?? 0));
    if (!afterPrevious) inDateOrder = false;
    c.type[row] = input.type;
    c.account[row] = input.account;
    c.bookingDay[row] = input.bookingDay;
    c.valueLag[row] = input.valueLag;
    c.amount[row] = input.amount;
    c.fxFee[row] = input.fxFee;
    c.paymentFee[row] = input.paymentFee;
    c.original[row] = input.original;
    c.merchantCurrency[row] = input.merchantCurrency;
    c.counterparty[row] = counterparties.code(input.counterparty);
    c.bankAccountNumber[row] = bankAccountNumbers.code(input.bankAccountNumber);
    c.group[row] = input.group >= 0 ? input.group : groups++;
    c.matched[row] = input.matched ? 1 : 0;
    c.idPrefix[row] = input.idPrefix;
    c.createSec[row] = input.createSec;
    c.updateSec[row] = input.createSec;
    size++;
    version++;
    revision++;
    return row;
  };

  return {
    seed,
    organisationId,
    wallets,
    counterparties,
    bankAccountNumbers,
    columns: () => columns,
    size: () => size,
    groupCount: () => groups,
    version: () => version,
    revision: () => revision,
    setMatched: (row, matched, nowSec) => {
      columns.matched[row] = matched ? 1 : 0;
      columns.updateSec[row] = nowSec;
      revision++;
    },
    remove: (row, nowSec) => {
      columns.deleted[row] = 1;
      columns.updateSec[row] = nowSec;
      revision++;
    },
    inDateOrder: () => inDateOrder,
    idOf,
    groupIdOf: (group) => uuidFor(seed, NS.group, group),
    writeId: (row, out, offset) =>
      writeUuid(
        out,
        offset,
        columns.idPrefix[row] ?? 0,
        hash32(seed, NS.transaction, row, 2),
        hash32(seed, NS.transaction, row, 3),
        (row ^ mask) >>> 0,
      ),
    writeGroupId: (group, out, offset) => writeUuidFor(out, offset, seed, NS.group, group),
    rowOf,
    toRecord,
    append,
    /** Generation writes columns directly, then declares how many rows and groups it made. */
    setSize: (n, g) => {
      size = n;
      groups = g;
      version++;
      revision++;
    },
  };
}

function describe(type: number, counterparty: string, amount: number, row: number, seed: number): string {
  switch (type) {
    case CARD:
      return amount > 0 ? `Refund ${counterparty}` : `Card payment ${counterparty}`;
    case PAYOUT:
      return counterparty.startsWith('Reimbursement')
        ? 'Expense reimbursement'
        : `Invoice RE-${String((hash32(seed, row, 77) % 900000) + 100000)}`;
    case TOP_UP:
      return 'Wallet top-up';
    case WITHDRAWAL:
      return 'Cash withdrawal';
    case REPAYMENT:
      return 'Credit card repayment';
    default:
      return '';
  }
}

/** Currency a card row's merchant charged in. */
export function merchantCurrencyOf(table: TransactionTable, row: number): string {
  return MERCHANT_CURRENCIES[table.columns().merchantCurrency[row] ?? 0] ?? 'EUR';
}
