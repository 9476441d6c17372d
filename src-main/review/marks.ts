import type Database from 'better-sqlite3';
import { RecordKind, ReviewChange, ReviewTarget, type ReviewState } from '../../src-shared/search';
import { reviewColumns, reviewJoin, reviewState, type ReviewColumns } from '../search/review-filters';
import { prepared } from '../search/sql';
import type { CacheDb } from '../store';
import { changeParams, changeStatements } from './changes';
import { targetSql } from './targets';
import { needsAttention } from './attention';

/**
 * Review marks: reviewed (with when), flagged with a reason, a note and tags, per
 * transaction and per expense, for explicit ids or for everything a search finds. State lives
 * in review_marks / review_tags (store/tables/review.ts), apart from the synced rows, so every
 * sync and repair keeps it.
 *
 * Bulk changes run as single statements over the target's SELECT inside one transaction: a
 * million-row search result is marked without its ids ever reaching JavaScript, and either
 * every record of the target changes or none does.
 */

export interface ReviewServiceOptions {
  /** The clock that stamps changes (tests pass a fixed one). */
  now?: () => Date;
}

export interface ReviewResult {
  /** Records whose state actually changed (re-marking a reviewed record changes nothing). */
  changed: number;
}

export function applyReview(
  cache: CacheDb,
  target: ReviewTarget,
  change: ReviewChange,
  options: ReviewServiceOptions = {},
): ReviewResult {
  const parsedTarget = ReviewTarget.parse(target);
  const parsedChange = ReviewChange.parse(change);
  const now = (options.now ?? (() => new Date()))().toISOString();
  const sql = targetSql(cache.sqlite, parsedTarget);
  // Each statement names a subset; better-sqlite3 ignores the parameters a statement does not use.
  const params = { ...sql.params, ...changeParams(parsedChange), kind: sql.kind, now };
  const statements = changeStatements(sql, parsedChange);
  return cache.sqlite.transaction(() => {
    let changed = 0;
    for (const statement of statements) {
      const result = prepared(cache.sqlite, statement.sql).run(params);
      if (statement.counts) changed = result.changes;
    }
    return { changed };
  })();
}

const EMPTY: ReviewState = { reviewedAt: null, flagged: false, flagReason: null, note: null, tags: [] };

/** The review state of records by id; records never marked get the empty state. */
export function reviewStates(
  cache: CacheDb,
  kind: RecordKind,
  ids: readonly string[],
): Map<string, ReviewState> {
  RecordKind.parse(kind);
  const statement = statesStatement(cache.sqlite, kind);
  const states = new Map<string, ReviewState>();
  for (const id of ids) {
    const row = statement.get({ id }) as ReviewColumns | undefined;
    states.set(id, row ? reviewState(row) : { ...EMPTY, tags: [] });
  }
  return states;
}

function statesStatement(sqlite: Database.Database, kind: RecordKind) {
  return prepared(
    sqlite,
    `SELECT ${reviewColumns(kind, 'k.id')} FROM (SELECT @id AS id) k ${reviewJoin(kind, 'k.id')}`,
  );
}

/** The review service the core builds once per open cache. */
export function createReviewService(cache: CacheDb, options: ReviewServiceOptions = {}) {
  return {
    apply: (target: ReviewTarget, change: ReviewChange) => applyReview(cache, target, change, options),
    states: (kind: RecordKind, ids: readonly string[]) => reviewStates(cache, kind, ids),
    needsAttention: () => needsAttention(cache),
  };
}
export type ReviewService = ReturnType<typeof createReviewService>;
