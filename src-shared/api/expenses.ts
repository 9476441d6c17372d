import { z } from 'zod';
import { Id, Money, SearchPagination, Timestamp, listEnvelope } from './common';

/** Fixed dimension ids under which cost center and cost carrier appear in `dimensions`. */
export const COST_CENTER_DIMENSION_ID = '00000000-0000-0000-0000-000000000001';
export const COST_CARRIER_DIMENSION_ID = '00000000-0000-0000-0000-000000000002';

export const ExpenseLineType = z.enum([
  'REIMBURSEMENT_INVOICE_LINE',
  'REIMBURSEMENT_INVOICE_LINE_SPLIT',
  'CARD_TRANSACTION_LINE',
  'FX_FEE',
  'INVOICE_LINE',
]);
export type ExpenseLineType = z.infer<typeof ExpenseLineType>;

export const LineDimension = z.looseObject({ dimensionId: Id, dimensionItemId: Id });

export const ExpenseLine = z
  .looseObject({
    id: Id,
    type: ExpenseLineType,
    subType: z.enum(['MAIN', 'CORRECTION']),
    /** Set on REIMBURSEMENT_INVOICE_LINE_SPLIT: the REIMBURSEMENT_INVOICE_LINE it splits. */
    parentLineId: Id.nullable(),
    description: z.string(),
    expenseAccountId: Id.nullable(),
    taxRateId: Id.nullable(),
    dimensions: z.array(LineDimension),
    netAmount: Money,
    grossAmount: Money,
    vatAmount: Money,
    homeAmount: Money,
    /** @deprecated read the cost-center dimension in `dimensions`. */
    costCenterId: Id.nullable(),
    /** @deprecated read the cost-carrier dimension in `dimensions`. */
    costCarrierId: Id.nullable(),
  })
  .meta({ id: 'ExpenseLine' });
export type ExpenseLine = z.infer<typeof ExpenseLine>;

export const ExpenseStatus = z.enum([
  'DRAFT',
  'SUBMITTED',
  'REVIEWED',
  'APPROVED',
  'REJECTED',
  'FLAGGED',
  'APPROVAL_SKIPPED',
  'VERIFIED',
  'VERIFICATION_SKIPPED',
  'COMPLETED',
  'DELETED',
]);

export const Expense = z
  .looseObject({
    id: Id,
    type: z.enum(['CARD_TRANSACTION', 'INVOICE', 'REIMBURSEMENT']),
    subType: z.enum(['EXPENSE', 'REFUND', 'CASHBACK', 'CREDIT_NOTE']),
    status: ExpenseStatus,
    supplierId: Id.nullable(),
    userId: Id,
    /** Card transactions: the bank transaction the expense documents. */
    bankTransactionId: Id.nullable(),
    description: z.string(),
    bookingText: z.string(),
    amount: Money,
    homeAmount: Money,
    expenseTime: Timestamp,
    exportMetadata: z.looseObject({
      firstExportTime: Timestamp.nullable(),
      lastExportTime: Timestamp.nullable(),
    }),
    expenseMetadata: z.looseObject({
      merchant: z.looseObject({ name: z.string(), mcc: z.string(), atm: z.boolean() }).nullable(),
    }),
    lines: z.array(ExpenseLine),
    createTime: Timestamp,
    updateTime: Timestamp,
  })
  .meta({ id: 'Expense' });
export type Expense = z.infer<typeof Expense>;

export const ExpensePage = listEnvelope(Expense).meta({ id: 'ExpensePage' });

export const ExpenseFile = z
  .looseObject({
    id: Id,
    expenseId: Id,
    expenseLineId: Id.nullable(),
    name: z.string(),
    mimeType: z.string(),
    size: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    createTime: Timestamp,
  })
  .meta({ id: 'ExpenseFile' });
export type ExpenseFile = z.infer<typeof ExpenseFile>;

export const ExpenseFilePage = listEnvelope(ExpenseFile).meta({ id: 'ExpenseFilePage' });

/**
 * Filters combine with AND. A REIMBURSEMENT_INVOICE_LINE_SPLIT id in `expenseLineIds` is
 * resolved to its parent line first: splits carry no files of their own.
 */
export const FileSearchRequest = z
  .strictObject({
    expenseIds: z.array(Id).min(1).max(1000).optional(),
    expenseLineIds: z.array(Id).min(1).max(1000).optional(),
    pagination: SearchPagination.optional(),
  })
  .meta({ id: 'SearchFiles' });
export type FileSearchRequest = z.infer<typeof FileSearchRequest>;
