-- How many times a row the searches read has really changed (src-main/store/tables/generation.ts):
-- remembered totals, counts and id lists (src-main/search/memo.ts) last while it stays put.
-- SQLite's own change counters move with every write, and a sync writes even when it finds
-- nothing new (its history row, its checkpoints, `synced_at` of every row read again), so a
-- sync that changed nothing dropped totals that take a second to count on a million rows.
--
-- The triggers count an insert, a delete, and an update that changes any column but
-- `synced_at`, on each table a remembered result reads. Lines, line dimensions and fees have
-- none: they are written only with their expense or transaction, from its record, so they
-- change only when its `raw` does. Hand-written (drizzle has no triggers); a migration that
-- adds a column to one of these tables or rebuilds it writes its triggers again
-- (test/integration/search/memo-sync.test.ts checks).
CREATE TABLE `content_generation` (
	`id` integer PRIMARY KEY NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "content_generation_one_row" CHECK("id" = 1)
);
--> statement-breakpoint
INSERT INTO `content_generation` (`id`, `n`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_insert` AFTER INSERT ON `bank_accounts` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_delete` AFTER DELETE ON `bank_accounts` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_accounts_generation_update` AFTER UPDATE ON `bank_accounts`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`name` IS NOT NEW.`name`
  OR OLD.`currency` IS NOT NEW.`currency`
  OR OLD.`funding_type` IS NOT NEW.`funding_type`
  OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`account_number` IS NOT NEW.`account_number`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_transactions_generation_insert` AFTER INSERT ON `bank_transactions` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_transactions_generation_delete` AFTER DELETE ON `bank_transactions` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_transactions_generation_update` AFTER UPDATE ON `bank_transactions`
WHEN OLD.`row_id` IS NOT NEW.`row_id`
  OR OLD.`id` IS NOT NEW.`id`
  OR OLD.`bank_account_id` IS NOT NEW.`bank_account_id`
  OR OLD.`organisation_id` IS NOT NEW.`organisation_id`
  OR OLD.`transaction_type` IS NOT NEW.`transaction_type`
  OR OLD.`amount_minor` IS NOT NEW.`amount_minor`
  OR OLD.`amount_currency` IS NOT NEW.`amount_currency`
  OR OLD.`booking_date` IS NOT NEW.`booking_date`
  OR OLD.`value_date` IS NOT NEW.`value_date`
  OR OLD.`description` IS NOT NEW.`description`
  OR OLD.`counterparty` IS NOT NEW.`counterparty`
  OR OLD.`group_id` IS NOT NEW.`group_id`
  OR OLD.`bank_account_number` IS NOT NEW.`bank_account_number`
  OR OLD.`matched` IS NOT NEW.`matched`
  OR OLD.`create_time` IS NOT NEW.`create_time`
  OR OLD.`update_time` IS NOT NEW.`update_time`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expenses_generation_insert` AFTER INSERT ON `expenses` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expenses_generation_delete` AFTER DELETE ON `expenses` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expenses_generation_update` AFTER UPDATE ON `expenses`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`type` IS NOT NEW.`type`
  OR OLD.`sub_type` IS NOT NEW.`sub_type`
  OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`supplier_id` IS NOT NEW.`supplier_id`
  OR OLD.`description` IS NOT NEW.`description`
  OR OLD.`booking_text` IS NOT NEW.`booking_text`
  OR OLD.`amount_minor` IS NOT NEW.`amount_minor`
  OR OLD.`amount_currency` IS NOT NEW.`amount_currency`
  OR OLD.`home_amount_minor` IS NOT NEW.`home_amount_minor`
  OR OLD.`home_amount_currency` IS NOT NEW.`home_amount_currency`
  OR OLD.`expense_time` IS NOT NEW.`expense_time`
  OR OLD.`merchant_name` IS NOT NEW.`merchant_name`
  OR OLD.`merchant_mcc` IS NOT NEW.`merchant_mcc`
  OR OLD.`merchant_atm` IS NOT NEW.`merchant_atm`
  OR OLD.`first_export_time` IS NOT NEW.`first_export_time`
  OR OLD.`last_export_time` IS NOT NEW.`last_export_time`
  OR OLD.`create_time` IS NOT NEW.`create_time`
  OR OLD.`update_time` IS NOT NEW.`update_time`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
  OR OLD.`bank_transaction_id` IS NOT NEW.`bank_transaction_id`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_files_generation_insert` AFTER INSERT ON `expense_files` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_files_generation_delete` AFTER DELETE ON `expense_files` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_files_generation_update` AFTER UPDATE ON `expense_files`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`expense_id` IS NOT NEW.`expense_id`
  OR OLD.`expense_line_id` IS NOT NEW.`expense_line_id`
  OR OLD.`name` IS NOT NEW.`name`
  OR OLD.`mime_type` IS NOT NEW.`mime_type`
  OR OLD.`size` IS NOT NEW.`size`
  OR OLD.`sha256` IS NOT NEW.`sha256`
  OR OLD.`create_time` IS NOT NEW.`create_time`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
  OR OLD.`local_path` IS NOT NEW.`local_path`
  OR OLD.`local_sha256` IS NOT NEW.`local_sha256`
  OR OLD.`downloaded_at` IS NOT NEW.`downloaded_at`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_accounts_generation_insert` AFTER INSERT ON `expense_accounts` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_accounts_generation_delete` AFTER DELETE ON `expense_accounts` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expense_accounts_generation_update` AFTER UPDATE ON `expense_accounts`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`name` IS NOT NEW.`name`
  OR OLD.`code` IS NOT NEW.`code`
  OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `suppliers_generation_insert` AFTER INSERT ON `suppliers` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `suppliers_generation_delete` AFTER DELETE ON `suppliers` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `suppliers_generation_update` AFTER UPDATE ON `suppliers`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`name` IS NOT NEW.`name`
  OR OLD.`number` IS NOT NEW.`number`
  OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`vat_id_no` IS NOT NEW.`vat_id_no`
  OR OLD.`currency` IS NOT NEW.`currency`
  OR OLD.`iban` IS NOT NEW.`iban`
  OR OLD.`bic` IS NOT NEW.`bic`
  OR OLD.`create_time` IS NOT NEW.`create_time`
  OR OLD.`update_time` IS NOT NEW.`update_time`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
  OR OLD.`local_edit_pending` IS NOT NEW.`local_edit_pending`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `dimensions_generation_insert` AFTER INSERT ON `dimensions` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `dimensions_generation_delete` AFTER DELETE ON `dimensions` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `dimensions_generation_update` AFTER UPDATE ON `dimensions`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`name` IS NOT NEW.`name`
  OR OLD.`code` IS NOT NEW.`code`
  OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`create_time` IS NOT NEW.`create_time`
  OR OLD.`update_time` IS NOT NEW.`update_time`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
  OR OLD.`local_edit_pending` IS NOT NEW.`local_edit_pending`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `dimension_items_generation_insert` AFTER INSERT ON `dimension_items` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `dimension_items_generation_delete` AFTER DELETE ON `dimension_items` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `dimension_items_generation_update` AFTER UPDATE ON `dimension_items`
WHEN OLD.`id` IS NOT NEW.`id`
  OR OLD.`dimension_id` IS NOT NEW.`dimension_id`
  OR OLD.`name` IS NOT NEW.`name`
  OR OLD.`code` IS NOT NEW.`code`
  OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`create_time` IS NOT NEW.`create_time`
  OR OLD.`update_time` IS NOT NEW.`update_time`
  OR OLD.`raw` IS NOT NEW.`raw`
  OR OLD.`deleted_at` IS NOT NEW.`deleted_at`
  OR OLD.`local_edit_pending` IS NOT NEW.`local_edit_pending`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_marks_generation_insert` AFTER INSERT ON `review_marks` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_marks_generation_delete` AFTER DELETE ON `review_marks` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_marks_generation_update` AFTER UPDATE ON `review_marks`
WHEN OLD.`kind` IS NOT NEW.`kind`
  OR OLD.`record_id` IS NOT NEW.`record_id`
  OR OLD.`reviewed_at` IS NOT NEW.`reviewed_at`
  OR OLD.`reviewed_changed_at` IS NOT NEW.`reviewed_changed_at`
  OR OLD.`flagged` IS NOT NEW.`flagged`
  OR OLD.`flag_reason` IS NOT NEW.`flag_reason`
  OR OLD.`flag_changed_at` IS NOT NEW.`flag_changed_at`
  OR OLD.`note` IS NOT NEW.`note`
  OR OLD.`note_changed_at` IS NOT NEW.`note_changed_at`
  OR OLD.`tags_changed_at` IS NOT NEW.`tags_changed_at`
  OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_tags_generation_insert` AFTER INSERT ON `review_tags` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_tags_generation_delete` AFTER DELETE ON `review_tags` BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `review_tags_generation_update` AFTER UPDATE ON `review_tags`
WHEN OLD.`kind` IS NOT NEW.`kind`
  OR OLD.`record_id` IS NOT NEW.`record_id`
  OR OLD.`tag` IS NOT NEW.`tag`
  OR OLD.`added_at` IS NOT NEW.`added_at`
BEGIN
  UPDATE `content_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
