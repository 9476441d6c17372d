-- Which characters and pairs of characters each account's transactions hold (hand-written:
-- a trigger and a flag; the sets are computed in src-main/store/account-grams.ts).
--
-- Text searched within accounts was answered by reading every index entry of those accounts
-- (the account-text plan): 30-60 ms for the 125,000 unmatched rows of the largest account of
-- a million when the text is found only in other accounts (an IBAN prefix of another wallet,
-- a merchant never paid from this card). Per account a bitmap over the gram ids of
-- gram-blocks.ts for printable ASCII (one character, or two adjacent), a bit set when some
-- row of the account may hold it: an ASCII text with a gram missing from every account asked
-- for matches nothing there, and the search says so without reading a row. Each code unit
-- also counts as every ASCII character a case mapping can make of it (the "i" of "İ", the "k"
-- of the Kelvin sign, the "s" of the long s), so the sets hold whatever SQLite's LIKE, FTS5's
-- folding or JavaScript's toLowerCase can match.
--
-- A superset by construction: the gram refresh adds the grams of every stale block's rows to
-- their account's set and never removes any (a rebuild starts over). A block now also goes
-- stale when one of its rows moves to another account. `account_grams_ready` is 0 until the
-- first refresh has computed every account's set from all its rows.
CREATE TABLE `bank_transaction_account_grams` (
	`account` text PRIMARY KEY NOT NULL,
	`grams` blob NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `bank_transaction_gram_stale_account`
AFTER UPDATE OF bank_account_id ON `bank_transactions`
WHEN old.bank_account_id IS NOT new.bank_account_id
BEGIN
	INSERT INTO bank_transaction_gram_stale (block)
	SELECT new.row_id >> 3
	WHERE NOT EXISTS (SELECT 1 FROM bank_transaction_gram_stale WHERE block = new.row_id >> 3);
END;
--> statement-breakpoint
ALTER TABLE `bank_transaction_gram_state` ADD `account_grams_ready` integer DEFAULT 0 NOT NULL;
