CREATE TABLE `review_marks` (
	`kind` text NOT NULL,
	`record_id` text NOT NULL,
	`reviewed_at` text,
	`reviewed_changed_at` text,
	`flagged` integer DEFAULT false NOT NULL,
	`flag_reason` text,
	`flag_changed_at` text,
	`note` text,
	`note_changed_at` text,
	`tags_changed_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`kind`, `record_id`),
	CONSTRAINT "review_marks_kind" CHECK("kind" in ('transaction', 'expense')),
	CONSTRAINT "review_marks_flagged_flag" CHECK("flagged" is null or "flagged" in (0, 1)),
	CONSTRAINT "review_marks_flag_reason" CHECK("flagged" = 0 or "flag_reason" is not null)
);
--> statement-breakpoint
CREATE INDEX `review_marks_reviewed_idx` ON `review_marks` (`kind`,`record_id`) WHERE "reviewed_at" is not null;--> statement-breakpoint
CREATE INDEX `review_marks_flagged_idx` ON `review_marks` (`kind`,`record_id`) WHERE "flagged" = 1;--> statement-breakpoint
CREATE INDEX `review_marks_note_idx` ON `review_marks` (`kind`,`record_id`) WHERE "note" is not null;--> statement-breakpoint
CREATE TABLE `review_tags` (
	`kind` text NOT NULL,
	`record_id` text NOT NULL,
	`tag` text NOT NULL,
	`added_at` text NOT NULL,
	CONSTRAINT "review_tags_kind" CHECK("kind" in ('transaction', 'expense'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_tags_unique` ON `review_tags` (`kind`,`record_id`,"tag" COLLATE NOCASE);--> statement-breakpoint
CREATE INDEX `review_tags_tag_idx` ON `review_tags` (`kind`,"tag" COLLATE NOCASE,`record_id`);