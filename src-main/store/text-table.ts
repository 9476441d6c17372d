/**
 * The narrow text table's name and value, shared by the code that keeps its indexes
 * (fts.ts, gram-blocks.ts) and the searches that read it (src-main/search).
 */

/**
 * The narrow text table (migration `0005_transaction_text.sql`): per transaction, the four v0
 * free-text values joined by U+001F, for searches that test text row by row.
 */
export const TEXT_TABLE = 'bank_transaction_text';

/** The separator between the values in {@link TEXT_TABLE}; a needle holding it cannot use it. */
export const TEXT_SEPARATOR = '\u001f';

/**
 * A transaction's free-text value as SQL over the table aliased `t`: the narrow text table's
 * value, and the last key of `bank_transactions_account_text_idx` (migration 0007), where
 * SQLite reads it from the index because a query spells it exactly so.
 */
export const TEXT_VALUE = (t: string) =>
  `${t}.id || char(31) || ifnull(${t}.group_id, '') || char(31) || ifnull(${t}.counterparty, '') || char(31) || ifnull(${t}.bank_account_number, '')`;
