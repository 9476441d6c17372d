import { sql } from 'drizzle-orm';
import { check, integer, text } from 'drizzle-orm/sqlite-core';

/**
 * Column helpers shared by every cache table, so that the house rules are written once:
 * money is integer minor units beside its currency, every API record keeps its raw JSON,
 * and booleans, counts and JSON columns are checked by SQLite itself, not only by TypeScript.
 *
 * CHECK constraints name columns unqualified (`"amount_minor"`, not `"t"."amount_minor"`):
 * SQLite resolves them against the table being written, and drizzle-kit copies them verbatim.
 */

const quoted = (column: string) => sql.raw(`"${column.replaceAll('"', '""')}"`);

/** ISO 8601 UTC with milliseconds, the shape of `new Date().toISOString()`. */
export const nowIso = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

/**
 * The money rule, enforced by SQLite, for a pair of columns `<prefix>_minor` INTEGER and
 * `<prefix>_currency` TEXT (minor units fit a JS number up to 2^53, about 90 trillion EUR):
 * the minor amount is stored as an INTEGER (a REAL such as
 * 12.5, or text that is not a whole number, is rejected; INTEGER affinity alone would keep
 * 12.5 as REAL), the currency is three upper-case letters, and amount and currency are both
 * present or both absent.
 */
export function moneyChecks(table: string, prefix: string, options: { nullable: boolean }) {
  const minor = quoted(`${prefix}_minor`);
  const currency = quoted(`${prefix}_currency`);
  const allowed = options.nullable ? sql.raw(`('integer', 'null')`) : sql.raw(`('integer')`);
  return [
    check(`${table}_${prefix}_minor_integer`, sql`typeof(${minor}) in ${allowed}`),
    check(
      `${table}_${prefix}_currency_code`,
      options.nullable
        ? sql`${currency} is null or ${currency} glob '[A-Z][A-Z][A-Z]'`
        : sql`${currency} glob '[A-Z][A-Z][A-Z]'`,
    ),
    check(`${table}_${prefix}_pair`, sql`(${minor} is null) = (${currency} is null)`),
  ];
}

/** A 0/1 flag; SQLite has no boolean, so the check keeps 2 or 'yes' out. */
export function flagCheck(table: string, column: string) {
  const c = quoted(column);
  return check(`${table}_${column}_flag`, sql`${c} is null or ${c} in (0, 1)`);
}

/** A whole number (counts, sizes); rejects REAL and text just like money. */
export function integerCheck(table: string, column: string) {
  return check(`${table}_${column}_integer`, sql`typeof(${quoted(column)}) in ('integer', 'null')`);
}

/** A JSON text column (raw records, checkpoint state, run counts) must hold valid JSON. */
export function jsonCheck(table: string, column: string) {
  const c = quoted(column);
  return check(`${table}_${column}_json`, sql`${c} is null or json_valid(${c})`);
}

/**
 * Columns every table of API records has:
 * - `raw`: the record exactly as the API sent it (JSON text). The parsed columns are for
 *   querying; `raw` is the authority, keeps members the app does not parse yet (deprecated
 *   ids, new fields) and lets a later migration back-fill a new column without a re-sync.
 * - `synced_at`: when a sync last wrote the row; a re-read window marks rows it did not see.
 */
export function recordColumns() {
  return {
    raw: text('raw').notNull(),
    syncedAt: text('synced_at').notNull().default(nowIso),
  };
}

/** For records that can vanish upstream: set when sync learns the record is gone. */
export function deletedAt() {
  return text('deleted_at');
}

/**
 * For resources the app can edit offline. The outbox sets it while an edit is unsent; sync
 * must never overwrite a row where it is 1 (the upsert's WHERE says so).
 */
export function localEditPending() {
  return integer('local_edit_pending', { mode: 'boolean' }).notNull().default(false);
}

/**
 * The holder of a lease held in a row (src-main/sync/row-lease.ts): `sync_lease`,
 * `download_runs`, `offline_fill_lease`. `owner` is one per holder (a process may hold several
 * in tests); `pid` and `host` say whether its process is gone; `heartbeat_at` is renewed while
 * it holds it, and one not renewed for long is taken over.
 */
export function leaseColumns() {
  return {
    owner: text('owner').notNull(),
    pid: integer('pid').notNull(),
    host: text('host').notNull(),
    takenAt: text('taken_at').notNull(),
    heartbeatAt: text('heartbeat_at').notNull(),
  };
}
