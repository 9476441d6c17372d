-- The server's record an edit was made on (`based_on_record`), kept apart from `base`, which a
-- pull replaces with the newest server version (docs/offline-edits.md). An open edit from
-- before this migration gets its `base` where that is still the version it was based on; the
-- others keep null, and a conflict settled with "take theirs" leaves them to conflict as before.
ALTER TABLE `outbox` ADD `based_on_record` text;--> statement-breakpoint
UPDATE `outbox` SET `based_on_record` = `base`
WHERE `status` IN ('pending', 'sending', 'failed', 'conflict')
  AND `base` IS NOT NULL AND `based_on` IS NOT NULL
  AND json_extract(`base`, '$.updateTime') = `based_on`;
