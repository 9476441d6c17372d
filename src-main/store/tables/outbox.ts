import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { integerCheck, jsonCheck, nowIso } from './columns';

/**
 * Offline edits waiting to reach the API (src-main/outbox, docs/offline-edits.md). Each row
 * is one edit of a supplier, dimension or dimension item, applied to the cache when it was
 * made and sent later, in `seq` order.
 *
 * - `operation_id`: a UUID naming the edit in the UI, logs and the CLI.
 * - `record_id`: the record edited. A local create has a provisional id (`local-<uuid>`)
 *   until the server answers; then every row and edit using it is switched to the real id.
 * - `parent_id`: the dimension of a dimension item (provisional too while it is unsent).
 * - `payload`: the request body (JSON), already validated with the API's rules.
 * - `based_on`: the record's `updateTime` the edit was made on; the pusher compares it with
 *   the server's before an update, and a newer server version is a conflict.
 * - `base`: the server's record (JSON) the chain of edits to this record started from, so a
 *   discarded edit can restore the row without the network.
 * - `based_on_record`: the server's record (JSON) at `based_on`, which a pull never replaces:
 *   set against a newer server version, it tells which fields a colleague changed (a conflict
 *   settled with "take theirs" rebases later edits of the record that touch none of them).
 * - `status`: pending → sending (a create on its way: after a crash it is looked up before
 *   being sent again; `claimed_by` names the pusher it is on its way with) → done; or failed (the API refused it, `error_*` say why and on which
 *   field) or conflict (`server_record` holds the newer server version).
 */
export const outbox = sqliteTable(
  'outbox',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    operationId: text('operation_id').notNull().unique(),
    resource: text('resource', { enum: ['supplier', 'dimension', 'dimensionItem'] }).notNull(),
    operation: text('operation', { enum: ['create', 'update'] }).notNull(),
    recordId: text('record_id').notNull(),
    parentId: text('parent_id'),
    payload: text('payload').notNull(),
    basedOn: text('based_on'),
    base: text('base'),
    basedOnRecord: text('based_on_record'),
    status: text('status', { enum: ['pending', 'sending', 'failed', 'conflict', 'done'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    errorField: text('error_field'),
    /** The API's own code for a refusal (its error body's `code`, e.g. `DIMENSION_DELETED`). */
    errorRemoteCode: text('error_remote_code'),
    serverRecord: text('server_record'),
    createdAt: text('created_at').notNull().default(nowIso),
    updatedAt: text('updated_at').notNull().default(nowIso),
    /** When the last attempt to send began. */
    sentAt: text('sent_at'),
    /**
     * The pusher whose request of this edit is on its way (JSON: its id, process id and host),
     * set with `sending` by one conditional UPDATE and cleared when the answer is settled; a
     * claim of a process gone, or from before `sent_at` long ago, is free (outbox/push.ts).
     */
    claimedBy: text('claimed_by'),
    /**
     * The payload of an earlier request of this update that may have reached the server, kept
     * when Edit… replaced the payload of an interrupted update: a server record holding it is
     * the edit's own landing, not a colleague's change (outbox/push.ts). Cleared when claimed.
     */
    sentPayload: text('sent_payload'),
  },
  (t) => [
    check('outbox_resource', sql`"resource" in ('supplier', 'dimension', 'dimensionItem')`),
    check('outbox_operation', sql`"operation" in ('create', 'update')`),
    check('outbox_status', sql`"status" in ('pending', 'sending', 'failed', 'conflict', 'done')`),
    jsonCheck('outbox', 'payload'),
    jsonCheck('outbox', 'base'),
    jsonCheck('outbox', 'server_record'),
    integerCheck('outbox', 'attempts'),
    index('outbox_status_idx').on(t.status, t.seq),
    index('outbox_record_idx').on(t.recordId, t.seq),
    index('outbox_parent_idx').on(t.parentId),
  ],
);

/**
 * Per-organisation settings the API does not expose but the app must know, as JSON values by
 * key. `supplierNumbering`: `"manual"` (the default: supplier creates need `code`) or `"erp"`
 * (the ERP numbers suppliers; creates must omit `code`).
 */
export const organisationSettings = sqliteTable(
  'organisation_settings',
  {
    key: text('key').primaryKey(),
    value: text('value').notNull(),
    updatedAt: text('updated_at').notNull().default(nowIso),
  },
  () => [jsonCheck('organisation_settings', 'value')],
);
