import type Database from 'better-sqlite3';
import type { z } from 'zod';
import type { ApiClient } from '../api/client';
import type { CacheDb } from '../store';

/** A record the sync could not store, named by id and field so a person can find it. */
export interface RecordError {
  /** The resource; empty for a problem of the run as a whole (its history could not be written). */
  resource: string;
  recordId?: string;
  field?: string;
  code: string;
  message: string;
}

export interface CheckpointState {
  highWaterMark: string | null;
  cursor: unknown;
  windowState: unknown;
  completedAt: string | null;
}

export type Tx = Parameters<Parameters<CacheDb['db']['transaction']>[0]>[0];

/** What a resource module gets from the engine for one pull. */
export interface ResourceContext {
  readonly resource: string;
  readonly client: ApiClient;
  readonly cache: CacheDb;
  readonly signal: AbortSignal;
  /** A repair: ignore checkpoints and read everything again. */
  readonly full: boolean;
  readonly trailingDays: number;
  now(): Date;
  checkpoint(): CheckpointState | null;
  /**
   * Writes one page and the resource's checkpoint in one SQLite transaction: after a crash
   * both or neither are there. `write` returns how many records it stored; a checkpoint
   * given as a function is computed after `write`, inside the transaction.
   */
  commitPage(
    write: (tx: Tx, db: Database.Database) => number,
    checkpoint: Partial<CheckpointState> | (() => Partial<CheckpointState>),
  ): void;
  /** Parses one record; a failure is reported with id and field and the record skipped. */
  parseRecord<T>(schema: z.ZodType<T>, raw: unknown): T | null;
  reportError(error: Omit<RecordError, 'resource'>): void;
}

export interface ResourceSync {
  /** Name in checkpoints, progress and the run history. */
  readonly resource: string;
  pull(context: ResourceContext): Promise<void>;
}

export interface SyncProgress {
  runId: number;
  resource: string;
  /** Records stored by this run so far, for this resource. */
  records: number;
  /** Requests answered in this run so far, all resources. */
  requests: number;
  waitingUntil: string | null;
}

export type SyncOutcome = 'succeeded' | 'partial' | 'failed' | 'cancelled';

export interface SyncSummary {
  runId: number;
  outcome: SyncOutcome;
  counts: Record<string, number>;
  errors: RecordError[];
  startedAt: string;
  finishedAt: string;
}
