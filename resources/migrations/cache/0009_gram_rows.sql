-- Exact row lists for the grams found in few blocks, with each row's booking day (hand-written:
-- triggers and a reset; the lists are computed in src-main/store/gram-rows.ts).
--
-- One or two characters found in a few thousand rows were answered from the gram blocks
-- (0008): every candidate block's rows read and tested, then every match's record read to
-- sort by date, 25-35 ms on a million rows. For a gram set in at most 24,000 blocks this
-- table keeps the exact rows that hold it, ascending, and beside each the row's booking day,
-- so the default order's page is sorted from the list alone. `key` is the gram id of
-- gram-blocks.ts for printable ASCII, or a key of its own for one lower-cased non-ASCII code
-- unit. A list is cut into chunks of 65,536 row_ids (`chunk` is row_id / 65536), so that a
-- sync rewrites only the chunks its rows fall in. `row_ids` is a little-endian float64 per
-- row, `days` an int32 per row: the booking date as YYYYMMDD times two, plus one when the
-- row must still be tested (its text holds a character whose lower case is ASCII, which
-- SQLite's LIKE does not fold), or -1 when the date is not an ISO date.
--
-- Kept with the gram blocks: the lists are exact outside stale blocks, and a refresh
-- recomputes the entries of stale blocks. For that, a block now also goes stale when one of
-- its rows is deleted or changes its booking date.
CREATE TABLE `bank_transaction_gram_rows` (
	`key` integer NOT NULL,
	`chunk` integer NOT NULL,
	`row_ids` blob NOT NULL,
	`days` blob NOT NULL,
	PRIMARY KEY (`key`, `chunk`)
);
--> statement-breakpoint
CREATE TRIGGER `bank_transaction_gram_stale_delete` AFTER DELETE ON `bank_transaction_text` BEGIN
	INSERT INTO bank_transaction_gram_stale (block)
	SELECT old.row_id >> 3
	WHERE NOT EXISTS (SELECT 1 FROM bank_transaction_gram_stale WHERE block = old.row_id >> 3);
END;
--> statement-breakpoint
CREATE TRIGGER `bank_transaction_gram_stale_booking_date`
AFTER UPDATE OF booking_date ON `bank_transactions`
WHEN old.booking_date IS NOT new.booking_date
BEGIN
	INSERT INTO bank_transaction_gram_stale (block)
	SELECT new.row_id >> 3
	WHERE NOT EXISTS (SELECT 1 FROM bank_transaction_gram_stale WHERE block = new.row_id >> 3);
END;
--> statement-breakpoint
-- The lists are built when a gram's blocks become few; a cache migrated from 0008 has no
-- lists, so every bitmap is forgotten and every block stale: the first refresh (at start-up)
-- computes both.
DELETE FROM bank_transaction_grams;
--> statement-breakpoint
INSERT OR IGNORE INTO bank_transaction_gram_stale (block) SELECT row_id >> 3 FROM bank_transaction_text;
--> statement-breakpoint
UPDATE bank_transaction_gram_state SET version = version + 1 WHERE id = 1;
