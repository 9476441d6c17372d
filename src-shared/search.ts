import { z } from 'zod';
import { TransactionType } from './api/bank';
import { MoneyError, parseAmount } from './money';

/**
 * The search and review model: the v0 filters of the spend API (every filter optional, AND
 * between them) plus what only the local cache knows (review state, amount range, types,
 * currencies). Used by the IPC contract, the CLI and the local search, so a filter means the
 * same everywhere. docs/search-and-review.md states the semantics; this file states the shapes.
 *
 * List filters (`ids`, `accountIds`, `transactionTypes`, `currencies`) mean "one of these":
 * an empty list therefore matches nothing, as in the sandbox's v0 search. Leave a filter out
 * to not filter.
 */

export const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-03-31.')
  .refine(
    (value) =>
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
      new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'Not a calendar date.',
  );

export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'Use a currency code like EUR.');

/** A decimal amount in major units as a person types it: "-12.30", "500", "0.125". */
export const DecimalAmount = z
  .string()
  .trim()
  .regex(/^[+-]?\d+(\.\d+)?$/, 'Use a decimal amount like 12.30 (a dot, no thousands separators).');

/**
 * A tag: trimmed, inner runs of white space collapsed to one space. Tags compare
 * case-insensitively (ASCII) everywhere: "VAT" and "vat" are the same tag.
 */
export const Tag = z
  .string()
  .transform((value) => value.trim().replace(/\s+/g, ' '))
  .pipe(
    z
      .string()
      .min(1, 'A tag cannot be empty.')
      .max(60, 'Keep a tag under 60 characters.')
      .refine((value) => !/\p{Cc}/u.test(value), 'A tag cannot contain control characters.'),
  );

export const SortDirection = z.enum(['ASC', 'DESC']);
export type SortDirection = z.infer<typeof SortDirection>;

/** Page numbers count from 1; the local cache allows larger pages than the API's 100. */
export const Pagination = z
  .object({
    page: z.number().int().min(1).max(1_000_000),
    pageSize: z.number().int().min(1).max(500),
  })
  .strict();
export type Pagination = z.infer<typeof Pagination>;

const DEFAULT_PAGE = { page: 1, pageSize: 50 };

/* ---------------------------------------------------------------- transactions */

export const TransactionSortField = z.enum([
  'bookingDate',
  'valueDate',
  'amount',
  'counterparty',
  'description',
  'transactionType',
  'bankAccountId',
  'matched',
  'id',
]);
export type TransactionSortField = z.infer<typeof TransactionSortField>;

/**
 * Amount range of one currency, bounds inclusive, each optional. Rows of other currencies
 * never match: minor units of different currencies are not comparable. Signed by default
 * (money leaving a wallet is negative); `ignoreSign` compares the magnitude, so 100 to 500
 * finds a -120.00 card payment and a 120.00 refund alike.
 */
export const AmountRange = z
  .object({
    currency: z
      .string()
      .min(1, { error: 'Choose a currency for the amount range.', abort: true })
      .regex(/^[A-Z]{3}$/, { error: 'Use a currency code like EUR.' }),
    min: DecimalAmount.optional(),
    max: DecimalAmount.optional(),
    ignoreSign: z.boolean().optional(),
  })
  .strict()
  .superRefine((range, ctx) => {
    // Without a currency the bounds cannot be read; the currency's own message says so.
    if (!/^[A-Z]{3}$/.test(range.currency)) return;
    const bounds = { min: range.min, max: range.max };
    const minor: Record<string, number> = {};
    for (const [key, value] of Object.entries(bounds)) {
      if (value === undefined) continue;
      try {
        minor[key] = parseAmount(value, range.currency);
      } catch (error) {
        const message = error instanceof MoneyError ? error.message : String(error);
        ctx.addIssue({ code: 'custom', message, path: [key] });
      }
    }
    if (minor['min'] !== undefined && minor['max'] !== undefined && minor['min'] > minor['max']) {
      ctx.addIssue({ code: 'custom', message: 'The smallest amount is above the largest.', path: ['min'] });
    }
    if (range.ignoreSign && [minor['min'], minor['max']].some((m) => m !== undefined && m < 0)) {
      ctx.addIssue({ code: 'custom', message: 'Without sign, bounds must not be negative.', path: ['min'] });
    }
  });
export type AmountRange = z.infer<typeof AmountRange>;

/**
 * Text searched for, in Unicode's composed form (NFC): "Müller" pasted from a PDF or a Mac
 * name (u and a combining diaeresis) finds what was typed as one letter.
 */
const SearchText = z
  .string()
  .max(200, 'Search for at most 200 characters.')
  .overwrite((text) => text.normalize('NFC'));

export const TransactionFilters = z
  .object({
    /** Exact ids, case-insensitive. */
    ids: z.array(z.string().min(1)).max(1000).optional(),
    /** Booking date bounds, both inclusive, either may be left out. */
    bookingDateFrom: IsoDate.optional(),
    bookingDateTo: IsoDate.optional(),
    accountIds: z.array(z.string().min(1)).max(100).optional(),
    matched: z.boolean().optional(),
    /**
     * Trimmed, case-insensitive substring of id, groupId, counterparty or bankAccountNumber
     * (never description: the v0 search does not look there). Blank means no filter; FTS
     * syntax (quotes, `*`, NEAR, OR, parentheses) is searched for literally.
     */
    freeText: SearchText.optional(),
    /** Review state; each is "yes" (true), "no" (false) or no filter (left out). */
    reviewed: z.boolean().optional(),
    flagged: z.boolean().optional(),
    hasNote: z.boolean().optional(),
    tag: Tag.optional(),
    amount: AmountRange.optional(),
    transactionTypes: z.array(TransactionType).max(20).optional(),
    currencies: z.array(CurrencyCode).max(200).optional(),
    /** Rows sync learned were deleted upstream are left out unless this is true. */
    includeDeleted: z.boolean().optional(),
  })
  .strict()
  .refine((f) => !f.bookingDateFrom || !f.bookingDateTo || f.bookingDateFrom <= f.bookingDateTo, {
    message: 'The start date is after the end date.',
    path: ['bookingDateFrom'],
  });
export type TransactionFilters = z.infer<typeof TransactionFilters>;

export const TransactionSorting = z
  .object({ field: TransactionSortField, direction: SortDirection })
  .strict();
export type TransactionSorting = z.infer<typeof TransactionSorting>;

/**
 * One search: filters, sort and page. The default order is the v0 default, booking date
 * descending. Every order ends in `id` in the same direction, so it is total and stable
 * across pages; bankAccountId and matched sort (field, bookingDate, id).
 */
export const TransactionSearch = z
  .object({
    filters: TransactionFilters.default({}),
    sorting: TransactionSorting.default({ field: 'bookingDate', direction: 'DESC' }),
    pagination: Pagination.default(DEFAULT_PAGE),
    /** Count and per-currency sums of the whole result; on by default. */
    withTotals: z.boolean().default(true),
  })
  .strict();
export type TransactionSearch = z.infer<typeof TransactionSearch>;
export type TransactionSearchInput = z.input<typeof TransactionSearch>;

/* ---------------------------------------------------------------- review state */

export const RecordKind = z.enum(['transaction', 'expense']);
export type RecordKind = z.infer<typeof RecordKind>;

/** The review state shown beside a record. Timestamps are ISO 8601 UTC. */
export const ReviewState = z
  .object({
    reviewedAt: z.string().nullable(),
    flagged: z.boolean(),
    flagReason: z.string().nullable(),
    note: z.string().nullable(),
    tags: z.array(z.string()),
  })
  .strict();
export type ReviewState = z.infer<typeof ReviewState>;

export const MinorAmount = z.object({ minor: z.number().int(), currency: z.string() }).strict();
export type MinorAmount = z.infer<typeof MinorAmount>;

/** Count and sums of a whole result. Sums are per currency, never added across currencies. */
export const SearchTotals = z
  .object({
    count: z.number().int().min(0),
    sums: z.array(MinorAmount.extend({ count: z.number().int().min(0) })),
  })
  .strict();
export type SearchTotals = z.infer<typeof SearchTotals>;

export const TransactionRow = z
  .object({
    id: z.string(),
    bankAccountId: z.string(),
    transactionType: z.string().nullable(),
    amount: MinorAmount,
    bookingDate: z.string(),
    valueDate: z.string().nullable(),
    description: z.string().nullable(),
    counterparty: z.string().nullable(),
    groupId: z.string().nullable(),
    bankAccountNumber: z.string().nullable(),
    matched: z.boolean(),
    deletedAt: z.string().nullable(),
    review: ReviewState,
  })
  .strict();
export type TransactionRow = z.infer<typeof TransactionRow>;

export const TransactionSearchResult = z
  .object({
    rows: z.array(TransactionRow),
    page: z.number().int(),
    pageSize: z.number().int(),
    /** Left out when the search asked for no totals. */
    totals: SearchTotals.optional(),
  })
  .strict();
export type TransactionSearchResult = z.infer<typeof TransactionSearchResult>;

/* ---------------------------------------------------------------- expenses and suppliers */

/** Review filters shared by expenses; `hasFile` is about receipts and invoices. */
export const ExpenseFilters = z
  .object({
    /**
     * Case-insensitive substring of the description, booking text, merchant name, supplier
     * name or a line's description.
     */
    text: SearchText.optional(),
    ids: z.array(z.string().min(1)).max(1000).optional(),
    reviewed: z.boolean().optional(),
    flagged: z.boolean().optional(),
    hasNote: z.boolean().optional(),
    tag: Tag.optional(),
    hasFile: z.boolean().optional(),
    /** A line of the expense is booked on this item of this dimension (a cost center, a project). */
    bookedOn: z
      .object({ dimensionId: z.string().min(1).max(100), itemId: z.string().min(1).max(100) })
      .strict()
      .optional(),
    /** A line of the expense is booked to this expense account (by id). */
    expenseAccountId: z.string().min(1).max(100).optional(),
    includeDeleted: z.boolean().optional(),
  })
  .strict();
export type ExpenseFilters = z.infer<typeof ExpenseFilters>;

export const ExpenseSortField = z.enum(['expenseTime', 'updateTime', 'amount', 'id']);
export type ExpenseSortField = z.infer<typeof ExpenseSortField>;

/** Newest first unless asked otherwise; `id` breaks ties. */
export const ExpenseSorting = z
  .object({ field: ExpenseSortField, direction: SortDirection })
  .strict()
  .default({ field: 'expenseTime', direction: 'DESC' });
export type ExpenseSorting = z.infer<typeof ExpenseSorting>;

export const ExpenseSearch = z
  .object({
    filters: ExpenseFilters.default({}),
    sorting: ExpenseSorting,
    pagination: Pagination.default(DEFAULT_PAGE),
  })
  .strict();
export type ExpenseSearch = z.infer<typeof ExpenseSearch>;
export type ExpenseSearchInput = z.input<typeof ExpenseSearch>;

export const ExpenseRow = z
  .object({
    id: z.string(),
    type: z.string().nullable(),
    status: z.string().nullable(),
    description: z.string().nullable(),
    bookingText: z.string().nullable(),
    supplierId: z.string().nullable(),
    supplierName: z.string().nullable(),
    merchantName: z.string().nullable(),
    amount: MinorAmount.nullable(),
    expenseTime: z.string().nullable(),
    fileCount: z.number().int().min(0),
    deletedAt: z.string().nullable(),
    review: ReviewState,
  })
  .strict();
export type ExpenseRow = z.infer<typeof ExpenseRow>;

export const SupplierSearch = z
  .object({
    /** Case-insensitive substring of name, number, VAT id or IBAN (IBAN spaces ignored). */
    text: SearchText.optional(),
    /** Also suppliers deleted on the server (status DELETED) or gone from it. */
    includeDeleted: z.boolean().optional(),
    pagination: Pagination.default(DEFAULT_PAGE),
  })
  .strict();
export type SupplierSearch = z.infer<typeof SupplierSearch>;
export type SupplierSearchInput = z.input<typeof SupplierSearch>;

export const SupplierRow = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    number: z.string().nullable(),
    status: z.string().nullable(),
    vatIdNo: z.string().nullable(),
    iban: z.string().nullable(),
    bic: z.string().nullable(),
    currency: z.string().nullable(),
    deletedAt: z.string().nullable(),
  })
  .strict();
export type SupplierRow = z.infer<typeof SupplierRow>;

/* ---------------------------------------------------------------- expense accounts */

export const ExpenseAccountRow = z
  .object({
    id: z.string(),
    number: z.string().nullable(),
    name: z.string().nullable(),
    status: z.string().nullable(),
  })
  .strict();
export type ExpenseAccountRow = z.infer<typeof ExpenseAccountRow>;

/* ---------------------------------------------------------------- dimensions */

/** Dimensions are few (cost centre, cost carrier, projects, …): listed whole, not paged. */
export const DimensionList = z
  .object({
    /** Also dimensions deleted on the server (status DELETED) or gone from it. */
    includeDeleted: z.boolean().optional(),
  })
  .strict();
export type DimensionListInput = z.input<typeof DimensionList>;

export const DimensionRow = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    code: z.string().nullable(),
    status: z.string().nullable(),
    /** Cost center and cost carrier: not renamed, recoded or deleted; their items can be. */
    system: z.boolean(),
    /** Items not deleted. */
    itemCount: z.number().int(),
    /** An offline edit of the dimension waits in the outbox. */
    editPending: z.boolean(),
    deletedAt: z.string().nullable(),
  })
  .strict();
export type DimensionRow = z.infer<typeof DimensionRow>;

export const DimensionItemSearch = z
  .object({
    /** Left out: the items of every dimension, dimension by dimension. */
    dimensionId: z.string().min(1).max(100).optional(),
    /** Only this item (to name one chosen elsewhere). */
    id: z.string().min(1).max(100).optional(),
    /** Case-insensitive substring of the item's name or code. */
    text: SearchText.optional(),
    includeDeleted: z.boolean().optional(),
    pagination: Pagination.default(DEFAULT_PAGE),
  })
  .strict();
export type DimensionItemSearchInput = z.input<typeof DimensionItemSearch>;

export const DimensionItemRow = z
  .object({
    id: z.string(),
    dimensionId: z.string(),
    name: z.string().nullable(),
    code: z.string().nullable(),
    status: z.string().nullable(),
    editPending: z.boolean(),
    deletedAt: z.string().nullable(),
  })
  .strict();
export type DimensionItemRow = z.infer<typeof DimensionItemRow>;

/** A page of a list whose total is a plain count. */
export function pageResult<T extends z.ZodType>(row: T) {
  return z
    .object({
      rows: z.array(row),
      page: z.number().int(),
      pageSize: z.number().int(),
      total: z.number().int(),
    })
    .strict();
}
export const ExpenseSearchResult = pageResult(ExpenseRow);
export type ExpenseSearchResult = z.infer<typeof ExpenseSearchResult>;
export const SupplierSearchResult = pageResult(SupplierRow);
export type SupplierSearchResult = z.infer<typeof SupplierSearchResult>;
export const DimensionItemSearchResult = pageResult(DimensionItemRow);
export type DimensionItemSearchResult = z.infer<typeof DimensionItemSearchResult>;

/* ---------------------------------------------------------------- review changes */

/** What a review change applies to: some records by id, or every record a search finds. */
export const ReviewTarget = z.discriminatedUnion('by', [
  z
    .object({ by: z.literal('ids'), kind: RecordKind, ids: z.array(z.string().min(1)).min(1).max(10_000) })
    .strict(),
  z.object({ by: z.literal('transactionSearch'), filters: TransactionFilters }).strict(),
  z.object({ by: z.literal('expenseSearch'), filters: ExpenseFilters }).strict(),
]);
export type ReviewTarget = z.infer<typeof ReviewTarget>;

const NoteText = z.string().max(10_000, 'Keep a note under 10,000 characters.');

export const ReviewChange = z.discriminatedUnion('action', [
  z.object({ action: z.literal('setReviewed') }).strict(),
  z.object({ action: z.literal('clearReviewed') }).strict(),
  z
    .object({
      action: z.literal('flag'),
      reason: z.string().trim().min(1, 'Say why the item is flagged.').max(500),
    })
    .strict(),
  z.object({ action: z.literal('unflag') }).strict(),
  /** An empty or null note removes the note. */
  z.object({ action: z.literal('setNote'), note: NoteText.nullable() }).strict(),
  z.object({ action: z.literal('addTags'), tags: z.array(Tag).min(1).max(20) }).strict(),
  z.object({ action: z.literal('removeTags'), tags: z.array(Tag).min(1).max(20) }).strict(),
]);
export type ReviewChange = z.infer<typeof ReviewChange>;
