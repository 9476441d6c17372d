import { z } from 'zod';
import { Id, IsoDate, Money, SearchPagination, SortDirection, Timestamp, listEnvelope } from './common';

export const TransactionType = z.enum(['CARD', 'PAYOUT', 'TOP_UP', 'WITHDRAWAL', 'REPAYMENT']);
export type TransactionType = z.infer<typeof TransactionType>;

export const FeeType = z.enum(['FX_FEE', 'PAYMENT_FEE']);

export const BankTransaction = z
  .looseObject({
    id: Id,
    bankAccountId: Id,
    organisationId: Id,
    transactionType: TransactionType,
    /** Fees included. */
    amount: Money,
    bookingDate: IsoDate,
    valueDate: IsoDate,
    description: z.string(),
    counterparty: z.string(),
    fees: z.array(z.looseObject({ feeType: FeeType, amount: Money })),
    groupId: Id,
    bankAccountNumber: z.string(),
    matched: z.boolean(),
    createTime: Timestamp,
    updateTime: Timestamp,
  })
  .meta({ id: 'BankTransaction' });
export type BankTransaction = z.infer<typeof BankTransaction>;

export const BankTransactionPage = listEnvelope(BankTransaction).meta({ id: 'BankTransactionPage' });
export type BankTransactionPage = z.infer<typeof BankTransactionPage>;

/** Fields both searches can sort by; ties are broken by `id` in the sort's own direction (DESC is ASC reversed). */
export const TransactionSortField = z.enum(['bookingDate', 'valueDate', 'amount', 'id']);
export type TransactionSortField = z.infer<typeof TransactionSortField>;

export const TransactionSorting = z.strictObject({
  field: TransactionSortField,
  direction: SortDirection.default('DESC'),
});

const AccountIds = z.array(Id).min(1).max(100);

/** Compared only when both dates are valid: a malformed one has its own error, not an order one too. */
const isDate = (value: string | undefined): value is string =>
  value !== undefined && IsoDate.safeParse(value).success;
const dateOrder = {
  check: (body: { bookingDateFrom?: string | undefined; bookingDateTo?: string | undefined }) =>
    !isDate(body.bookingDateFrom) ||
    !isDate(body.bookingDateTo) ||
    body.bookingDateFrom <= body.bookingDateTo,
  params: { message: 'bookingDateFrom is after bookingDateTo.', path: ['bookingDateFrom'] },
};

/** Spec 4.1: both booking dates required; `accountIds` or the deprecated `bankAccountId`, never both. */
export const SearchV1Request = z
  .strictObject({
    bookingDateFrom: IsoDate,
    bookingDateTo: IsoDate,
    accountIds: AccountIds.optional(),
    /** @deprecated use accountIds; still accepted. */
    bankAccountId: Id.optional(),
    pagination: SearchPagination.optional(),
    sorting: TransactionSorting.optional(),
  })
  .refine((body) => body.accountIds === undefined || body.bankAccountId === undefined, {
    message: 'Give accountIds or bankAccountId, not both.',
    path: ['bankAccountId'],
  })
  .refine(dateOrder.check, dateOrder.params)
  .meta({ id: 'SearchBankTransactionsV1' });
export type SearchV1Request = z.infer<typeof SearchV1Request>;

/** Spec 4.2: every filter optional; filters combine with AND. */
export const SearchV0Request = z
  .strictObject({
    ids: z.array(Id).min(1).max(1000).optional(),
    bookingDateFrom: IsoDate.optional(),
    bookingDateTo: IsoDate.optional(),
    accountIds: AccountIds.optional(),
    matched: z.boolean().optional(),
    /** Case-insensitive substring of id, groupId, counterparty or bankAccountNumber; blank means no filter. */
    freeText: z.string().max(200).optional(),
    pagination: SearchPagination.optional(),
    sorting: TransactionSorting.optional(),
  })
  .refine(dateOrder.check, dateOrder.params)
  .meta({ id: 'SearchBankTransactionsV0' });
export type SearchV0Request = z.infer<typeof SearchV0Request>;

export const BankAccount = z
  .looseObject({
    id: Id,
    name: z.string(),
    currency: z.string(),
    fundingType: z.enum(['CREDIT', 'DEBIT']),
    status: z.enum(['ACTIVE', 'CLOSED']),
    accountNumber: z.string(),
  })
  .meta({ id: 'BankAccount' });
export type BankAccount = z.infer<typeof BankAccount>;

export const BankAccountList = z.looseObject({ data: z.array(BankAccount) }).meta({ id: 'BankAccountList' });

export const BankAccountBalance = z
  .looseObject({ bankAccountId: Id, balance: Money, availableBalance: Money, balanceTime: Timestamp })
  .meta({ id: 'BankAccountBalance' });
export type BankAccountBalance = z.infer<typeof BankAccountBalance>;
