CREATE TABLE `download_items` (
	`job_id` text NOT NULL,
	`file_id` text NOT NULL,
	`position` integer NOT NULL,
	`relative_path` text NOT NULL,
	`size` integer,
	`sha256` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`source` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`finished_at` text,
	`original_name` text,
	`mime_type` text,
	`expense_id` text,
	`expense_line_id` text,
	`transaction_id` text,
	`booking_date` text,
	`counterparty` text,
	`amount_minor` integer,
	`amount_currency` text,
	`account` text,
	`supplier` text,
	PRIMARY KEY(`job_id`, `file_id`),
	FOREIGN KEY (`job_id`) REFERENCES `download_jobs`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "download_items_status" CHECK("status" in ('pending', 'done', 'failed')),
	CONSTRAINT "download_items_source" CHECK("source" is null or "source" in ('fetched', 'copied', 'present')),
	CONSTRAINT "download_items_position_integer" CHECK(typeof("position") in ('integer', 'null')),
	CONSTRAINT "download_items_size_integer" CHECK(typeof("size") in ('integer', 'null')),
	CONSTRAINT "download_items_attempts_integer" CHECK(typeof("attempts") in ('integer', 'null')),
	CONSTRAINT "download_items_amount_minor_integer" CHECK(typeof("amount_minor") in ('integer', 'null')),
	CONSTRAINT "download_items_amount_currency_code" CHECK("amount_currency" is null or "amount_currency" glob '[A-Z][A-Z][A-Z]'),
	CONSTRAINT "download_items_amount_pair" CHECK(("amount_minor" is null) = ("amount_currency" is null))
);
--> statement-breakpoint
CREATE INDEX `download_items_queue_idx` ON `download_items` (`job_id`,`status`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `download_items_path_unique` ON `download_items` (`job_id`,"relative_path" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `download_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`destination` text NOT NULL,
	`template` text NOT NULL,
	`layout` text NOT NULL,
	`scope` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`manifest` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`finished_at` text,
	CONSTRAINT "download_jobs_layout" CHECK("layout" in ('flat', 'month', 'account', 'supplier')),
	CONSTRAINT "download_jobs_status" CHECK("status" in ('pending', 'running', 'paused', 'completed', 'cancelled')),
	CONSTRAINT "download_jobs_scope_json" CHECK("scope" is null or json_valid("scope"))
);
--> statement-breakpoint
CREATE INDEX `download_jobs_status_idx` ON `download_jobs` (`status`,`created_at`);