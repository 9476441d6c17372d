-- A done file's modification time as last seen intact (`mtime_ms`), so that a check of the
-- folder re-reads a file of the right size whose time moved and finds one changed in place
-- (docs/files.md). Files an earlier version recorded done keep null: checked by size only.
ALTER TABLE `download_items` ADD `mtime_ms` integer;
