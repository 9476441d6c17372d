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

const columnNames = new WeakMap<Database.Statement, string[]>();

/**
 * Every row of a (reading) statement as an object keyed by its column names, like `all`, but
 * read as arrays and named here: better-sqlite3 builds each row object one property at a time
 * in native code, which for long lists of wide rows costs about as much again as reading them
 * (2,071 download items of 21 columns: 18 ms as objects, 11 ms this way).
 */
export function allRows<T>(statement: Database.Statement, ...params: unknown[]): T[] {
  let keys = columnNames.get(statement);
  if (!keys) columnNames.set(statement, (keys = statement.columns().map((column) => column.name)));
  let rows: unknown[][];
  try {
    rows = statement.raw(true).all(...params) as unknown[][];
  } finally {
    statement.raw(false); // the statement is shared (prepared): leave it as it was
  }
  const width = keys.length;
  return rows.map((row) => {
    const named: Record<string, unknown> = {};
    for (let i = 0; i < width; i += 1) named[keys[i]!] = row[i];
    return named as T;
  });
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
