import { ATMS, MERCHANTS } from './names';
import { CARD, MERCHANT_CURRENCIES, PAYOUT, REPAYMENT, TOP_UP, WITHDRAWAL } from './columns';
import { convertMinor, fxFeeMinor } from './fx';
import { createRandom, type Random } from './random';
import type { Supplier, User } from '../../src-shared/api';
import type { TransactionTable } from './transactions';
import type { Wallet } from './organisation';

/**
 * Fills the table with `count` rows spread over [firstDay, lastDay], in (bookingDate, id)
 * order. One pass, no per-row objects: a million rows take well under a second.
 */

const HOUSE_BANK = ['Transfer from Commerzbank operating account', 'DE44500105175407324931'] as const;
const REPAYMENT_PAYER = ['Card statement repayment', 'DE44500105175407324931'] as const;
export const PAYEE_SUPPLIERS = 80;

interface Payee {
  name: string;
  iban: string;
}

export function fillTransactions(
  table: TransactionTable & { setSize(n: number, groups: number): void },
  options: {
    seed: number;
    count: number;
    firstDay: number;
    lastDay: number;
    suppliers: readonly Supplier[];
    users: readonly User[];
  },
): void {
  const { seed, count, firstDay, lastDay } = options;
  const random = createRandom(seed, 101);
  const days = lastDay - firstDay + 1;
  const perDay = new Int32Array(days);
  for (let i = 0; i < count; i++) perDay[Math.floor(random.next() * days)]! += 1;
  const payees = payeesOf(options.suppliers, options.users);
  const merchantCodes = MERCHANTS.map(([name]) => table.counterparties.code(name));
  const atmCodes = ATMS.map((name) => table.counterparties.code(name));
  const c = table.columns();
  let row = 0;
  let groups = 0;
  for (let d = 0; d < days; d++) {
    const day = firstDay + d;
    const n = perDay[d] ?? 0;
    const prefixes = sortedPrefixes(random, n);
    for (let k = 0; k < n; k++, row++) {
      c.bookingDay[row] = day;
      c.idPrefix[row] = prefixes[k] ?? 0;
      c.createSec[row] = day * 86_400 + random.int(6 * 3600, 22 * 3600);
      const joined = fillRow(table, row, day, random, payees, merchantCodes, atmCodes);
      c.group[row] = joined ? (c.group[row - 1] ?? 0) : groups++;
      // Matching happens after booking: matched rows were updated a little later.
      c.updateSec[row] = c.createSec[row]! + (c.matched[row] ? random.int(3600, 5 * 86_400) : 0);
    }
  }
  table.setSize(row, groups);
}

function payeesOf(suppliers: readonly Supplier[], users: readonly User[]): Payee[] {
  const fromSuppliers = suppliers
    .slice(0, PAYEE_SUPPLIERS)
    .map((s) => ({ name: s.name, iban: s.iban ?? '' }));
  const employees = users.map((u, i) => ({
    name: `Reimbursement ${u.firstName} ${u.lastName}`,
    iban: `DE${String(10 + (i % 89))}1001001${String(1_000_000_000 + i * 7919).slice(0, 10)}`,
  }));
  return [...fromSuppliers, ...employees];
}

/** 32-bit id prefixes for one day, strictly increasing, so row order within a day is id order. */
function sortedPrefixes(random: Random, n: number): Uint32Array {
  const prefixes = new Uint32Array(n);
  for (let i = 0; i < n; i++) prefixes[i] = random.uint32();
  prefixes.sort();
  for (let i = 1; i < n; i++) {
    if (prefixes[i]! <= prefixes[i - 1]!) prefixes[i] = Math.min(prefixes[i - 1]! + 1, 0xffffffff);
  }
  return prefixes;
}

const MATCH_RATE = [0.8, 0.75, 0.4, 0.6, 0.4];

/** Writes one row's columns; returns whether it joins the previous row's group (batched payouts). */
function fillRow(
  table: TransactionTable,
  row: number,
  day: number,
  random: Random,
  payees: Payee[],
  merchantCodes: number[],
  atmCodes: number[],
): boolean {
  const c = table.columns();
  const roll = random.next();
  const type =
    roll < 0.62 ? CARD : roll < 0.77 ? PAYOUT : roll < 0.85 ? TOP_UP : roll < 0.93 ? WITHDRAWAL : REPAYMENT;
  const account = pickWallet(table.wallets, type, day, random);
  const wallet = table.wallets[account] as Wallet;
  c.type[row] = type;
  c.account[row] = account;
  c.matched[row] = random.chance(MATCH_RATE[type] ?? 0.7) ? 1 : 0;
  c.valueLag[row] = type === CARD ? random.int(0, 2) : 0;
  c.bankAccountNumber[row] = table.bankAccountNumbers.code(wallet.accountNumber);
  if (type === CARD) return fillCard(table, row, wallet, random, merchantCodes);
  if (type === WITHDRAWAL) {
    c.counterparty[row] = random.pick(atmCodes);
    c.paymentFee[row] = random.chance(0.5) ? -random.int(200, 500) : 0;
    c.amount[row] = -random.int(2, 50) * 1000 + (c.paymentFee[row] ?? 0);
    return false;
  }
  if (type === PAYOUT) {
    const payee = random.pick(payees);
    c.counterparty[row] = table.counterparties.code(payee.name);
    c.bankAccountNumber[row] = table.bankAccountNumbers.code(payee.iban);
    c.paymentFee[row] = random.chance(0.25) ? -random.int(50, 500) : 0;
    c.amount[row] = -random.int(20_000, 2_500_000) + (c.paymentFee[row] ?? 0);
    const previous = row - 1;
    return (
      previous >= 0 &&
      c.type[previous] === PAYOUT &&
      c.bookingDay[previous] === day &&
      c.account[previous] === account &&
      random.chance(0.3)
    );
  }
  const [name, iban] = type === TOP_UP ? HOUSE_BANK : REPAYMENT_PAYER;
  c.counterparty[row] = table.counterparties.code(name);
  c.bankAccountNumber[row] = table.bankAccountNumbers.code(iban);
  c.amount[row] = type === TOP_UP ? random.int(50, 500) * 10_000 : random.int(200, 3_000) * 100;
  return false;
}

function fillCard(
  table: TransactionTable,
  row: number,
  wallet: Wallet,
  random: Random,
  merchantCodes: number[],
): boolean {
  const c = table.columns();
  const foreign = random.chance(0.2);
  let index = random.int(0, MERCHANTS.length - 1);
  // Most card payments are in the wallet's own currency: redraw until the merchant fits.
  for (let tries = 0; tries < 20 && (MERCHANTS[index]![2] === wallet.currency) === foreign; tries++)
    index = random.int(0, MERCHANTS.length - 1);
  const merchant = MERCHANTS[index]!;
  const currency = merchant[2];
  const magnitude = Math.round(Math.exp(Math.log(350) + random.next() * (Math.log(150_000) - Math.log(350))));
  const original = convertMinor(magnitude, 'EUR', currency);
  const refund = random.chance(0.03);
  const converted = convertMinor(original, currency, wallet.currency);
  const fee = currency !== wallet.currency && !refund ? fxFeeMinor(converted) : 0;
  c.counterparty[row] = merchantCodes[index] ?? 0;
  c.merchantCurrency[row] = Math.max(
    0,
    MERCHANT_CURRENCIES.indexOf(currency as (typeof MERCHANT_CURRENCIES)[number]),
  );
  c.original[row] = original;
  c.fxFee[row] = fee;
  c.amount[row] = (refund ? converted : -converted) + fee;
  return false;
}

function pickWallet(wallets: readonly Wallet[], type: number, day: number, random: Random): number {
  if (type === REPAYMENT) return 1;
  const weights =
    type === CARD ? [40, 30, 12, 10, 8] : type === PAYOUT ? [80, 0, 10, 10, 0] : [50, 0, 20, 20, 10];
  for (;;) {
    let roll = random.next() * 100;
    let index = 0;
    while (index < weights.length - 1 && roll >= (weights[index] ?? 0)) roll -= weights[index++] ?? 0;
    if ((weights[index] ?? 0) > 0 && day <= (wallets[index]?.lastDay ?? 0)) return index;
  }
}
