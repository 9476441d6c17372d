-- One organisation is synced (or its offline edits pushed) by one process at a time: the app and
-- the command line share the data folder (src-main/sync/lease.ts, docs/sync.md).
CREATE TABLE `sync_lease` (
	`id` integer PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`pid` integer NOT NULL,
	`host` text NOT NULL,
	`taken_at` text NOT NULL,
	`heartbeat_at` text NOT NULL,
	CONSTRAINT "sync_lease_one_row" CHECK("id" = 1)
);
