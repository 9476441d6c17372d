CREATE TABLE `bank_account_balances` (
	`bank_account_id` text PRIMARY KEY NOT NULL,
	`balance_minor` integer NOT NULL,
	`balance_currency` text NOT NULL,
	`available_balance_minor` integer,
	`available_balance_currency` text,
	`balance_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`bank_account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "bank_account_balances_balance_minor_integer" CHECK(typeof("balance_minor") in ('integer')),
	CONSTRAINT "bank_account_balances_balance_currency_code" CHECK("balance_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "bank_account_balances_balance_pair" CHECK(("balance_minor" is null) = ("balance_currency" is null)),
	CONSTRAINT "bank_account_balances_available_balance_minor_integer" CHECK(typeof("available_balance_minor") in ('integer', 'null')),
	CONSTRAINT "bank_account_balances_available_balance_currency_code" CHECK("available_balance_currency" is null or "available_balance_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "bank_account_balances_available_balance_pair" CHECK(("available_balance_minor" is null) = ("available_balance_currency" is null)),
	CONSTRAINT "bank_account_balances_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE TABLE `bank_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`currency` text,
	`funding_type` text,
	`status` text,
	`account_number` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "bank_accounts_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `bank_accounts_name_idx` ON `bank_accounts` (`name`);--> statement-breakpoint
CREATE TABLE `bank_transaction_fees` (
	`transaction_id` text NOT NULL,
	`position` integer NOT NULL,
	`fee_type` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`amount_currency` text NOT NULL,
	PRIMARY KEY(`transaction_id`, `position`),
	FOREIGN KEY (`transaction_id`) REFERENCES `bank_transactions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "bank_transaction_fees_amount_minor_integer" CHECK(typeof("amount_minor") in ('integer')),
	CONSTRAINT "bank_transaction_fees_amount_currency_code" CHECK("amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "bank_transaction_fees_amount_pair" CHECK(("amount_minor" is null) = ("amount_currency" is null)),
	CONSTRAINT "bank_transaction_fees_position_integer" CHECK(typeof("position") in ('integer', 'null'))
);
--> statement-breakpoint
CREATE INDEX `bank_transaction_fees_type_idx` ON `bank_transaction_fees` (`fee_type`);--> statement-breakpoint
CREATE TABLE `bank_transactions` (
	`row_id` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`bank_account_id` text NOT NULL,
	`organisation_id` text,
	`transaction_type` text,
	`amount_minor` integer NOT NULL,
	`amount_currency` text NOT NULL,
	`booking_date` text NOT NULL,
	`value_date` text,
	`description` text,
	`counterparty` text,
	`group_id` text,
	`bank_account_number` text,
	`matched` integer DEFAULT false NOT NULL,
	`create_time` text,
	`update_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "bank_transactions_amount_minor_integer" CHECK(typeof("amount_minor") in ('integer')),
	CONSTRAINT "bank_transactions_amount_currency_code" CHECK("amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "bank_transactions_amount_pair" CHECK(("amount_minor" is null) = ("amount_currency" is null)),
	CONSTRAINT "bank_transactions_matched_flag" CHECK("matched" is null or "matched" in (0, 1)),
	CONSTRAINT "bank_transactions_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_transactions_id_unique` ON `bank_transactions` (`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_booking_date_idx` ON `bank_transactions` (`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_value_date_idx` ON `bank_transactions` (`value_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_amount_idx` ON `bank_transactions` (`amount_minor`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_counterparty_idx` ON `bank_transactions` (`counterparty`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_description_idx` ON `bank_transactions` (`description`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_type_idx` ON `bank_transactions` (`transaction_type`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_account_idx` ON `bank_transactions` (`bank_account_id`,`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_matched_idx` ON `bank_transactions` (`matched`,`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_group_idx` ON `bank_transactions` (`group_id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_deleted_idx` ON `bank_transactions` (`deleted_at`) WHERE "deleted_at" is not null;--> statement-breakpoint
CREATE TABLE `expense_files` (
	`id` text PRIMARY KEY NOT NULL,
	`expense_id` text,
	`expense_line_id` text,
	`name` text,
	`mime_type` text,
	`size` integer,
	`sha256` text,
	`create_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	`local_path` text,
	`local_sha256` text,
	`downloaded_at` text,
	CONSTRAINT "expense_files_size_integer" CHECK(typeof("size") in ('integer', 'null')),
	CONSTRAINT "expense_files_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `expense_files_expense_idx` ON `expense_files` (`expense_id`);--> statement-breakpoint
CREATE INDEX `expense_files_line_idx` ON `expense_files` (`expense_line_id`);--> statement-breakpoint
CREATE TABLE `expense_line_dimensions` (
	`line_id` text NOT NULL,
	`position` integer NOT NULL,
	`dimension_id` text NOT NULL,
	`dimension_item_id` text,
	PRIMARY KEY(`line_id`, `position`),
	FOREIGN KEY (`line_id`) REFERENCES `expense_lines`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "expense_line_dimensions_position_integer" CHECK(typeof("position") in ('integer', 'null'))
);
--> statement-breakpoint
CREATE INDEX `expense_line_dimensions_item_idx` ON `expense_line_dimensions` (`dimension_id`,`dimension_item_id`);--> statement-breakpoint
CREATE TABLE `expense_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`expense_id` text NOT NULL,
	`position` integer NOT NULL,
	`type` text,
	`sub_type` text,
	`parent_line_id` text,
	`expense_account_id` text,
	`tax_rate_id` text,
	`net_amount_minor` integer,
	`net_amount_currency` text,
	`gross_amount_minor` integer,
	`gross_amount_currency` text,
	`vat_amount_minor` integer,
	`vat_amount_currency` text,
	`home_amount_minor` integer,
	`home_amount_currency` text,
	`raw` text NOT NULL,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "expense_lines_net_amount_minor_integer" CHECK(typeof("net_amount_minor") in ('integer', 'null')),
	CONSTRAINT "expense_lines_net_amount_currency_code" CHECK("net_amount_currency" is null or "net_amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "expense_lines_net_amount_pair" CHECK(("net_amount_minor" is null) = ("net_amount_currency" is null)),
	CONSTRAINT "expense_lines_gross_amount_minor_integer" CHECK(typeof("gross_amount_minor") in ('integer', 'null')),
	CONSTRAINT "expense_lines_gross_amount_currency_code" CHECK("gross_amount_currency" is null or "gross_amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "expense_lines_gross_amount_pair" CHECK(("gross_amount_minor" is null) = ("gross_amount_currency" is null)),
	CONSTRAINT "expense_lines_vat_amount_minor_integer" CHECK(typeof("vat_amount_minor") in ('integer', 'null')),
	CONSTRAINT "expense_lines_vat_amount_currency_code" CHECK("vat_amount_currency" is null or "vat_amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "expense_lines_vat_amount_pair" CHECK(("vat_amount_minor" is null) = ("vat_amount_currency" is null)),
	CONSTRAINT "expense_lines_home_amount_minor_integer" CHECK(typeof("home_amount_minor") in ('integer', 'null')),
	CONSTRAINT "expense_lines_home_amount_currency_code" CHECK("home_amount_currency" is null or "home_amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "expense_lines_home_amount_pair" CHECK(("home_amount_minor" is null) = ("home_amount_currency" is null)),
	CONSTRAINT "expense_lines_position_integer" CHECK(typeof("position") in ('integer', 'null')),
	CONSTRAINT "expense_lines_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `expense_lines_expense_idx` ON `expense_lines` (`expense_id`,`position`);--> statement-breakpoint
CREATE INDEX `expense_lines_parent_idx` ON `expense_lines` (`parent_line_id`);--> statement-breakpoint
CREATE INDEX `expense_lines_account_idx` ON `expense_lines` (`expense_account_id`);--> statement-breakpoint
CREATE INDEX `expense_lines_tax_rate_idx` ON `expense_lines` (`tax_rate_id`);--> statement-breakpoint
CREATE TABLE `expenses` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text,
	`sub_type` text,
	`status` text,
	`supplier_id` text,
	`description` text,
	`booking_text` text,
	`amount_minor` integer,
	`amount_currency` text,
	`home_amount_minor` integer,
	`home_amount_currency` text,
	`expense_time` text,
	`merchant_name` text,
	`merchant_mcc` text,
	`merchant_atm` integer,
	`first_export_time` text,
	`last_export_time` text,
	`create_time` text,
	`update_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "expenses_amount_minor_integer" CHECK(typeof("amount_minor") in ('integer', 'null')),
	CONSTRAINT "expenses_amount_currency_code" CHECK("amount_currency" is null or "amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "expenses_amount_pair" CHECK(("amount_minor" is null) = ("amount_currency" is null)),
	CONSTRAINT "expenses_home_amount_minor_integer" CHECK(typeof("home_amount_minor") in ('integer', 'null')),
	CONSTRAINT "expenses_home_amount_currency_code" CHECK("home_amount_currency" is null or "home_amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "expenses_home_amount_pair" CHECK(("home_amount_minor" is null) = ("home_amount_currency" is null)),
	CONSTRAINT "expenses_merchant_atm_flag" CHECK("merchant_atm" is null or "merchant_atm" in (0, 1)),
	CONSTRAINT "expenses_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `expenses_update_time_idx` ON `expenses` (`update_time`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_expense_time_idx` ON `expenses` (`expense_time`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_supplier_idx` ON `expenses` (`supplier_id`);--> statement-breakpoint
CREATE INDEX `expenses_status_idx` ON `expenses` (`status`,`expense_time`,`id`);--> statement-breakpoint
CREATE TABLE `departments` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`code` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "departments_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE TABLE `dimension_items` (
	`id` text PRIMARY KEY NOT NULL,
	`dimension_id` text NOT NULL,
	`name` text,
	`code` text,
	`status` text,
	`create_time` text,
	`update_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	`local_edit_pending` integer DEFAULT false NOT NULL,
	CONSTRAINT "dimension_items_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `dimension_items_dimension_idx` ON `dimension_items` (`dimension_id`,"name" COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE INDEX `dimension_items_code_idx` ON `dimension_items` (`dimension_id`,`code`);--> statement-breakpoint
CREATE TABLE `dimensions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`code` text,
	`status` text,
	`create_time` text,
	`update_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	`local_edit_pending` integer DEFAULT false NOT NULL,
	CONSTRAINT "dimensions_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `dimensions_name_idx` ON `dimensions` ("name" COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE TABLE `expense_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`code` text,
	`status` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "expense_accounts_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `expense_accounts_code_idx` ON `expense_accounts` (`code`);--> statement-breakpoint
CREATE TABLE `payment_terms` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "payment_terms_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE TABLE `suppliers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`number` text,
	`status` text,
	`vat_id_no` text,
	`currency` text,
	`iban` text,
	`bic` text,
	`create_time` text,
	`update_time` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	`local_edit_pending` integer DEFAULT false NOT NULL,
	CONSTRAINT "suppliers_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `suppliers_name_idx` ON `suppliers` ("name" COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_number_idx` ON `suppliers` (`number`);--> statement-breakpoint
CREATE INDEX `suppliers_update_time_idx` ON `suppliers` (`update_time`,`id`);--> statement-breakpoint
CREATE TABLE `tax_rates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`code` text,
	`type` text,
	`rate` text,
	`status` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "tax_rates_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `tax_rates_type_idx` ON `tax_rates` (`type`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "teams_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`email` text,
	`status` text,
	`raw` text NOT NULL,
	`synced_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`deleted_at` text,
	CONSTRAINT "users_raw_json" CHECK("raw" is null or json_valid("raw"))
);
--> statement-breakpoint
CREATE INDEX `users_name_idx` ON `users` ("name" COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE TABLE `sync_checkpoints` (
	`resource` text PRIMARY KEY NOT NULL,
	`high_water_mark` text,
	`cursor` text,
	`window_state` text,
	`completed_at` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	CONSTRAINT "sync_checkpoints_cursor_json" CHECK("cursor" is null or json_valid("cursor")),
	CONSTRAINT "sync_checkpoints_window_state_json" CHECK("window_state" is null or json_valid("window_state"))
);
--> statement-breakpoint
CREATE TABLE `sync_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`started_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`finished_at` text,
	`outcome` text DEFAULT 'running' NOT NULL,
	`counts` text DEFAULT '{}' NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	CONSTRAINT "sync_runs_outcome" CHECK("outcome" in ('running', 'succeeded', 'partial', 'failed', 'cancelled', 'interrupted')),
	CONSTRAINT "sync_runs_counts_json" CHECK("counts" is null or json_valid("counts")),
	CONSTRAINT "sync_runs_errors_json" CHECK("errors" is null or json_valid("errors"))
);
--> statement-breakpoint
CREATE INDEX `sync_runs_started_idx` ON `sync_runs` (`started_at`);