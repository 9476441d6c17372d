import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { deletedAt, flagCheck, integerCheck, jsonCheck, moneyChecks, recordColumns } from './columns';

/** `GET /v1/bank-accounts`: few rows, read in full each sync. */
export const bankAccounts = sqliteTable(
  'bank_accounts',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    currency: text('currency'),
    fundingType: text('funding_type'),
    status: text('status'),
    accountNumber: text('account_number'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  (t) => [jsonCheck('bank_accounts', 'raw'), index('bank_accounts_name_idx').on(t.name)],
);

/**
 * The latest balance of each account (`GET /v1/bank-accounts/{id}/balance`); one row per
 * account, replaced on each sync. It belongs to its account, hence the cascading key.
 */
export const bankAccountBalances = sqliteTable(
  'bank_account_balances',
  {
    bankAccountId: text('bank_account_id')
      .primaryKey()
      .references(() => bankAccounts.id, { onDelete: 'cascade' }),
    balanceMinor: integer('balance_minor').notNull(),
    balanceCurrency: text('balance_currency').notNull(),
    availableBalanceMinor: integer('available_balance_minor'),
    availableBalanceCurrency: text('available_balance_currency'),
    balanceTime: text('balance_time'),
    ...recordColumns(),
  },
  () => [
    ...moneyChecks('bank_account_balances', 'balance', { nullable: false }),
    ...moneyChecks('bank_account_balances', 'available_balance', { nullable: true }),
    jsonCheck('bank_account_balances', 'raw'),
  ],
);

/**
 * Bank transactions: the big table (up to about a million rows per organisation).
 *
 * `row_id` is an explicit INTEGER PRIMARY KEY, i.e. SQLite's rowid, which the external-content
 * FTS index (`bank_transactions_fts`, see the `fts` migration) points at. It must be explicit:
 * VACUUM may renumber an implicit rowid and would silently detach the index. The API's `id`
 * is the record's identity (UNIQUE, the upsert target and the sort tie-break).
 *
 * No foreign key to bank_accounts: the cache mirrors what the API says, in whatever order
 * sync reads it, and an account leaving the list must never cascade away its history.
 *
 * Sort indexes: the UI sorts by any column of `TransactionSortField` with `id` as the
 * tie-break and pages by keyset (`WHERE (col, id) < (?, ?) ORDER BY col DESC, id DESC`), so
 * every sortable column has a `(col, id)` index; SQLite walks it forwards for ASC and
 * backwards for DESC, and never sorts a million rows in a temp b-tree. Filter + sort pairs
 * an accountant uses constantly (one account, matched or not) get `(filter, booking_date, id)`.
 */
export const bankTransactions = sqliteTable(
  'bank_transactions',
  {
    rowId: integer('row_id').primaryKey(),
    id: text('id').notNull(),
    bankAccountId: text('bank_account_id').notNull(),
    organisationId: text('organisation_id'),
    transactionType: text('transaction_type'),
    /** Fees included, as the API reports it. */
    amountMinor: integer('amount_minor').notNull(),
    amountCurrency: text('amount_currency').notNull(),
    bookingDate: text('booking_date').notNull(),
    valueDate: text('value_date'),
    description: text('description'),
    counterparty: text('counterparty'),
    groupId: text('group_id'),
    bankAccountNumber: text('bank_account_number'),
    matched: integer('matched', { mode: 'boolean' }).notNull().default(false),
    createTime: text('create_time'),
    updateTime: text('update_time'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  (t) => [
    uniqueIndex('bank_transactions_id_unique').on(t.id),
    ...moneyChecks('bank_transactions', 'amount', { nullable: false }),
    flagCheck('bank_transactions', 'matched'),
    jsonCheck('bank_transactions', 'raw'),
    // Default list order (booking date desc, id desc) and every other sort column.
    index('bank_transactions_booking_date_idx').on(t.bookingDate, t.id),
    index('bank_transactions_value_date_idx').on(t.valueDate, t.id),
    index('bank_transactions_amount_idx').on(t.amountMinor, t.id),
    index('bank_transactions_counterparty_idx').on(t.counterparty, t.id),
    index('bank_transactions_description_idx').on(t.description, t.id),
    index('bank_transactions_type_idx').on(t.transactionType, t.id),
    // Account and matched filters, served in the default order.
    index('bank_transactions_account_idx').on(t.bankAccountId, t.bookingDate, t.id),
    index('bank_transactions_matched_idx').on(t.matched, t.bookingDate, t.id),
    // One account's unmatched (or matched) rows in the default order, index-only: the
    // accountant's standing question. The index also holds the row's free-text value (the
    // four v0 values joined by U+001F, as in the narrow text table of 0005), so free text
    // within one account is tested on the index alone, never on the table: a text common
    // elsewhere but rare in that account costs one pass over the account's index entries
    // (src-main/search/transaction-page.ts, plan `account-text`). The expression must stay
    // exactly TEXT_VALUE of src-main/store/text-table.ts for SQLite to read it from the index.
    index('bank_transactions_account_text_idx').on(
      t.bankAccountId,
      t.matched,
      t.bookingDate,
      t.id,
      sql`(${t.id} || char(31) || ifnull(${t.groupId}, '') || char(31) || ifnull(${t.counterparty}, '') || char(31) || ifnull(${t.bankAccountNumber}, ''))`,
    ),
    // Totals (count and sum per currency) of the live rows, the list as it opens above all:
    // read from this index alone, never the table (a million rows: 0.1 s against 1.3 s). For
    // those totals only: their query names `deleted_at IS NULL` when the index answers its
    // filters alone (search/transactions.ts, `totalsQuery`); other totals and every page
    // exclude deleted rows with NOT IN and never do, so SQLite cannot pick this index to
    // drive a page of an amount range and sort thousands of rows by date, or walk it for its
    // currency order and look each row up in the table (totals of a year: 6 s).
    // `deleted_at` (always null here) is a column too: SQLite reads a query from an index
    // alone only when every column it names is one.
    index('bank_transactions_totals_idx')
      .on(t.amountCurrency, t.amountMinor, t.deletedAt)
      .where(sql`"deleted_at" is null`),
    // Totals of the filters an accountant sets most (accounts, matched, booking dates,
    // types, with or without currencies and amounts) from the index alone, live rows only:
    // one account of a million rows in about 0.2 s where its entries' lookups in the table took
    // 1.3-1.8 s. Named by the totals' query for those filter sets only (`totalsQuery`), so
    // no page can be driven by it.
    index('bank_transactions_account_totals_idx')
      .on(
        t.bankAccountId,
        t.matched,
        t.bookingDate,
        t.transactionType,
        t.amountCurrency,
        t.amountMinor,
        t.deletedAt,
      )
      .where(sql`"deleted_at" is null`),
    // Opening a transaction shows the others of its group. The account index above also
    // serves sync's trailing-window re-read (account + booking date range).
    index('bank_transactions_group_idx').on(t.groupId),
    // Only the few deleted rows are indexed: "show deleted" and purge queries.
    index('bank_transactions_deleted_idx')
      .on(t.deletedAt)
      .where(sql`"deleted_at" is not null`),
  ],
);

/**
 * The fees of a transaction, in API order. They belong to the transaction (cascade); sync
 * replaces the whole set when it writes the transaction. No `raw`: a fee has no identity of
 * its own and is fully described by its columns and by the transaction's `raw`.
 */
export const bankTransactionFees = sqliteTable(
  'bank_transaction_fees',
  {
    transactionId: text('transaction_id')
      .notNull()
      .references(() => bankTransactions.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    feeType: text('fee_type').notNull(),
    amountMinor: integer('amount_minor').notNull(),
    amountCurrency: text('amount_currency').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.transactionId, t.position] }),
    ...moneyChecks('bank_transaction_fees', 'amount', { nullable: false }),
    integerCheck('bank_transaction_fees', 'position'),
    index('bank_transaction_fees_type_idx').on(t.feeType),
  ],
);
