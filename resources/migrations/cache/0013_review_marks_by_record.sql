-- Review marks stored in the order of their key (kind, record id): a `WITHOUT ROWID` table
-- (hand-written: drizzle cannot declare one; src-main/store/tables/review.ts).
--
-- A bulk change works through its result in the order of the records' ids (review/targets.ts)
-- so that each slice writes one stretch of the marks' pages. As a rowid table, the marks were
-- stored in the order they were first made: marks made one at a time over weeks, a selection,
-- an import or a change made in one statement left that order unrelated to the ids, and every
-- slice then rewrote pages all over the table. Marking 283,292 of a million transactions
-- reviewed took 8.1 s in slices instead of 2.5 (tags 10.2 s instead of 6.3). Keyed storage
-- keeps the ids' order whatever the history (2.6–3.4 s), and drops the separate index the
-- primary key needed. The marks are copied as they are; the copy takes about a second per
-- 300,000 marks at the first start after the update.
CREATE TABLE `review_marks_by_record` (
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
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `review_marks_by_record` (`kind`, `record_id`, `reviewed_at`, `reviewed_changed_at`,
	`flagged`, `flag_reason`, `flag_changed_at`, `note`, `note_changed_at`, `tags_changed_at`, `updated_at`)
SELECT `kind`, `record_id`, `reviewed_at`, `reviewed_changed_at`, `flagged`, `flag_reason`,
	`flag_changed_at`, `note`, `note_changed_at`, `tags_changed_at`, `updated_at`
FROM `review_marks` ORDER BY `kind`, `record_id`;
--> statement-breakpoint
DROP TABLE `review_marks`;
--> statement-breakpoint
ALTER TABLE `review_marks_by_record` RENAME TO `review_marks`;
--> statement-breakpoint
CREATE INDEX `review_marks_reviewed_idx` ON `review_marks` (`kind`,`record_id`) WHERE "reviewed_at" is not null;
--> statement-breakpoint
CREATE INDEX `review_marks_flagged_idx` ON `review_marks` (`kind`,`record_id`) WHERE "flagged" = 1;
--> statement-breakpoint
CREATE INDEX `review_marks_note_idx` ON `review_marks` (`kind`,`record_id`) WHERE "note" is not null;
