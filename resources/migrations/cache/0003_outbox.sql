CREATE TABLE `organisation_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	CONSTRAINT "organisation_settings_value_json" CHECK("value" is null or json_valid("value"))
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operation_id` text NOT NULL,
	`resource` text NOT NULL,
	`operation` text NOT NULL,
	`record_id` text NOT NULL,
	`parent_id` text,
	`payload` text NOT NULL,
	`based_on` text,
	`base` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error_code` text,
	`error_message` text,
	`error_field` text,
	`server_record` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`sent_at` text,
	CONSTRAINT "outbox_resource" CHECK("resource" in ('supplier', 'dimension', 'dimensionItem')),
	CONSTRAINT "outbox_operation" CHECK("operation" in ('create', 'update')),
	CONSTRAINT "outbox_status" CHECK("status" in ('pending', 'sending', 'failed', 'conflict', 'done')),
	CONSTRAINT "outbox_payload_json" CHECK("payload" is null or json_valid("payload")),
	CONSTRAINT "outbox_base_json" CHECK("base" is null or json_valid("base")),
	CONSTRAINT "outbox_server_record_json" CHECK("server_record" is null or json_valid("server_record")),
	CONSTRAINT "outbox_attempts_integer" CHECK(typeof("attempts") in ('integer', 'null'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_operation_id_unique` ON `outbox` (`operation_id`);--> statement-breakpoint
CREATE INDEX `outbox_status_idx` ON `outbox` (`status`,`seq`);--> statement-breakpoint
CREATE INDEX `outbox_record_idx` ON `outbox` (`record_id`,`seq`);--> statement-breakpoint
CREATE INDEX `outbox_parent_idx` ON `outbox` (`parent_id`);