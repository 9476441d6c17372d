import type { DownloadJobShape, DownloadJobStatus, DownloadLayout } from '../../src-shared/files';
import { allRows, prepared } from '../search/sql';
import type { CacheDb } from '../store';
import type { ScopedFile } from './scope';

/**
 * The persisted download queue (tables `download_jobs` and `download_items`): a job and all
 * its items are written in one transaction, and each item's outcome is written as soon as
 * the file is in place, so a kill at any moment loses at most the files in flight.
 */

export interface JobRow {
  id: string;
  destination: string;
  template: string;
  layout: DownloadLayout;
  scope: string;
  status: DownloadJobStatus;
  manifest: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface ItemRow {
  jobId: string;
  fileId: string;
  position: number;
  relativePath: string;
  size: number | null;
  sha256: string | null;
  status: 'pending' | 'done' | 'failed';
  source: 'fetched' | 'copied' | 'present' | null;
  attempts: number;
  error: string | null;
  originalName: string | null;
  mimeType: string | null;
  expenseId: string | null;
  expenseLineId: string | null;
  transactionId: string | null;
  bookingDate: string | null;
  counterparty: string | null;
  amountMinor: number | null;
  amountCurrency: string | null;
  account: string | null;
  supplier: string | null;
  /** A done file's modification time as last seen intact (ms); MTIME_UNSEEN, or null (below). */
  mtimeMs: number | null;
}

/**
 * `mtime_ms` of a file recorded done and not looked at since: the next check of the folder
 * learns its time (folder.ts). Set with the outcome rather than from a `stat` as each file is
 * put in place, which would add a system call per file to a download. Null instead is a file
 * an earlier version recorded done, checked by size only.
 */
export const MTIME_UNSEEN = -1;

const JOB_COLUMNS = `id, destination, template, layout, scope, status, manifest,
  created_at AS createdAt, updated_at AS updatedAt, finished_at AS finishedAt`;

export interface NewJob {
  id: string;
  destination: string;
  template: string;
  layout: DownloadLayout;
  scope: string;
  manifest: string;
  now: string;
  /** `present`: this very file is already at its path (checked by size and sha256): done. */
  items: Array<{ file: ScopedFile; relativePath: string; present?: boolean }>;
}

export function insertJob(cache: CacheDb, job: NewJob): void {
  const insertItem = cache.sqlite.prepare(
    `INSERT INTO download_items (job_id, file_id, position, relative_path, size, sha256, original_name,
       mime_type, expense_id, expense_line_id, transaction_id, booking_date, counterparty, amount_minor,
       amount_currency, account, supplier, status, source, finished_at, mtime_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  cache.sqlite.transaction(() => {
    cache.sqlite
      .prepare(
        `INSERT INTO download_jobs (id, destination, template, layout, scope, status, manifest, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      )
      .run(job.id, job.destination, job.template, job.layout, job.scope, job.manifest, job.now, job.now);
    for (let position = 0; position < job.items.length; position += 1) {
      const { file, relativePath, present } = job.items[position]!;
      const money = file.amountMinor !== null && file.currency !== null;
      insertItem.run(
        job.id,
        file.fileId,
        position,
        relativePath,
        file.size,
        file.sha256,
        file.originalName,
        file.mimeType,
        file.expenseId,
        file.expenseLineId,
        file.transactionId,
        file.bookingDate,
        file.counterparty,
        money ? file.amountMinor : null,
        money ? file.currency : null,
        file.account,
        file.supplier,
        present ? 'done' : 'pending',
        present ? 'present' : null,
        present ? job.now : null,
        present ? MTIME_UNSEEN : null,
      );
    }
  })();
}

export function jobRow(cache: CacheDb, jobId: string): JobRow | undefined {
  return prepared(cache.sqlite, `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE id = ?`).get(jobId) as
    JobRow | undefined;
}

export function jobRows(cache: CacheDb, limit: number): JobRow[] {
  return prepared(
    cache.sqlite,
    `SELECT ${JOB_COLUMNS} FROM download_jobs ORDER BY created_at DESC, id LIMIT ?`,
  ).all(limit) as JobRow[];
}

/** Jobs a runner should be working on (`pending` or `running`), newest first. */
export function unfinishedJobRows(cache: CacheDb): JobRow[] {
  return prepared(
    cache.sqlite,
    `SELECT ${JOB_COLUMNS} FROM download_jobs WHERE status IN ('pending', 'running')
     ORDER BY created_at DESC, id`,
  ).all() as JobRow[];
}

export function setJobStatus(cache: CacheDb, jobId: string, status: DownloadJobStatus, now: string): void {
  prepared(
    cache.sqlite,
    `UPDATE download_jobs SET status = @status, updated_at = @now,
       finished_at = CASE WHEN @status IN ('completed', 'cancelled') THEN @now ELSE NULL END
     WHERE id = @id`,
  ).run({ id: jobId, status, now });
}

/**
 * Jobs marked `completed` although some of their files are not done (an earlier version's Retry
 * pressed during a run could leave files pending in a job its run then marked completed, where
 * neither Resume nor Retry reached them): marked `paused` instead, so that they show as stopped
 * with Resume, and are not started by themselves. Returns each with its files not done.
 */
export function reopenStuckJobs(
  cache: CacheDb,
  now: string,
): Array<{ id: string; pending: number; failed: number }> {
  return cache.sqlite.transaction(() => {
    const stuck = prepared(
      cache.sqlite,
      `SELECT j.id AS id, sum(i.status = 'pending') AS pending, sum(i.status = 'failed') AS failed
       FROM download_jobs j JOIN download_items i ON i.job_id = j.id
       WHERE j.status = 'completed'
         AND EXISTS (SELECT 1 FROM download_items p WHERE p.job_id = j.id AND p.status = 'pending')
       GROUP BY j.id`,
    ).all() as Array<{ id: string; pending: number; failed: number }>;
    for (const job of stuck) setJobStatus(cache, job.id, 'paused', now);
    return stuck;
  })();
}

/** What a runner needs of an item to fetch it (the manifest reads the rest at the end). */
export type QueueItem = Pick<
  ItemRow,
  'fileId' | 'position' | 'relativePath' | 'size' | 'sha256' | 'attempts'
>;

export function pendingItems(cache: CacheDb, jobId: string): QueueItem[] {
  return allRows<QueueItem>(
    prepared(
      cache.sqlite,
      `SELECT file_id AS fileId, position, relative_path AS relativePath, size, sha256, attempts
       FROM download_items WHERE job_id = ? AND status = 'pending' ORDER BY position`,
    ),
    jobId,
  );
}

/** What a run checks of a done item: that its file is still in the folder as it was put there. */
export type DoneItem = Pick<ItemRow, 'fileId' | 'relativePath' | 'size' | 'sha256' | 'mtimeMs'> & {
  finishedAt: string | null;
};

export function doneItems(cache: CacheDb, jobId: string): DoneItem[] {
  return allRows<DoneItem>(
    prepared(
      cache.sqlite,
      `SELECT file_id AS fileId, relative_path AS relativePath, size, sha256, mtime_ms AS mtimeMs,
         finished_at AS finishedAt
       FROM download_items WHERE job_id = ? AND status = 'done' ORDER BY position`,
    ),
    jobId,
  );
}

/**
 * One done item's modification time, looked up by its key. A single `UPDATE … FROM json_each`
 * let SQLite walk the job's done items and scan the whole list for each (quadratic: 1.3 s at
 * the end of a 2,000-file job); a statement a row in one transaction stays linear.
 */
export const RECORD_MTIME_SQL = `UPDATE download_items SET mtime_ms = @mtimeMs
   WHERE job_id = @jobId AND file_id = @fileId AND status = 'done'`;

/** Done files' modification times as just seen intact (`[fileId, mtimeMs]`), in one transaction. */
export function recordMtimes(cache: CacheDb, jobId: string, seen: Array<[string, number]>): void {
  if (seen.length === 0) return;
  const statement = prepared(cache.sqlite, RECORD_MTIME_SQL);
  cache.sqlite.transaction(() => {
    for (const [fileId, mtimeMs] of seen) statement.run({ jobId, fileId, mtimeMs });
  })();
}

/**
 * Done items whose file is no longer in the folder as the job put it there: back to `pending`
 * (fetched again by the next run), or `failed` with the reason given for each.
 */
export function undoDone(
  cache: CacheDb,
  jobId: string,
  items: Array<{ fileId: string; error: string | null }>,
): void {
  const statement = prepared(
    cache.sqlite,
    `UPDATE download_items SET status = CASE WHEN @error IS NULL THEN 'pending' ELSE 'failed' END,
       source = NULL, finished_at = NULL, mtime_ms = NULL, error = @error,
       attempts = CASE WHEN @error IS NULL THEN 0 ELSE attempts END
     WHERE job_id = @jobId AND file_id = @fileId AND status = 'done'`,
  );
  cache.sqlite.transaction(() => {
    for (const { fileId, error } of items) statement.run({ jobId, fileId, error });
  })();
}

/**
 * A job's items as the manifest's rows (manifest.ts), in queue order: arrays rather than
 * objects, in MANIFEST_COLUMNS' order (`amount` from `amount_minor` and `amount_currency`),
 * because a manifest reads every item of a job at its very end.
 */
export type ManifestRow = [
  relativePath: string,
  status: ItemRow['status'],
  fileId: string,
  originalName: string | null,
  mimeType: string | null,
  size: number | null,
  sha256: string | null,
  expenseId: string | null,
  expenseLineId: string | null,
  transactionId: string | null,
  bookingDate: string | null,
  counterparty: string | null,
  amountMinor: number | null,
  amountCurrency: string | null,
  account: string | null,
  supplier: string | null,
  error: string | null,
];

export function manifestRows(cache: CacheDb, jobId: string): ManifestRow[] {
  const statement = prepared(
    cache.sqlite,
    `SELECT relative_path, status, file_id, original_name, mime_type, size, sha256, expense_id,
       expense_line_id, transaction_id, booking_date, counterparty, amount_minor, amount_currency,
       account, supplier, error
     FROM download_items WHERE job_id = ? ORDER BY position`,
  );
  try {
    return statement.raw(true).all(jobId) as ManifestRow[];
  } finally {
    statement.raw(false); // the statement is shared (prepared): leave it as it was
  }
}

/**
 * Several outcomes in one transaction (the runner batches them: one commit per batch), one
 * statement per source rather than one per file; `now` is when the batch is recorded.
 */
export function markDoneMany(
  cache: CacheDb,
  jobId: string,
  done: Array<{ fileId: string; source: 'fetched' | 'copied' | 'present' }>,
  now: string,
): void {
  const bySource = new Map<string, string[]>();
  for (const item of done) {
    const ids = bySource.get(item.source);
    if (ids) ids.push(item.fileId);
    else bySource.set(item.source, [item.fileId]);
  }
  const statement = prepared(
    cache.sqlite,
    `UPDATE download_items SET status = 'done', source = @source, error = NULL, finished_at = @now,
       mtime_ms = ${MTIME_UNSEEN}, attempts = attempts + (@source = 'fetched')
     WHERE job_id = @jobId AND file_id IN (SELECT value FROM json_each(@ids))`,
  );
  cache.sqlite.transaction(() => {
    for (const [source, ids] of bySource) statement.run({ jobId, source, now, ids: JSON.stringify(ids) });
  })();
}

export function markFailed(
  cache: CacheDb,
  jobId: string,
  fileId: string,
  error: string,
  attempts: number,
): void {
  prepared(
    cache.sqlite,
    `UPDATE download_items SET status = 'failed', error = @error, attempts = @attempts
     WHERE job_id = @jobId AND file_id = @fileId`,
  ).run({ jobId, fileId, error, attempts });
}

export function recordAttempt(cache: CacheDb, jobId: string, fileId: string, error: string): void {
  prepared(
    cache.sqlite,
    `UPDATE download_items SET attempts = attempts + 1, error = @error WHERE job_id = @jobId AND file_id = @fileId`,
  ).run({ jobId, fileId, error });
}

/** Failed items (all, or those named) back to pending; returns how many. */
export function resetFailed(cache: CacheDb, jobId: string, fileIds?: string[]): number {
  if (!fileIds)
    return prepared(
      cache.sqlite,
      `UPDATE download_items SET status = 'pending', error = NULL, attempts = 0 WHERE job_id = ? AND status = 'failed'`,
    ).run(jobId).changes;
  const statement = prepared(
    cache.sqlite,
    `UPDATE download_items SET status = 'pending', error = NULL, attempts = 0
     WHERE job_id = ? AND file_id = ? AND status = 'failed'`,
  );
  return cache.sqlite.transaction(() =>
    fileIds.reduce((sum, fileId) => sum + statement.run(jobId, fileId).changes, 0),
  )();
}

export interface JobCounts {
  files: DownloadJobShape['files'];
  bytes: DownloadJobShape['bytes'];
}

export function jobCounts(cache: CacheDb, jobId: string): JobCounts {
  const row = prepared(
    cache.sqlite,
    `SELECT count(*) AS total,
       sum(status = 'done') AS done, sum(status = 'failed') AS failed, sum(status = 'pending') AS pending,
       sum(source = 'fetched') AS fetched, sum(source = 'copied') AS copied, sum(source = 'present') AS present,
       coalesce(sum(size), 0) AS bytesTotal, coalesce(sum(CASE WHEN status = 'done' THEN size END), 0) AS bytesDone
     FROM download_items WHERE job_id = ?`,
  ).get(jobId) as Record<string, number | null>;
  const n = (key: string) => Number(row[key] ?? 0);
  return {
    files: {
      total: n('total'),
      done: n('done'),
      failed: n('failed'),
      pending: n('pending'),
      fetched: n('fetched'),
      copied: n('copied'),
      present: n('present'),
    },
    bytes: { total: n('bytesTotal'), done: n('bytesDone') },
  };
}

export function failedItems(cache: CacheDb, jobId: string, limit = 100): DownloadJobShape['errors'] {
  return prepared(
    cache.sqlite,
    `SELECT file_id AS fileId, relative_path AS relativePath, attempts, coalesce(error, '') AS error
     FROM download_items WHERE job_id = ? AND status = 'failed' ORDER BY position LIMIT ?`,
  ).all(jobId, limit) as DownloadJobShape['errors'];
}

/** The newest unfinished job with the same request (the CLI run again continues it). */
export function findUnfinishedJob(
  cache: CacheDb,
  match: { destination: string; template: string; layout: string; scope: string },
): JobRow | undefined {
  return prepared(
    cache.sqlite,
    `SELECT ${JOB_COLUMNS} FROM download_jobs
     WHERE destination = @destination AND template = @template AND layout = @layout AND scope = @scope
       AND status IN ('pending', 'running', 'paused')
     ORDER BY created_at DESC LIMIT 1`,
  ).get(match) as JobRow | undefined;
}

/**
 * Paths (and their files) that other downloads into `destination` have given out and may still
 * write. A new job into the same folder must not take these names, or whichever writes second
 * finds "a different file" in its place. Reserved are:
 *
 * - every item of a job that can still run (pending, running, paused): its pending files are
 *   to come, and a finished one removed from the folder is fetched again when it resumes;
 * - the failed (or pending) items of a completed job, which a retry writes, unless another job
 *   into this folder has downloaded that file since: then the file is in the folder, and
 *   holding its old name would only number later downloads' names for nothing.
 *
 * A cancelled job writes nothing more, and a completed job's done files are in the folder
 * (where the name is taken anyway) or were removed by the user.
 */
export function reservedPaths(
  cache: CacheDb,
  destination: string,
): Array<{ relativePath: string; fileId: string }> {
  return prepared(
    cache.sqlite,
    `SELECT i.relative_path AS relativePath, i.file_id AS fileId
     FROM download_jobs j JOIN download_items i ON i.job_id = j.id
     WHERE j.destination = @destination
       AND (j.status IN ('pending', 'running', 'paused')
         OR (j.status = 'completed' AND i.status <> 'done'
           AND NOT EXISTS (
             SELECT 1 FROM download_jobs k JOIN download_items d ON d.job_id = k.id
             WHERE k.destination = @destination AND k.id <> j.id
               AND d.file_id = i.file_id AND d.status = 'done')))`,
  ).all({ destination }) as Array<{ relativePath: string; fileId: string }>;
}
