-- The payload of an earlier request of an update that may have reached the server
-- (`sent_payload`), kept when Edit… replaces the payload of an interrupted update: the push then
-- takes a server record holding it for the edit's own landing, not a colleague's change, and
-- sends the new value on top of it (src-main/outbox/push.ts, docs/offline-edits.md).
ALTER TABLE `outbox` ADD `sent_payload` text;
