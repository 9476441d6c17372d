/** The organisation cache: open it, its schema, and the free-text search helpers. */
export {
  openCache,
  openCacheReader,
  defaultMigrationsDir,
  PAGE_CACHE_KIB,
  refreshAfterWrites,
  refreshStatistics,
  removeStaleSnapshots,
  shippedSchemaVersion,
} from './database';
export type { CacheDb, CacheDrizzle, CacheSchema, OpenCacheOptions } from './database';
export {
  CacheOpenError,
  cacheWriteProblem,
  isCorruption,
  isSqliteError,
  refusedWrite,
  type CacheOpenFailure,
} from './errors';
export {
  EXPENSE_FTS_TABLE,
  EXPENSE_TEXT_TABLE,
  expenseSearchIsConsistent,
  FTS_MIN_CHARS,
  FTS_TABLE,
  ftsLiteral,
  isIndexable,
  likeContains,
  rebuildExpenseSearch,
  rebuildTransactionSearch,
  transactionSearchIsConsistent,
} from './fts';
export { gramBlocksAreConsistent, gramCandidates, refreshGramBlocks } from './gram-blocks';
export { TEXT_TABLE } from './text-table';
export { writeProblem, type WriteProblem } from './writable';
export * from './schema';
export * as schema from './schema';
