-- Which blocks of 8 transactions can hold a one- or two-character text (hand-written:
-- triggers and a back-fill; the bitmaps are computed in src-main/store/gram-blocks.ts).
--
-- The trigram index cannot answer text shorter than three characters, so such text was one
-- pass over the narrow text table (0005): 80-250 ms per page on a million rows for text that
-- is rare or found nowhere. This index keeps, per gram (one character, or a pair of adjacent
-- characters, of the lower-cased narrow text), a bitmap over blocks of 8 row_ids
-- (row_id >> 3): bit b set when block b may hold it. A short text is then tested only on the
-- rows of the blocks its grams share: none for text found nowhere, a few thousand rows for
-- rare text. The bitmaps are a superset by construction, so the answer stays exact: the text
-- is still tested on every row the blocks hold.
--
-- Kept exact by a trigger, without computing grams in SQL: every row written to the narrow
-- text table marks its block stale, and a search treats stale blocks as candidates. The app
-- recomputes stale blocks after each sync and after a migration (refreshGramBlocks), and
-- bumps `version` so other connections reload their copy. A row deleted leaves its bits
-- behind until its block is recomputed: more candidates, never a missed row.
CREATE TABLE `bank_transaction_grams` (
	`gram` integer PRIMARY KEY NOT NULL,
	`blocks` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bank_transaction_gram_stale` (
	`block` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bank_transaction_gram_state` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO bank_transaction_gram_state (id, version) VALUES (1, 0);
--> statement-breakpoint
-- The narrow table is written only by its triggers on bank_transactions (insert, and delete
-- plus insert when a value changes), so every new text passes through here. NOT EXISTS, not
-- INSERT OR IGNORE: inside a trigger the outer statement's conflict policy (an upsert's
-- ABORT) would override the IGNORE.
CREATE TRIGGER `bank_transaction_gram_stale_insert` AFTER INSERT ON `bank_transaction_text` BEGIN
	INSERT INTO bank_transaction_gram_stale (block)
	SELECT new.row_id >> 3
	WHERE NOT EXISTS (SELECT 1 FROM bank_transaction_gram_stale WHERE block = new.row_id >> 3);
END;
--> statement-breakpoint
-- A cache synced before this migration: every block stale until its first refresh.
INSERT OR IGNORE INTO bank_transaction_gram_stale (block) SELECT row_id >> 3 FROM bank_transaction_text;
