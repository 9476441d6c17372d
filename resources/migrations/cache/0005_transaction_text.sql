-- The v0 free-text columns of each transaction in one narrow row (hand-written: triggers).
--
-- freeText is a substring of id, group_id, counterparty or bank_account_number. Testing it row
-- by row on bank_transactions reads a wide record (raw JSON and all) per row; this table keeps
-- only the four values, joined by U+001F (unit separator), about 120 bytes a row, so a search
-- that tests text row by row (the page planner's window, one- and two-character text) reads
-- a small B-tree and one LIKE per row instead of four. A needle that could span two values
-- (one holding U+001F) is tested on the columns themselves (src-main/search/transaction-where.ts).
--
-- Keyed by bank_transactions.row_id like the FTS index, and kept by the triggers below; like
-- the FTS triggers, a later migration that rebuilds bank_transactions must recreate them and
-- refill the table (rebuildTransactionSearch in src-main/store/fts.ts does both indexes).
CREATE TABLE `bank_transaction_text` (
	`row_id` integer PRIMARY KEY NOT NULL,
	`text` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `bank_transaction_text_insert` AFTER INSERT ON `bank_transactions` BEGIN
	INSERT INTO bank_transaction_text (row_id, text)
	VALUES (new.row_id, new.id || char(31) || ifnull(new.group_id, '') || char(31) || ifnull(new.counterparty, '') || char(31) || ifnull(new.bank_account_number, ''));
END;
--> statement-breakpoint
-- INSERT OR REPLACE on bank_transactions fires this only with recursive_triggers on, which
-- openCache sets (see 0001_fts.sql).
CREATE TRIGGER `bank_transaction_text_delete` AFTER DELETE ON `bank_transactions` BEGIN
	DELETE FROM bank_transaction_text WHERE row_id = old.row_id;
END;
--> statement-breakpoint
-- Only a change of one of the four values (or of row_id) touches the table: sync's upserts
-- that only flip `matched` cost nothing here.
CREATE TRIGGER `bank_transaction_text_update`
AFTER UPDATE OF row_id, id, group_id, counterparty, bank_account_number ON `bank_transactions`
WHEN old.row_id IS NOT new.row_id
	OR old.id IS NOT new.id
	OR old.group_id IS NOT new.group_id
	OR old.counterparty IS NOT new.counterparty
	OR old.bank_account_number IS NOT new.bank_account_number
BEGIN
	DELETE FROM bank_transaction_text WHERE row_id = old.row_id;
	INSERT INTO bank_transaction_text (row_id, text)
	VALUES (new.row_id, new.id || char(31) || ifnull(new.group_id, '') || char(31) || ifnull(new.counterparty, '') || char(31) || ifnull(new.bank_account_number, ''));
END;
--> statement-breakpoint
-- Fill from whatever the table already holds (a cache synced before this migration).
INSERT INTO bank_transaction_text (row_id, text)
SELECT row_id, id || char(31) || ifnull(group_id, '') || char(31) || ifnull(counterparty, '') || char(31) || ifnull(bank_account_number, '')
FROM bank_transactions;
