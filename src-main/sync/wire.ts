import { z } from 'zod';
import {
  BankAccount,
  BankAccountBalance,
  BankTransaction,
  Department,
  Dimension,
  DimensionItem,
  Expense,
  ExpenseAccount,
  ExpenseFile,
  ExpenseLine,
  Money,
  PaginationMeta,
  PaymentTerm,
  Supplier,
  TaxRate,
  Team,
  User,
} from '../../src-shared/api';
import { MoneyError, parseMoney } from '../../src-shared/money';

/**
 * The shared wire schemas, as the client reads them: every member the app does not need to
 * identify and place a record may be missing (a newer or older server), unknown members are
 * kept (the schemas are loose and `raw` stores the record as sent), and money must convert
 * exactly to the currency's minor units — a record that does not is reported, not stored.
 *
 * Statuses, types and roles are read as any code: the spec does not show their full sets
 * ("The full set of status values and all transitions: not shown"), and a value a newer
 * server adds must not turn its records into errors. The app shows an unknown code as it
 * came; its filters offer the codes it knows.
 */

const Code = z.string().min(1).max(100);

const ExactMoney = Money.superRefine((value, context) => {
  try {
    parseMoney(value);
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: error instanceof MoneyError ? error.message : 'Not an amount.',
    });
  }
});

export const WireBankTransaction = BankTransaction.extend({
  transactionType: Code,
  amount: ExactMoney,
  fees: z.array(z.looseObject({ feeType: z.string(), amount: ExactMoney })),
})
  .partial()
  .required({ id: true, bankAccountId: true, amount: true, bookingDate: true });
export type WireBankTransaction = z.infer<typeof WireBankTransaction>;

export const WireBankAccount = BankAccount.extend({ fundingType: Code, status: Code })
  .partial()
  .required({ id: true });
export const WireBalance = BankAccountBalance.extend({ balance: ExactMoney, availableBalance: ExactMoney })
  .partial()
  .required({ bankAccountId: true, balance: true });
export type WireBalance = z.infer<typeof WireBalance>;

export const WireSupplier = Supplier.extend({ status: Code }).partial().required({ id: true });

const WireExpenseLine = ExpenseLine.extend({
  type: Code,
  subType: Code,
  netAmount: ExactMoney,
  grossAmount: ExactMoney,
  vatAmount: ExactMoney,
  homeAmount: ExactMoney,
})
  .partial()
  .required({ id: true });

export const WireExpense = Expense.extend({
  type: Code,
  subType: Code,
  status: Code,
  amount: ExactMoney,
  homeAmount: ExactMoney,
  lines: z.array(WireExpenseLine),
})
  .partial()
  .required({ id: true });
export type WireExpense = z.infer<typeof WireExpense>;

export const WireExpenseFile = ExpenseFile.partial().required({ id: true });
export type WireExpenseFile = z.infer<typeof WireExpenseFile>;

export const WireDimension = Dimension.extend({ status: Code }).partial().required({ id: true });
export const WireDimensionItem = DimensionItem.extend({ status: Code }).partial().required({ id: true });
export const WireExpenseAccount = ExpenseAccount.extend({ status: Code }).partial().required({ id: true });
export const WireTaxRate = TaxRate.extend({ type: Code, status: Code }).partial().required({ id: true });
export const WireUser = User.extend({ roles: z.array(Code), status: Code })
  .partial()
  .required({ id: true });
export const WireTeam = Team.partial().required({ id: true });
export const WireDepartment = Department.partial().required({ id: true });
export const WirePaymentTerm = PaymentTerm.partial().required({ id: true });

/** A list answer with its records left unparsed, so each can be parsed (and reported) alone. */
export const listEnvelope = z.looseObject({
  data: z.array(z.unknown()),
  meta: z.looseObject({ pagination: PaginationMeta }).optional(),
});

/**
 * Whether a page is followed by another: the answer's `hasMore`, or, from a server that leaves
 * `meta` out, a full page (one more request finds the end). Taking a missing `meta` for the
 * last page would leave records past it out of the cache, or take them for deleted.
 */
export function hasMorePages(answer: z.infer<typeof listEnvelope>, pageSize: number): boolean {
  return answer.meta?.pagination.hasMore ?? answer.data.length >= pageSize;
}
