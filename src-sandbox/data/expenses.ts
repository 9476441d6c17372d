import type { Expense, ExpenseLine, Supplier, DimensionItem } from '../../src-shared/api';
import { COST_CARRIER_DIMENSION_ID, COST_CENTER_DIMENSION_ID } from '../../src-shared/api';
import { parseAmount, toMoney } from '../../src-shared/money';
import { CARD, PAYOUT, WITHDRAWAL } from './columns';
import { convertMinor } from './fx';
import { MERCHANTS } from './names';
import { NS, type Reference, type Wallet } from './organisation';
import { createRandom, uuidFor, type Random } from './random';
import { isoFromSeconds } from './time';
import { merchantCurrencyOf, type TransactionTable } from './transactions';

/**
 * Expenses documenting the most recent matched transactions: card payments (some abroad,
 * with an FX fee line), ATM withdrawals, supplier invoices paid by payout, and employee
 * reimbursements with split lines. Each carries the file specs its receipts are made from.
 */

export interface FileSpec {
  id: string;
  expenseId: string;
  expenseLineId: string | null;
  name: string;
  /** `image/png` or `application/pdf` as generated; any type once a test replaces the file. */
  mimeType: string;
  createTime: string;
  seed: number;
  text: string[];
}

export interface GeneratedExpenses {
  expenses: Expense[];
  files: FileSpec[];
}

const HOME = 'EUR';
const LIMITS = { card: 1500, atm: 100, invoice: 400, reimbursement: 200 };

interface Context {
  seed: number;
  table: TransactionTable;
  reference: Reference;
  random: Random;
  items: DimensionItem[];
  suppliersByName: Map<string, Supplier>;
  endSec: number;
  expenses: Expense[];
  files: FileSpec[];
  lineCount: number;
}

export function generateExpenses(
  seed: number,
  table: TransactionTable,
  reference: Reference,
  items: DimensionItem[],
  suppliers: Supplier[],
  endSec: number,
): GeneratedExpenses {
  const context: Context = {
    seed,
    table,
    reference,
    items,
    endSec,
    random: createRandom(seed, NS.expense),
    suppliersByName: new Map(suppliers.map((s) => [s.name, s])),
    expenses: [],
    files: [],
    lineCount: 0,
  };
  const taken = { card: 0, atm: 0, invoice: 0, reimbursement: 0 };
  const c = table.columns();
  for (let row = table.size() - 1; row >= 0; row--) {
    if (c.matched[row] !== 1 || (c.amount[row] ?? 0) >= 0) continue;
    const type = c.type[row];
    const counterparty = table.counterparties.texts[c.counterparty[row] ?? 0] ?? '';
    if (type === CARD && taken.card < LIMITS.card) taken.card += addCardExpense(context, row, false);
    else if (type === WITHDRAWAL && taken.atm < LIMITS.atm) taken.atm += addCardExpense(context, row, true);
    else if (
      type === PAYOUT &&
      counterparty.startsWith('Reimbursement') &&
      taken.reimbursement < LIMITS.reimbursement
    )
      taken.reimbursement += addReimbursement(context, row);
    else if (type === PAYOUT && context.suppliersByName.has(counterparty) && taken.invoice < LIMITS.invoice)
      taken.invoice += addInvoice(context, row);
  }
  context.expenses.reverse();
  return { expenses: context.expenses, files: context.files };
}

/** Splits a total into `parts` integers that add up to it exactly. */
function split(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  let left = total;
  return weights.map((weight, i) => {
    if (i === weights.length - 1) return left;
    const share = Math.trunc((total * weight) / sum);
    left -= share;
    return share;
  });
}

function itemsOf(context: Context, dimensionId: string): DimensionItem[] {
  return context.items.filter((item) => item.dimensionId === dimensionId && item.status === 'ACTIVE');
}

interface LineInput {
  type: ExpenseLine['type'];
  description: string;
  gross: number;
  currency: string;
  home: number;
  basisPoints: number;
  taxRateId: string | null;
  expenseAccountId: string | null;
  parentLineId?: string;
  noDimensions?: boolean;
}

function makeLine(context: Context, input: LineInput): ExpenseLine {
  const id = uuidFor(context.seed, NS.line, context.lineCount++);
  const vat = input.gross - Math.round((input.gross * 10_000) / (10_000 + input.basisPoints));
  const costCenter = input.noDimensions
    ? null
    : context.random.pick(itemsOf(context, COST_CENTER_DIMENSION_ID));
  const costCarrier =
    input.noDimensions || context.random.chance(0.5)
      ? null
      : context.random.pick(itemsOf(context, COST_CARRIER_DIMENSION_ID));
  const dimensions = [costCenter, costCarrier]
    .filter((item): item is DimensionItem => item !== null)
    .map((item) => ({ dimensionId: item.dimensionId, dimensionItemId: item.id }));
  return {
    id,
    type: input.type,
    subType: 'MAIN',
    parentLineId: input.parentLineId ?? null,
    description: input.description,
    expenseAccountId: input.expenseAccountId,
    taxRateId: input.taxRateId,
    dimensions,
    netAmount: toMoney(input.gross - vat, input.currency),
    grossAmount: toMoney(input.gross, input.currency),
    vatAmount: toMoney(vat, input.currency),
    homeAmount: toMoney(input.home, HOME),
    costCenterId: costCenter?.id ?? null,
    costCarrierId: costCarrier?.id ?? null,
  };
}

function taxFor(context: Context, currency: string): { id: string; basisPoints: number } {
  const rates = context.reference.taxRates;
  const rate = currency === 'EUR' ? rates[0] : currency === 'GBP' ? rates[5] : rates[7];
  return { id: rate?.id ?? '', basisPoints: rate?.basisPoints ?? 0 };
}

function account(context: Context, number: string): string | null {
  return context.reference.expenseAccounts.find((a) => a.number === number)?.id ?? null;
}

function baseExpense(
  context: Context,
  row: number,
  type: Expense['type'],
  lines: ExpenseLine[],
  amount: { minor: number; currency: string },
  userId: string,
  supplierId: string | null,
): Expense {
  const { table, random } = context;
  const record = table.toRecord(row);
  const created = (table.columns().createSec[row] ?? 0) + 3600;
  const ageDays = (context.endSec - created) / 86_400;
  const exported = ageDays > 45 || random.chance(0.1);
  const status = exported
    ? 'COMPLETED'
    : random.pick([
        'DRAFT',
        'SUBMITTED',
        'REVIEWED',
        'APPROVED',
        'FLAGGED',
        'APPROVAL_SKIPPED',
        'VERIFIED',
        'VERIFICATION_SKIPPED',
        'REJECTED',
      ] as const);
  const firstExport = exported ? Math.min(context.endSec, created + random.int(2, 20) * 86_400) : null;
  const lastExport =
    firstExport === null
      ? null
      : Math.min(context.endSec, firstExport + (random.chance(0.2) ? random.int(1, 10) * 86_400 : 0));
  const home = lines
    .filter((line) => line.type !== 'REIMBURSEMENT_INVOICE_LINE_SPLIT')
    .reduce((sum, line) => sum + parseAmount(line.homeAmount.amount, HOME), 0);
  return {
    id: uuidFor(context.seed, NS.expense, context.expenses.length),
    type,
    subType: 'EXPENSE',
    status,
    supplierId,
    userId,
    bankTransactionId: record.id,
    description: record.description,
    bookingText: `${record.counterparty} ${record.bookingDate}`,
    amount: toMoney(amount.minor, amount.currency),
    homeAmount: toMoney(home, HOME),
    expenseTime: record.createTime,
    exportMetadata: {
      firstExportTime: firstExport === null ? null : isoFromSeconds(firstExport),
      lastExportTime: lastExport === null ? null : isoFromSeconds(lastExport),
    },
    expenseMetadata: { merchant: null },
    lines,
    createTime: isoFromSeconds(created),
    updateTime: isoFromSeconds(
      Math.min(context.endSec, Math.max(created, lastExport ?? created + random.int(0, 5) * 86_400)),
    ),
  };
}

function addFile(
  context: Context,
  expense: Expense,
  line: ExpenseLine | null,
  kind: 'png' | 'pdf',
  label: string,
  text: string[],
): void {
  const index = context.files.length;
  const slug = label
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  context.files.push({
    id: uuidFor(context.seed, NS.file, index),
    expenseId: expense.id,
    expenseLineId: line?.id ?? null,
    name: `${slug}-${expense.expenseTime.slice(0, 10)}.${kind}`,
    mimeType: kind === 'png' ? 'image/png' : 'application/pdf',
    createTime: expense.createTime,
    seed: context.seed * 1_000_003 + index,
    text,
  });
}

function addCardExpense(context: Context, row: number, atm: boolean): number {
  const { table, random } = context;
  const c = table.columns();
  const wallet = table.wallets[c.account[row] ?? 0] as Wallet;
  const record = table.toRecord(row);
  const fee = c.fxFee[row] ?? 0;
  const currency = atm ? wallet.currency : merchantCurrencyOf(table, row);
  const original = atm ? -((c.amount[row] ?? 0) - (c.paymentFee[row] ?? 0)) : (c.original[row] ?? 0);
  const converted = -((c.amount[row] ?? 0) - fee - (atm ? (c.paymentFee[row] ?? 0) : 0));
  const tax = atm
    ? { id: context.reference.taxRates[3]?.id ?? null, basisPoints: 0 }
    : taxFor(context, currency);
  const lines = [
    makeLine(context, {
      type: 'CARD_TRANSACTION_LINE',
      description: record.counterparty,
      gross: original,
      currency,
      home: convertMinor(converted, wallet.currency, HOME),
      basisPoints: tax.basisPoints,
      taxRateId: tax.id,
      expenseAccountId: account(
        context,
        atm ? '4900' : random.pick(['4930', '4650', '4670', '4673', '4674', '4676', '4964', '4980']),
      ),
    }),
  ];
  if (fee !== 0) {
    // Release 1.29.1/1.39.3: the FX fee line has no dimensions, home amounts filled, net = the fee.
    lines.push(
      makeLine(context, {
        type: 'FX_FEE',
        description: 'Foreign exchange fee',
        gross: -fee,
        currency: wallet.currency,
        home: convertMinor(-fee, wallet.currency, HOME),
        basisPoints: 0,
        taxRateId: context.reference.taxRates[3]?.id ?? null,
        expenseAccountId: account(context, '4970'),
        noDimensions: true,
      }),
    );
  }
  const user = random.pick(context.reference.users);
  const expense = baseExpense(
    context,
    row,
    'CARD_TRANSACTION',
    lines,
    { minor: original, currency },
    user.id,
    null,
  );
  const merchant = MERCHANTS.find(([name]) => name === record.counterparty);
  expense.expenseMetadata = {
    merchant: { name: record.counterparty, mcc: atm ? '6011' : (merchant?.[1] ?? '5999'), atm },
  };
  context.expenses.push(expense);
  if (!atm && random.chance(0.9)) {
    addFile(
      context,
      expense,
      lines[0] ?? null,
      random.chance(0.65) ? 'png' : 'pdf',
      `receipt-${record.counterparty}`,
      [
        record.counterparty,
        record.bookingDate,
        `Total ${lines[0]?.grossAmount.amount} ${currency}`,
        `VAT ${lines[0]?.vatAmount.amount} ${currency}`,
      ],
    );
  }
  return 1;
}

function payoutAmount(context: Context, row: number): { minor: number; wallet: Wallet } {
  const c = context.table.columns();
  return {
    minor: -((c.amount[row] ?? 0) - (c.paymentFee[row] ?? 0)),
    wallet: context.table.wallets[c.account[row] ?? 0] as Wallet,
  };
}

function addInvoice(context: Context, row: number): number {
  const { random, table } = context;
  const record = table.toRecord(row);
  const { minor, wallet } = payoutAmount(context, row);
  const supplier = context.suppliersByName.get(record.counterparty);
  const parts = split(
    minor,
    Array.from({ length: random.int(1, 3) }, () => random.int(1, 5)),
  );
  const homes = split(
    convertMinor(minor, wallet.currency, HOME),
    parts.map((part) => Math.max(1, part)),
  );
  const lines = parts.map((gross, i) => {
    const reduced = random.chance(0.2) && wallet.currency === 'EUR';
    const tax = reduced ? context.reference.taxRates[1] : undefined;
    const standard = taxFor(context, wallet.currency);
    return makeLine(context, {
      type: 'INVOICE_LINE',
      description: `${record.description} item ${i + 1}`,
      gross,
      currency: wallet.currency,
      home: homes[i] ?? 0,
      basisPoints: tax?.basisPoints ?? standard.basisPoints,
      taxRateId: tax?.id ?? standard.id,
      expenseAccountId: account(context, random.pick(['4930', '4950', '4955', '4806', '4600', '4210'])),
    });
  });
  const purchaser =
    context.reference.users.find((u) => u.roles.includes('PURCHASER')) ??
    random.pick(context.reference.users);
  const expense = baseExpense(
    context,
    row,
    'INVOICE',
    lines,
    { minor, currency: wallet.currency },
    purchaser.id,
    supplier?.id ?? null,
  );
  context.expenses.push(expense);
  addFile(context, expense, lines[0] ?? null, 'pdf', `invoice-${record.counterparty}`, [
    record.counterparty,
    record.description,
    record.bookingDate,
    `Amount due ${expense.amount.amount} ${wallet.currency}`,
  ]);
  return 1;
}

function addReimbursement(context: Context, row: number): number {
  const { random, table } = context;
  const record = table.toRecord(row);
  const { minor, wallet } = payoutAmount(context, row);
  const name = record.counterparty.replace(/^Reimbursement /, '');
  const user =
    context.reference.users.find((u) => `${u.firstName} ${u.lastName}` === name) ??
    random.pick(context.reference.users);
  const parts = split(
    minor,
    Array.from({ length: random.int(1, 3) }, () => random.int(1, 5)),
  );
  const homes = split(
    convertMinor(minor, wallet.currency, HOME),
    parts.map((part) => Math.max(1, part)),
  );
  const tax = taxFor(context, wallet.currency);
  const lines: ExpenseLine[] = [];
  const parents: ExpenseLine[] = [];
  parts.forEach((gross, i) => {
    const input: LineInput = {
      type: 'REIMBURSEMENT_INVOICE_LINE',
      description: `Receipt ${i + 1}`,
      gross,
      currency: wallet.currency,
      home: homes[i] ?? 0,
      basisPoints: tax.basisPoints,
      taxRateId: tax.id,
      expenseAccountId: account(context, random.pick(['4660', '4670', '4650', '4676'])),
    };
    const parent = makeLine(context, input);
    lines.push(parent);
    parents.push(parent);
    if (!random.chance(0.4)) return;
    const weights = Array.from({ length: random.int(2, 3) }, () => random.int(1, 4));
    const grosses = split(gross, weights);
    const splitHomes = split(homes[i] ?? 0, weights);
    grosses.forEach((part, k) =>
      lines.push(
        makeLine(context, {
          ...input,
          type: 'REIMBURSEMENT_INVOICE_LINE_SPLIT',
          description: `Receipt ${i + 1} share ${k + 1}`,
          gross: part,
          home: splitHomes[k] ?? 0,
          parentLineId: parent.id,
        }),
      ),
    );
  });
  const expense = baseExpense(
    context,
    row,
    'REIMBURSEMENT',
    lines,
    { minor, currency: wallet.currency },
    user.id,
    null,
  );
  context.expenses.push(expense);
  parents.forEach((line, i) =>
    addFile(context, expense, line, i % 2 === 0 ? 'png' : 'pdf', `reimbursement-receipt-${i + 1}`, [
      `${name}`,
      line.description,
      `Total ${line.grossAmount.amount} ${wallet.currency}`,
    ]),
  );
  return 1;
}
