import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { jsonCheck, leaseColumns, nowIso } from './columns';

/**
 * Where each resource's pull stands. Written in the same SQLite transaction as the page of
 * records it describes (the page + checkpoint rule): after a crash the checkpoint and the data
 * always agree, so sync resumes without loss or duplicates.
 *
 * - `high_water_mark`: the greatest `updateTime` fully stored (expenses, suppliers).
 * - `cursor`: JSON, where an interrupted pull resumes (e.g. `{ "page": 7, "since": "…" }`).
 * - `window_state`: JSON, the booking-date windows of bank transactions (history done up to
 *   which date, trailing window bounds).
 */
export const syncCheckpoints = sqliteTable(
  'sync_checkpoints',
  {
    resource: text('resource').primaryKey(),
    highWaterMark: text('high_water_mark'),
    cursor: text('cursor'),
    windowState: text('window_state'),
    /** When the resource last finished a full pass. */
    completedAt: text('completed_at'),
    updatedAt: text('updated_at').notNull().default(nowIso),
  },
  () => [jsonCheck('sync_checkpoints', 'cursor'), jsonCheck('sync_checkpoints', 'window_state')],
);

/**
 * One row per sync run, for the sync screen and for support. `counts` is JSON per resource
 * (`{ "bankTransactions": { "written": 120, "deleted": 2 } }`); `errors` a JSON array of
 * `{ resource, recordId?, code, message }`. A run with no `finished_at` and outcome `running`
 * found at start-up was interrupted; the next run marks it so.
 */
export const syncRuns = sqliteTable(
  'sync_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    startedAt: text('started_at').notNull().default(nowIso),
    finishedAt: text('finished_at'),
    outcome: text('outcome', {
      enum: ['running', 'succeeded', 'partial', 'failed', 'cancelled', 'interrupted'],
    })
      .notNull()
      .default('running'),
    counts: text('counts').notNull().default('{}'),
    errors: text('errors').notNull().default('[]'),
  },
  (t) => [
    check(
      'sync_runs_outcome',
      sql`"outcome" in ('running', 'succeeded', 'partial', 'failed', 'cancelled', 'interrupted')`,
    ),
    jsonCheck('sync_runs', 'counts'),
    jsonCheck('sync_runs', 'errors'),
    index('sync_runs_started_idx').on(t.startedAt),
  ],
);

/**
 * Who is syncing the organisation, or pushing its offline edits, now: at most one row. The app
 * and the command line are separate processes on one data folder; a run takes this lease
 * first (in a `BEGIN IMMEDIATE` transaction) and gives it back when it ends, so two never
 * write the same checkpoints, history and edits at once (src-main/sync/lease.ts).
 *
 * - `owner`: the holder, one per core (a process may run several in tests).
 * - `pid`, `host`: the holder's process; a lease whose process is gone is taken over.
 * - `heartbeat_at`: renewed while the run goes on; one not renewed for long is taken over too
 *   (a process id reused by another program, a data folder shared with another machine).
 */
export const syncLease = sqliteTable(
  'sync_lease',
  {
    id: integer('id').primaryKey(),
    ...leaseColumns(),
  },
  () => [check('sync_lease_one_row', sql`"id" = 1`)],
);
