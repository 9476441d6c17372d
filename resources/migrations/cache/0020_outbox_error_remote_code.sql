-- The API's own code for a refused offline edit (its error body's `code`, such as
-- `DIMENSION_DELETED`), kept beside the app's `error_code` so the window and the CLI can show it
-- (docs/offline-edits.md). Edits refused before this migration have none.
ALTER TABLE `outbox` ADD `error_remote_code` text;
