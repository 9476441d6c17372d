CREATE TABLE `download_runs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`pid` integer NOT NULL,
	`host` text NOT NULL,
	`taken_at` text NOT NULL,
	`heartbeat_at` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `download_jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
