import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/**
 * One row, one number: how many times a row the searches read has really changed. Triggers on
 * those tables (migration 0018) count every insert, delete and update that changes a column
 * other than `synced_at`, whoever writes (a sync, an edit, a review mark, a repair, a file
 * download) and on whichever connection. Remembered search results (search/memo.ts) last
 * while it stays put: a sync that reads everything again and finds it as it was keeps them.
 */
export const contentGeneration = sqliteTable(
  'content_generation',
  {
    id: integer('id').primaryKey(),
    n: integer('n').notNull().default(0),
  },
  () => [check('content_generation_one_row', sql`"id" = 1`)],
);
