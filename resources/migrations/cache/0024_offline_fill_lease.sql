CREATE TABLE `offline_fill_lease` (
	`id` integer PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`pid` integer NOT NULL,
	`host` text NOT NULL,
	`taken_at` text NOT NULL,
	`heartbeat_at` text NOT NULL,
	CONSTRAINT "offline_fill_lease_one_row" CHECK("id" = 1)
);
