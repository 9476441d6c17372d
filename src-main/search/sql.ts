import type Database from 'better-sqlite3';

/**
 * Small SQL building blocks of the search and review services. Queries are hand-written SQL
 * with named parameters (`@name`): the shapes (FTS subqueries, upserts from SELECT, keyed
 * page subqueries) are clearer as SQL than through a query builder, and every value still
 * travels as a bound parameter, never inside the SQL text.
 */

export type Params = Record<string, unknown>;

/** A piece of SQL and the parameters it names. */
export interface SqlPart {
  sql: string;
  params: Params;
}

/** ANDs the parts; no parts is `1` (true). */
export function allOf(parts: SqlPart[]): SqlPart {
  if (parts.length === 0) return { sql: '1', params: {} };
  return {
    sql: parts.map((part) => `(${part.sql})`).join(' AND '),
    params: Object.assign({}, ...parts.map((part) => part.params)) as Params,
  };
}

/**
 * `@prefix0, @prefix1, …` for an IN list, with the parameters. SQLite accepts `IN ()`, which
 * is false: an empty list matches nothing. Literal parameter lists (not json_each) let the
 * planner see how many values there are and look each one up in an index.
 */
export function inList(prefix: string, values: readonly unknown[]): SqlPart {
  const params: Params = {};
  const names = values.map((value, i) => {
    params[`${prefix}${i}`] = value;
    return `@${prefix}${i}`;
  });
  return { sql: `(${names.join(', ')})`, params };
}

/** An id as given, in lower case and in upper case: API ids are hex, so that is case-insensitive. */
export function caseVariants(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((value) => [value, value.toLowerCase(), value.toUpperCase()]))];
}

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();
const STATEMENT_CACHE = 200;

/** Prepares once per connection and SQL text (searches repeat the same few shapes). */
export function prepared(sqlite: Database.Database, text: string): Database.Statement {
  let cache = statements.get(sqlite);
  if (!cache) statements.set(sqlite, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) {
    statement = sqlite.prepare(text);
    if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value as string);
    cache.set(text, statement);
  }
  return statement;
}

/** Offset of a page (pages count from 1). */
export function offsetOf(page: { page: number; pageSize: number }): number {
  return (page.page - 1) * page.pageSize;
}

/** A SQLite integer read as bigint, as a safe JS number; an unsafe one is an error, never rounded. */
export function safeNumber(value: bigint | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new RangeError(`The sum ${String(value)} is too large to show exactly.`);
  return n;
}
