-- Free-text search over expenses (hand-written: triggers and a virtual table).
--
-- An expense's text is its description, booking text and merchant name, and the description of
-- each of its lines (kept only in the line's raw record). Searching it row by row read every
-- expense and, through json_extract, every line: a third of a second to most of a second per
-- new search text with 43,000 expenses. Here the same text is kept as documents, one for
-- the expense itself and one per line, in `expense_text`, and indexed by `expense_text_fts`,
-- an FTS5 trigram index like `bank_transactions_fts` (0001_fts.sql): a quoted phrase of 3 or
-- more characters finds any case-insensitive substring through the index; 1–2 character text
-- is still tested row by row (src-main/search/expenses.ts). The supplier's name is not copied
-- here: suppliers are few, so the search finds the matching suppliers and then their expenses
-- through `expenses_supplier_idx`, and renaming a supplier touches no document.
--
-- `row_id` is an explicit INTEGER PRIMARY KEY (VACUUM never renumbers it), the index's
-- external content key. The triggers on expenses and expense_lines keep the documents, and the
-- triggers on expense_text keep the index; a later migration that recreates expenses or
-- expense_lines (dropping their triggers) must recreate them and run rebuildExpenseSearch
-- (src-main/store/fts.ts).
CREATE TABLE `expense_text` (
	`row_id` integer PRIMARY KEY NOT NULL,
	`expense_id` text NOT NULL,
	-- NULL: the expense's own document; else the line's.
	`line_id` text,
	`description` text,
	`booking_text` text,
	`merchant_name` text
);
--> statement-breakpoint
-- By expense (the triggers; 1–2 character text tests an expense's lines from this index alone).
CREATE INDEX `expense_text_expense_idx` ON `expense_text` (`expense_id`, `line_id`, `description`);
--> statement-breakpoint
CREATE UNIQUE INDEX `expense_text_line_idx` ON `expense_text` (`line_id`) WHERE `line_id` IS NOT NULL;
--> statement-breakpoint
CREATE VIRTUAL TABLE `expense_text_fts` USING fts5(
	description,
	booking_text,
	merchant_name,
	content = 'expense_text',
	content_rowid = 'row_id',
	tokenize = 'trigram case_sensitive 0',
	columnsize = 0
);
--> statement-breakpoint
CREATE TRIGGER `expense_text_fts_insert` AFTER INSERT ON `expense_text` BEGIN
	INSERT INTO expense_text_fts (rowid, description, booking_text, merchant_name)
	VALUES (new.row_id, new.description, new.booking_text, new.merchant_name);
END;
--> statement-breakpoint
-- An external-content 'delete' must be given the OLD values exactly, or the trigrams stay.
CREATE TRIGGER `expense_text_fts_delete` AFTER DELETE ON `expense_text` BEGIN
	INSERT INTO expense_text_fts (expense_text_fts, rowid, description, booking_text, merchant_name)
	VALUES ('delete', old.row_id, old.description, old.booking_text, old.merchant_name);
END;
--> statement-breakpoint
-- Only a change of indexed text touches the index (not a document moving to another expense).
CREATE TRIGGER `expense_text_fts_update`
AFTER UPDATE OF row_id, description, booking_text, merchant_name ON `expense_text`
WHEN old.row_id IS NOT new.row_id
	OR old.description IS NOT new.description
	OR old.booking_text IS NOT new.booking_text
	OR old.merchant_name IS NOT new.merchant_name
BEGIN
	INSERT INTO expense_text_fts (expense_text_fts, rowid, description, booking_text, merchant_name)
	VALUES ('delete', old.row_id, old.description, old.booking_text, old.merchant_name);
	INSERT INTO expense_text_fts (rowid, description, booking_text, merchant_name)
	VALUES (new.row_id, new.description, new.booking_text, new.merchant_name);
END;
--> statement-breakpoint
CREATE TRIGGER `expense_text_expense_insert` AFTER INSERT ON `expenses` BEGIN
	INSERT INTO expense_text (expense_id, line_id, description, booking_text, merchant_name)
	VALUES (new.id, NULL, new.description, new.booking_text, new.merchant_name);
END;
--> statement-breakpoint
-- The expense's own document; its lines' documents go with the lines (the foreign key's
-- cascade fires their delete trigger). An INSERT OR REPLACE of an expense (which deletes and
-- inserts it, firing this trigger with recursive_triggers on) therefore keeps its lines'
-- documents as long as the lines stay.
CREATE TRIGGER `expense_text_expense_delete` AFTER DELETE ON `expenses` BEGIN
	DELETE FROM expense_text WHERE expense_id = old.id AND line_id IS NULL;
END;
--> statement-breakpoint
-- Sync's upserts rewrite every column; only a change of the text (or of the id) costs anything.
CREATE TRIGGER `expense_text_expense_update`
AFTER UPDATE OF id, description, booking_text, merchant_name ON `expenses`
WHEN old.id IS NOT new.id
	OR old.description IS NOT new.description
	OR old.booking_text IS NOT new.booking_text
	OR old.merchant_name IS NOT new.merchant_name
BEGIN
	UPDATE expense_text SET expense_id = new.id WHERE expense_id = old.id AND old.id IS NOT new.id;
	UPDATE expense_text
	SET description = new.description, booking_text = new.booking_text, merchant_name = new.merchant_name
	WHERE expense_id = new.id AND line_id IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_text_line_insert` AFTER INSERT ON `expense_lines` BEGIN
	INSERT INTO expense_text (expense_id, line_id, description)
	VALUES (new.expense_id, new.id, json_extract(new.raw, '$.description'));
END;
--> statement-breakpoint
CREATE TRIGGER `expense_text_line_delete` AFTER DELETE ON `expense_lines` BEGIN
	DELETE FROM expense_text WHERE line_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_text_line_update`
AFTER UPDATE OF id, expense_id, raw ON `expense_lines`
WHEN old.id IS NOT new.id
	OR old.expense_id IS NOT new.expense_id
	OR json_extract(old.raw, '$.description') IS NOT json_extract(new.raw, '$.description')
BEGIN
	UPDATE expense_text
	SET line_id = new.id, expense_id = new.expense_id, description = json_extract(new.raw, '$.description')
	WHERE line_id = old.id;
END;
--> statement-breakpoint
-- Fill from whatever the cache already holds (a cache synced before this migration); the
-- insert trigger above indexes each document.
INSERT INTO expense_text (expense_id, line_id, description, booking_text, merchant_name)
SELECT id, NULL, description, booking_text, merchant_name FROM expenses;
--> statement-breakpoint
INSERT INTO expense_text (expense_id, line_id, description)
SELECT expense_id, id, json_extract(raw, '$.description') FROM expense_lines;
