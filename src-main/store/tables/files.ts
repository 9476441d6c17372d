import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { integerCheck, jsonCheck, leaseColumns, moneyChecks } from './columns';

/**
 * The bulk download queue (src-main/files, docs/files.md). A job is one request of the user:
 * a scope, a destination folder, a naming template and a layout. Its items are fixed when the
 * job is created: every file's relative path is allocated once and stored, so a restart after
 * a kill writes each file under the same name and never numbers a collision differently.
 *
 * - job `status`: pending (created, or found interrupted by a kill) → running → completed
 *   (every item done or failed), or paused / cancelled by the user.
 * - item `status`: pending → done, or failed after its retries (`error` says why); a retry
 *   puts it back to pending. `source` says how a done file arrived: fetched over the network,
 *   copied from the offline file cache, or found already present and verified in place.
 * - The manifest columns (`transaction_id` … `supplier`) are a snapshot taken when the job
 *   was created, so the manifest matches the names the files were given.
 * - item `mtime_ms`: a done file's modification time (integer ms) as last seen intact in the
 *   folder, so that a check finds a file changed in place to other bytes of the same size
 *   (src-main/files/folder.ts); -1 for a file done but not looked at since (learned at the
 *   next check); null for anything not done, and for files an earlier version recorded done
 *   (checked by size only).
 */
export const downloadJobs = sqliteTable(
  'download_jobs',
  {
    id: text('id').primaryKey(),
    destination: text('destination').notNull(),
    template: text('template').notNull(),
    layout: text('layout', { enum: ['flat', 'month', 'account', 'supplier'] }).notNull(),
    scope: text('scope').notNull(),
    status: text('status', { enum: ['pending', 'running', 'paused', 'completed', 'cancelled'] })
      .notNull()
      .default('pending'),
    manifest: text('manifest'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    finishedAt: text('finished_at'),
  },
  (t) => [
    check('download_jobs_layout', sql`"layout" in ('flat', 'month', 'account', 'supplier')`),
    check(
      'download_jobs_status',
      sql`"status" in ('pending', 'running', 'paused', 'completed', 'cancelled')`,
    ),
    jsonCheck('download_jobs', 'scope'),
    index('download_jobs_status_idx').on(t.status, t.createdAt),
  ],
);

export const downloadItems = sqliteTable(
  'download_items',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => downloadJobs.id, { onDelete: 'cascade' }),
    fileId: text('file_id').notNull(),
    position: integer('position').notNull(),
    relativePath: text('relative_path').notNull(),
    size: integer('size'),
    sha256: text('sha256'),
    status: text('status', { enum: ['pending', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    source: text('source', { enum: ['fetched', 'copied', 'present'] }),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    finishedAt: text('finished_at'),
    originalName: text('original_name'),
    mimeType: text('mime_type'),
    expenseId: text('expense_id'),
    expenseLineId: text('expense_line_id'),
    transactionId: text('transaction_id'),
    bookingDate: text('booking_date'),
    counterparty: text('counterparty'),
    amountMinor: integer('amount_minor'),
    amountCurrency: text('amount_currency'),
    account: text('account'),
    supplier: text('supplier'),
    mtimeMs: integer('mtime_ms'),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.fileId] }),
    check('download_items_status', sql`"status" in ('pending', 'done', 'failed')`),
    check('download_items_source', sql`"source" is null or "source" in ('fetched', 'copied', 'present')`),
    integerCheck('download_items', 'position'),
    integerCheck('download_items', 'size'),
    integerCheck('download_items', 'attempts'),
    ...moneyChecks('download_items', 'amount', { nullable: true }),
    index('download_items_queue_idx').on(t.jobId, t.status, t.position),
    uniqueIndex('download_items_path_unique').on(t.jobId, sql`"relative_path" COLLATE NOCASE`),
  ],
);

/**
 * Which process runs a download job now (src-main/files/job-lease.ts, docs/files.md, "One run
 * of a job at a time"): the app and the command line are separate processes on one cache, and
 * two runs of one job would fetch every file twice and write the same `.part` files. A row is
 * taken in a `BEGIN IMMEDIATE` transaction before a run starts and removed when it ends; one
 * whose process is gone, or whose heartbeat is older than the expiry, is taken over.
 */
export const downloadRuns = sqliteTable('download_runs', {
  jobId: text('job_id')
    .primaryKey()
    .references(() => downloadJobs.id, { onDelete: 'cascade' }),
  ...leaseColumns(),
});

/**
 * Which process fills the organisation's offline file cache now (src-main/files/fill-lease.ts,
 * docs/files.md, "Offline file cache"): the app and the command line both fill it after their
 * syncs, and two fills at once would fetch the same files into the same `.part` files and sweep
 * away what the other is writing. One row, taken in a `BEGIN IMMEDIATE` transaction before a
 * fill and removed when it ends; one whose process is gone, or whose heartbeat is older than
 * the expiry, is taken over.
 */
export const offlineFillLease = sqliteTable(
  'offline_fill_lease',
  {
    id: integer('id').primaryKey(),
    ...leaseColumns(),
  },
  () => [check('offline_fill_lease_one_row', sql`"id" = 1`)],
);
