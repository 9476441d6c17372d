-- Free-text search over bank transactions (hand-written: drizzle has no virtual tables).
--
-- The v0 search's freeText is a case-insensitive SUBSTRING of id, groupId, counterparty or
-- bankAccountNumber; the app adds description. The trigram tokenizer indexes every 3-character
-- window of those columns, so `bank_transactions_fts MATCH '"text"'` (a quoted phrase; see
-- ftsLiteral in src-main/store/fts.ts) finds any substring of 3 or more characters through the
-- index, case-insensitively (case_sensitive 0). Text of 1 or 2 characters has no trigram and
-- matches nothing here: the query falls back to a LIKE scan of the table (ftsLiteral's
-- callers check isIndexable). No diacritics folding: "Muller" does not find "Müller", which
-- keeps the index and the LIKE fallback in agreement.
--
-- External content (content='bank_transactions'): the index stores no copy of the text, only
-- the trigrams, keyed by bank_transactions.row_id, an explicit INTEGER PRIMARY KEY so VACUUM
-- can never renumber it. The triggers below keep it in sync; the index is only as right as
-- they are, so any later migration that recreates bank_transactions (drizzle-kit does so for
-- some column changes, dropping its triggers) must recreate them and run 'rebuild'.
-- columnsize=0: results are ordered by table columns, never by rank, so no per-row sizes.
CREATE VIRTUAL TABLE `bank_transactions_fts` USING fts5(
	id,
	group_id,
	counterparty,
	bank_account_number,
	description,
	content = 'bank_transactions',
	content_rowid = 'row_id',
	tokenize = 'trigram case_sensitive 0',
	columnsize = 0
);
--> statement-breakpoint
CREATE TRIGGER `bank_transactions_fts_insert` AFTER INSERT ON `bank_transactions` BEGIN
	INSERT INTO bank_transactions_fts (rowid, id, group_id, counterparty, bank_account_number, description)
	VALUES (new.row_id, new.id, new.group_id, new.counterparty, new.bank_account_number, new.description);
END;
--> statement-breakpoint
-- An external-content 'delete' must be given the OLD values exactly, or the trigrams stay.
-- INSERT OR REPLACE deletes the old row without firing this trigger unless recursive_triggers
-- is on; openCache turns it on, and sync upserts with ON CONFLICT DO UPDATE anyway.
CREATE TRIGGER `bank_transactions_fts_delete` AFTER DELETE ON `bank_transactions` BEGIN
	INSERT INTO bank_transactions_fts (bank_transactions_fts, rowid, id, group_id, counterparty, bank_account_number, description)
	VALUES ('delete', old.row_id, old.id, old.group_id, old.counterparty, old.bank_account_number, old.description);
END;
--> statement-breakpoint
-- Only a change of an indexed value touches the index: a sync upsert that rewrites every
-- column but only flips `matched` (the trailing window re-read, thousands of rows) costs no
-- FTS work. IS NOT compares NULLs as values.
CREATE TRIGGER `bank_transactions_fts_update`
AFTER UPDATE OF row_id, id, group_id, counterparty, bank_account_number, description ON `bank_transactions`
WHEN old.row_id IS NOT new.row_id
	OR old.id IS NOT new.id
	OR old.group_id IS NOT new.group_id
	OR old.counterparty IS NOT new.counterparty
	OR old.bank_account_number IS NOT new.bank_account_number
	OR old.description IS NOT new.description
BEGIN
	INSERT INTO bank_transactions_fts (bank_transactions_fts, rowid, id, group_id, counterparty, bank_account_number, description)
	VALUES ('delete', old.row_id, old.id, old.group_id, old.counterparty, old.bank_account_number, old.description);
	INSERT INTO bank_transactions_fts (rowid, id, group_id, counterparty, bank_account_number, description)
	VALUES (new.row_id, new.id, new.group_id, new.counterparty, new.bank_account_number, new.description);
END;
--> statement-breakpoint
-- Index whatever the table already holds (nothing on a new cache; correct either way).
INSERT INTO bank_transactions_fts (bank_transactions_fts) VALUES ('rebuild');
