-- Which pusher has an offline edit on its way (`claimed_by`): marking an edit `sending` is one
-- conditional UPDATE that only one pusher can win, so two pushers (two processes, even without
-- the sync lease) never send one edit twice. Null for every edit from before: free, as a
-- `sending` edit left by a crash is (src-main/outbox/push.ts, docs/offline-edits.md).
ALTER TABLE `outbox` ADD `claimed_by` text;
