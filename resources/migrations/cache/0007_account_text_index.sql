-- (Expression hand-corrected: drizzle-kit splits an index expression at its commas.)
-- The account index also carries the row's free-text value, so free text within one account
-- is tested on the index alone. The expression is exactly the narrow text table's value
-- (0005) and TEXT_VALUE in src-main/store/fts.ts, which the search queries repeat verbatim:
-- SQLite reads an indexed expression from the index only when the query's is the same.
DROP INDEX `bank_transactions_account_matched_idx`;--> statement-breakpoint
CREATE INDEX `bank_transactions_account_text_idx` ON `bank_transactions` (`bank_account_id`,`matched`,`booking_date`,`id`,("id" || char(31) || ifnull("group_id", '') || char(31) || ifnull("counterparty", '') || char(31) || ifnull("bank_account_number", '')));
