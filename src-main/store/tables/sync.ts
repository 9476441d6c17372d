import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { jsonCheck, nowIso } from './columns';

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
