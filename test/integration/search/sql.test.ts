import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { allRows, prepared } from '../../../src-main/search/sql';

// Rows read as arrays and named in JavaScript, on a real SQLite connection.

const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function connection(): Database.Database {
  const db = new Database(':memory:');
  open.push(db);
  db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, note TEXT, big INTEGER);
    INSERT INTO t VALUES ('a', 1, NULL, 9007199254740991), ('b', -2, 'x,y', 0), ('c', 3, '', NULL);`);
  return db;
}

describe('allRows', () => {
  it('answers what all() answers: the same names, values, order and nulls', () => {
    const db = connection();
    const sql = `SELECT id AS key, n, note, big, n * 2 AS twice FROM t WHERE n > ? ORDER BY id`;
    const expected = db.prepare(sql).all(-5);
    expect(allRows(prepared(db, sql), -5)).toEqual(expected);
    expect(allRows(prepared(db, `SELECT id FROM t WHERE n > @min ORDER BY id`), { min: 1 })).toEqual([
      { id: 'c' },
    ]);
    expect(allRows(prepared(db, sql), 100)).toEqual([]);
  });

  it('leaves the shared statement reading objects, also when the read fails', () => {
    const db = connection();
    const statement = prepared(db, `SELECT id FROM t WHERE n > ? ORDER BY id`);
    allRows(statement, 0);
    expect(statement.all(0)).toEqual([{ id: 'a' }, { id: 'c' }]);
    expect(() => allRows(statement)).toThrow(/parameter/);
    expect(statement.get(2)).toEqual({ id: 'c' });
  });
});
