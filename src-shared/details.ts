import { z } from 'zod';
import { ExpenseRow, MinorAmount, TransactionRow } from './search';

/**
 * What the detail pane of a record shows: the record as the lists show it (with its review
 * state) plus what only opening it needs — fees, the rest of its group, the linked expense
 * and its files, an expense's lines. Read-only, from the organisation's cache.
 */

export const BankAccountSummary = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    currency: z.string().nullable(),
    accountNumber: z.string().nullable(),
    status: z.string().nullable(),
  })
  .strict();
export type BankAccountSummary = z.infer<typeof BankAccountSummary>;

export const ExpenseFileSummary = z
  .object({
    id: z.string(),
    expenseId: z.string().nullable(),
    expenseLineId: z.string().nullable(),
    name: z.string().nullable(),
    mimeType: z.string().nullable(),
    size: z.number().int().nullable(),
    /** Whether a good local copy exists (downloaded and its hash checked). */
    downloaded: z.boolean(),
  })
  .strict();
export type ExpenseFileSummary = z.infer<typeof ExpenseFileSummary>;

export const ExpenseLineSummary = z
  .object({
    id: z.string(),
    type: z.string().nullable(),
    description: z.string().nullable(),
    parentLineId: z.string().nullable(),
    net: MinorAmount.nullable(),
    vat: MinorAmount.nullable(),
    gross: MinorAmount.nullable(),
    /** Where the line is booked; names are null when the cache does not know the record. */
    expenseAccount: z
      .object({ id: z.string(), number: z.string().nullable(), name: z.string().nullable() })
      .strict()
      .nullable(),
    taxRate: z
      .object({ id: z.string(), name: z.string().nullable(), rate: z.string().nullable() })
      .strict()
      .nullable(),
    /** The line's dimensions in the order the API gives them (cost center, cost carrier, …). */
    dimensions: z.array(
      z
        .object({
          dimensionId: z.string(),
          dimensionName: z.string().nullable(),
          itemId: z.string().nullable(),
          itemCode: z.string().nullable(),
          itemName: z.string().nullable(),
        })
        .strict(),
    ),
  })
  .strict();
export type ExpenseLineSummary = z.infer<typeof ExpenseLineSummary>;
export type LineBooking = Pick<ExpenseLineSummary, 'expenseAccount' | 'taxRate' | 'dimensions'>;

/** An expense account as people name it: "4930 Office supplies" (its id when the cache lacks it). */
export function accountText(account: NonNullable<ExpenseLineSummary['expenseAccount']>): string {
  return [account.number, account.name].filter(Boolean).join(' ') || account.id;
}

/** A line's item of a dimension: "Cost center: 1000 Management"; null when it names no item. */
export function dimensionText(dimension: ExpenseLineSummary['dimensions'][number]): string | null {
  if (dimension.itemId === null) return null;
  const item = dimension.itemName ?? dimension.itemCode ?? dimension.itemId;
  return `${dimension.dimensionName ?? dimension.dimensionId}: ${item}`;
}

/** The bank transaction an expense documents, as its pane names it. */
export const LinkedTransaction = TransactionRow.pick({
  id: true,
  bookingDate: true,
  counterparty: true,
  amount: true,
  deletedAt: true,
});
export type LinkedTransaction = z.infer<typeof LinkedTransaction>;

export const ExpenseDetail = z
  .object({
    expense: ExpenseRow,
    bankTransactionId: z.string().nullable(),
    /** That transaction from the offline copy; null when there is none or it is not cached. */
    bankTransaction: LinkedTransaction.nullable(),
    lines: z.array(ExpenseLineSummary),
    files: z.array(ExpenseFileSummary),
  })
  .strict();
export type ExpenseDetail = z.infer<typeof ExpenseDetail>;

export const TransactionDetail = z
  .object({
    transaction: TransactionRow,
    account: BankAccountSummary.nullable(),
    fees: z.array(z.object({ feeType: z.string(), amount: MinorAmount }).strict()),
    /** The other transactions of its group (a payment and its fees, a split), up to 50. */
    group: z.array(TransactionRow),
    /** Expenses that document this transaction (card payments), with their lines and files. */
    expenses: z.array(ExpenseDetail),
  })
  .strict();
export type TransactionDetail = z.infer<typeof TransactionDetail>;
