/**
 * The cache schema: one SQLite file per connected organisation. drizzle-kit reads this file
 * (drizzle.config.ts) to generate the migrations in resources/migrations/cache; the FTS index
 * and its triggers live in a hand-written migration because drizzle has no virtual tables.
 * docs/store.md describes the tables and the rules they follow.
 */
export * from './tables/bank';
export * from './tables/expenses';
export * from './tables/reference';
export * from './tables/sync';
export * from './tables/review';
export * from './tables/outbox';
export * from './tables/files';
export * from './tables/generation';
