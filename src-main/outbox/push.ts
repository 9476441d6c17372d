import { AppError, type AppErrorShape } from '../../src-shared/errors';
import type { ApiClient } from '../api/client';
import { log } from '../log';
import type { CacheDb } from '../store';
import { LeaseLostError, UNGUARDED, type LeaseGuard } from '../sync/row-lease';
import { hasMorePages, listEnvelope } from '../sync/wire';
import { eq } from 'drizzle-orm';
import { outbox } from '../store';
import type { Tx } from '../sync/types';
import {
  clearedError,
  mapLocalId,
  openItems,
  openItemsOf,
  rebase,
  rebaseLaterEdits,
  rebuildRow,
  setItem,
  type OutboxRow,
} from './queue';
import { claimEdit, claimedElsewhere, claiming, newClaimant, writeIfAsRead } from './claims';
import {
  isLocalId,
  sameJson,
  sameVersion,
  specs,
  type Payload,
  type Raw,
  type ResourceSpec,
} from './records';

/**
 * The pusher: sends open edits in the order they were made, one request at a time through the
 * API client (which paces writes by the write bucket the governor learned).
 *
 * - A create is marked `sending` in its own transaction before the POST. If the answer never
 *   arrives (network lost, process killed) the item stays `sending`, which means "maybe sent":
 *   the next push looks the record up by its code and name before sending it again, so it is
 *   never created twice.
 * - An update first reads the server's record. If it already holds the edit's values, the edit
 *   is done (an earlier PATCH landed); if its `updateTime` is not the version the edit was
 *   based on, the edit is a `conflict` for the user; otherwise it is PATCHed.
 * - Success writes the server's answer into the cache (and switches a provisional id to the
 *   real one everywhere), in one transaction with the edit's `done`.
 * - A 400 (or 404) leaves the edit `failed` with the API's message and field; later edits of
 *   the same record wait behind it. Losing the network, the credentials or the server ends the
 *   push; everything not sent stays in the outbox.
 * - One pusher per edit (claims.ts): an edit is marked `sending` by a conditional UPDATE that
 *   names the pusher and holds only if the row is as read; the loser leaves it (and the later
 *   edits of its record) to the winner. A verdict reached without a claim (found on the
 *   server, a conflict) is written only onto the row as read. Settling clears the claim; a
 *   `sending` edit whose claim is free (none, its process gone, expired) is recovered as ever.
 * - One pusher at a time (the organisation's lease, sync/lease.ts): a claim is written right
 *   before its request leaves (after any wait for the write bucket or a token), and it and every
 *   other write of the push go through the lease's `write`, which renews the lease in the same
 *   transaction; each edit starts with the lease's `check`. A pusher whose lease another process
 *   took over while it was silent (a suspended laptop) sends no request of an edit and writes
 *   nothing more: not even the answer of a request that left before (the cache may hold newer
 *   since); that edit stays `sending`, maybe sent, for a later push to look up.
 */

export interface PushSummary {
  /** Edits the server accepted in this push. */
  sent: number;
  /** Edits refused in this push (`failed`, with the field). */
  failed: number;
  /** Edits found in conflict in this push. */
  conflicts: number;
  /** Open edits not sent: waiting behind a failed or conflicting edit, or left when the push stopped. */
  remaining: number;
  /** Why the push stopped early (offline, credentials, server trouble, cancelled). */
  stoppedBy?: AppErrorShape;
}

/** How far a push has come: told when it starts, after each edit it settles, and when it ends. */
export interface PushProgress {
  running: boolean;
  sent: number;
  failed: number;
  conflicts: number;
}

export interface PushOptions {
  cache: CacheDb;
  client: ApiClient;
  signal?: AbortSignal;
  now?: () => Date;
  onProgress?: (progress: PushProgress) => void;
  /** The organisation's lease, through which the push writes (none: a caller pushing alone). */
  lease?: LeaseGuard;
}

/** The page size of the lookup of a create that may have reached the server. */
const LOOKUP_PAGE_SIZE = 100;

/** An instant as people read it, to the minute and saying its zone: `2026-11-26 14:03 UTC`. */
export function utcMinute(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What a conflicting edit says (stored with it, and shown by `satchel edits list`). */
export function conflictMessage(label: string, updateTime: unknown): string {
  const when = typeof updateTime === 'string' ? utcMinute(updateTime) : 'at an unknown time';
  return `The ${label} was changed on the server (${when}) after this edit was made. Keep yours, take theirs, or merge.`;
}

/** `again`: the user changed or discarded the edit while it was on its way; read it anew. */
type Step = 'sent' | 'failed' | 'conflict' | 'again' | { stop: AppError };

/** Thrown from `beforeSend` to keep a request from leaving: its edit is no longer the one read. */
class EditChanged extends Error {}

const CANCELLED_MESSAGE = 'Sending offline edits was cancelled.';

const STOPPING = new Set([
  'OFFLINE',
  'CONNECTION_RESET',
  'TIMEOUT',
  'SERVER_ERROR',
  'AUTH_FAILED',
  'FORBIDDEN',
  'CANCELLED',
  // The lease taken over (row-lease.ts says so in the log).
  'BUSY',
]);

/** The next edit that may be sent: edits of a record (or of its dimension) go in order. */
function nextItem(items: OutboxRow[], tried: Set<number>): OutboxRow | undefined {
  const waiting = new Set<string>();
  for (const item of items) {
    const blocked =
      item.status === 'failed' ||
      item.status === 'conflict' ||
      waiting.has(item.recordId) ||
      (item.parentId !== null && (waiting.has(item.parentId) || isLocalId(item.parentId))) ||
      (item.operation === 'update' && isLocalId(item.recordId)) ||
      tried.has(item.seq);
    if (blocked) {
      waiting.add(item.recordId);
      continue;
    }
    return item;
  }
  return undefined;
}

export async function pushOutbox(options: PushOptions): Promise<PushSummary> {
  const { cache, client } = options;
  const lease = options.lease ?? UNGUARDED;
  const now = options.now ?? (() => new Date());
  const signal = options.signal ?? new AbortController().signal;
  const summary: PushSummary = { sent: 0, failed: 0, conflicts: 0, remaining: 0 };
  const tried = new Set<number>();
  const claimant = newClaimant();
  const claimText = claimant.text;

  /** A transaction of the push: only while the lease is still this process's (LeaseLostError). */
  const transaction = <T>(run: Parameters<typeof cache.db.transaction<T>>[0]): T =>
    lease.write(() => cache.db.transaction(run));

  /**
   * Whether the edit is still as the pusher read it. Edit… and Discard stay open while an edit
   * waits for the server's record, a token or the write bucket; what leaves must be what the
   * outbox holds then, and a discarded edit must not leave at all.
   */
  function unchanged(tx: Tx | CacheDb['db'], item: OutboxRow): boolean {
    const now = tx
      .select({
        status: outbox.status,
        payload: outbox.payload,
        basedOn: outbox.basedOn,
        attempts: outbox.attempts,
        claimedBy: outbox.claimedBy,
      })
      .from(outbox)
      .where(eq(outbox.seq, item.seq))
      .get();
    return (
      now !== undefined &&
      now.status === item.status &&
      now.payload === item.payload &&
      now.basedOn === item.basedOn &&
      now.attempts === item.attempts &&
      now.claimedBy === item.claimedBy
    );
  }

  /** The lease's loss, when that is what `error` is or what stopped the push. */
  const lostLease = (error: unknown): LeaseLostError | null =>
    error instanceof LeaseLostError ? error : signal.reason instanceof LeaseLostError ? signal.reason : null;

  const claim = (tx: Tx | CacheDb['db'], item: OutboxRow, also: Partial<OutboxRow> = {}) =>
    claimEdit(tx, item, claimant, now().toISOString(), also);

  /**
   * Whether the server's newer version is this update's own earlier request, one that may have
   * landed before its push was interrupted (`sent_payload`, kept when Edit… changed it): the
   * server holds what was sent then, and no field of the edit beyond it was changed by a
   * colleague since the version the edit was made on.
   */
  function ownEarlierRequest(item: OutboxRow, spec: ResourceSpec, current: Raw, payload: Payload): boolean {
    if (item.sentPayload === null || item.basedOnRecord === null) return false;
    const sent = JSON.parse(item.sentPayload) as Payload;
    if (!spec.holds(current, sent)) return false;
    const made = JSON.parse(item.basedOnRecord) as Raw;
    return Object.keys(payload).every(
      (field) => field in sent || sameJson(spec.fieldValue(made, field), spec.fieldValue(current, field)),
    );
  }

  /**
   * Claims an update whose earlier request landed: it is moved onto the server's version that
   * request made, and so are the record's later edits, the values sent then counting as the
   * user's own (`mine`), as for an edit found on the server.
   */
  const claimOnto = (item: OutboxRow, current: Raw) =>
    transaction((tx) => {
      const version = typeof current.updateTime === 'string' ? current.updateTime : null;
      const claimed = claim(tx, item, {
        basedOn: version,
        basedOnRecord: JSON.stringify(current),
        sentPayload: null,
      });
      if (claimed)
        rebaseLaterEdits(tx, item, current, {
          version,
          record: current,
          mine: JSON.parse(item.sentPayload ?? '{}') as Payload,
        });
      return claimed;
    });

  /**
   * Writes the server's answer with the edit's `done`. `sent`: whether the edit was sent (on
   * its `based_on` version), or found already on the server (`record` holds its values).
   */
  function succeed(
    item: OutboxRow,
    spec: ResourceSpec,
    record: Raw & { id: string },
    sent: boolean,
  ): 'sent' | 'again' {
    const done = { status: 'done' as const, serverRecord: null, claimedBy: null, ...clearedError };
    return transaction((tx) => {
      const realId = record.id;
      if (sent && item.claimedBy === claimText) {
        // Our own request's answer: the edit is ours to settle.
        setItem(tx, item.seq, { ...done, recordId: realId });
      } else if (!writeIfAsRead(tx, item, { ...done, recordId: realId })) {
        // Found on the server without a claim: another pusher settled it (or the user changed
        // it) since it was read. Its row says how; nothing is written here.
        return 'again';
      }
      if (item.recordId !== realId) mapLocalId(tx, spec.resource, item.recordId, realId);
      // Later edits of this record were made on top of this one: they build on the answer,
      // unless one was made on another version and a colleague has changed its fields since.
      // Sent (or found on the version it was based on), the edit went onto that version, as
      // colleagues left it; found on a newer one, the server is theirs, save the edit's values
      // on it (an earlier PATCH of this edit may have put them there).
      const version = typeof record.updateTime === 'string' ? record.updateTime : null;
      rebase(tx, realId, record);
      rebaseLaterEdits(
        tx,
        { ...item, recordId: realId },
        record,
        sent || sameVersion(version, item.basedOn)
          ? {
              version: item.basedOn,
              record: item.basedOnRecord === null ? null : (JSON.parse(item.basedOnRecord) as Raw),
            }
          : { version, record, mine: JSON.parse(item.payload) as Payload },
      );
      rebuildRow(tx, spec.resource, realId, record);
      return 'sent';
    });
  }

  /**
   * Records why the edit was not settled, and gives its claim back. An edit this pusher did
   * not claim is written only as it was read: another pusher may have claimed it meanwhile.
   */
  function fail(item: OutboxRow, error: AppError, status: 'failed' | 'pending' | 'sending'): void {
    const changes = {
      status,
      errorCode: error.code,
      errorMessage: error.message,
      errorField: error.field ?? null,
      errorRemoteCode: error.remoteCode ?? null,
      claimedBy: null,
    };
    if (item.claimedBy === claimText) transaction((tx) => setItem(tx, item.seq, changes));
    else lease.write(() => writeIfAsRead(cache.db, item, changes));
  }

  function settle(item: OutboxRow, error: unknown, maybeSent: boolean): Step {
    // Taken over: nothing more is written, the edit stays as it is (`sending`, maybe sent, once
    // its request left) for a push that holds the lease to settle.
    const lost = lostLease(error);
    if (lost) return { stop: lost };
    const appError =
      error instanceof AppError
        ? // Said of the push, on the edit and in its summary, rather than the client's bare word.
          error.code === 'CANCELLED'
          ? new AppError('CANCELLED', CANCELLED_MESSAGE)
          : error
        : new AppError('INTERNAL', 'Sending the edit failed unexpectedly.');
    if (!(error instanceof AppError)) log.error('outbox push failed:', error);
    if (appError.code === 'REMOTE_REJECTED' || appError.code === 'NOT_FOUND') {
      fail(item, appError, 'failed');
      return 'failed';
    }
    // No verdict on this edit: it stays for the next push ("maybe sent" for a create on its way).
    fail(item, appError, maybeSent ? 'sending' : 'pending');
    return { stop: appError };
  }

  /** A create that may have reached the server: find the record it made, if any. */
  async function findCreated(item: OutboxRow, spec: ResourceSpec, payload: Payload) {
    const query: Record<string, string> = { page_size: String(LOOKUP_PAGE_SIZE) };
    if (spec.resource === 'supplier') {
      // Suppliers can be many: only those changed since a day before the attempt.
      const since = Date.parse(item.sentAt ?? item.createdAt) - 86_400_000;
      query['update_time__gte'] = new Date(Number.isNaN(since) ? 0 : since).toISOString();
    }
    for (let page = 1; ; page += 1) {
      const answer = await client.request({
        method: 'GET',
        path: spec.collectionPath(item.parentId),
        query: { ...query, page },
        schema: listEnvelope,
        signal,
      });
      for (const raw of answer.data) {
        const parsed = spec.wire.safeParse(raw);
        if (parsed.success && spec.isCreatedBy(parsed.data, payload)) return parsed.data;
      }
      // A full page from a server that leaves `meta` out is not the last: the record may be on
      // the next, and taking it for absent would create it a second time.
      if (!hasMorePages(answer, LOOKUP_PAGE_SIZE)) return null;
    }
  }

  async function sendCreate(item: OutboxRow, spec: ResourceSpec, payload: Payload): Promise<Step> {
    if (item.status === 'sending') {
      try {
        const found = await findCreated(item, spec, payload);
        if (found) return succeed(item, spec, found, true);
      } catch (error) {
        return settle(item, error, true);
      }
    }
    // "Maybe sent" from the moment the request leaves: a push stopped while it waits for the
    // rate limit leaves the edit plainly waiting, with no lookup needed before it is sent.
    let sent = false;
    let mine = item;
    try {
      const record = await client.request({
        method: 'POST',
        path: spec.collectionPath(item.parentId),
        body: payload,
        schema: spec.wire,
        signal,
        idempotent: false,
        beforeSend: () => {
          const claimed = lease.write(() => claim(cache.db, item));
          if (!claimed) throw new EditChanged();
          mine = claimed;
          sent = true;
        },
      });
      return succeed(mine, spec, record, true);
    } catch (error) {
      if (error instanceof EditChanged) return 'again';
      // A 400 is a verdict; anything else may have happened after the server created it.
      return settle(mine, error, sent);
    }
  }

  async function sendUpdate(item: OutboxRow, spec: ResourceSpec, payload: Payload): Promise<Step> {
    const path = spec.recordPath(item.recordId, item.parentId);
    let mine = item;
    try {
      const current = await client.request({ method: 'GET', path, schema: spec.wire, signal });
      // Nothing awaits from here to the verdicts below, written only onto the edit as read; the
      // claim before the PATCH leaves makes sure again that what leaves is what the outbox holds.
      if (!unchanged(cache.db, item)) return 'again';
      if (spec.holds(current, payload)) return succeed(item, spec, current, false);
      const landed =
        item.basedOn !== null &&
        !sameVersion(current.updateTime, item.basedOn) &&
        ownEarlierRequest(item, spec, current, payload);
      if (!landed && item.basedOn !== null && !sameVersion(current.updateTime, item.basedOn)) {
        const marked = lease.write(() =>
          writeIfAsRead(cache.db, item, {
            status: 'conflict',
            serverRecord: JSON.stringify(current),
            errorCode: 'CONFLICT',
            errorMessage: conflictMessage(spec.label, current.updateTime),
            errorField: null,
            errorRemoteCode: null,
            claimedBy: null,
          }),
        );
        return marked ? 'conflict' : 'again';
      }
      const record = await client.request({
        method: 'PATCH',
        path,
        body: payload,
        schema: spec.wire,
        signal,
        // Claimed right before it leaves (after any wait for the write bucket or a token), as a
        // create is: an edit changed meanwhile is read anew, and no PATCH leaves once the lease
        // is another process's. A retry of the PATCH has its claim already: the lease is looked at.
        beforeSend: () => {
          if (mine !== item) return lease.check();
          const claimed = landed
            ? claimOnto(item, current)
            : lease.write(() => claim(cache.db, item, { sentPayload: null }));
          if (!claimed) throw new EditChanged();
          mine = claimed;
        },
      });
      return succeed(mine, spec, record, true);
    } catch (error) {
      if (error instanceof EditChanged) return 'again';
      // PATCH is safe to repeat: the next push reads the record and sees whether it landed.
      return settle(mine, error, false);
    }
  }

  /**
   * An item edit the server refused: most often its dimension was deleted (or changed) on the
   * server since the last sync. The dimension is read again and put in the cache, unless it has
   * edits of its own waiting, so that the list shows what the refusal says ("Project is
   * deleted") and the next change of the edit is checked against it. Best effort: a dimension
   * that cannot be read now is left as the next sync will bring it.
   */
  async function refreshDimensionOf(item: OutboxRow): Promise<void> {
    const dimensionId = item.parentId;
    if (item.resource !== 'dimensionItem' || dimensionId === null || isLocalId(dimensionId)) return;
    const spec = specs.dimension;
    try {
      const record = await client.request({
        method: 'GET',
        path: spec.recordPath(dimensionId, null),
        schema: spec.wire,
        signal,
      });
      transaction((tx) => {
        if (openItemsOf(tx, dimensionId).length === 0) rebuildRow(tx, 'dimension', dimensionId, record);
      });
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      log.warn(`outbox push: could not read dimension ${dimensionId} again:`, error);
    }
  }

  /** Tells the caller how far the push has come; a failing listener never stops the push. */
  const report = (running: boolean) => {
    try {
      options.onProgress?.({
        running,
        sent: summary.sent,
        failed: summary.failed,
        conflicts: summary.conflicts,
      });
    } catch (error) {
      log.warn('outbox push progress:', error);
    }
  };

  async function sendEach(): Promise<void> {
    for (;;) {
      if (signal.aborted) {
        const lost = lostLease(null);
        summary.stoppedBy = (lost ?? new AppError('CANCELLED', CANCELLED_MESSAGE)).toShape();
        return;
      }
      const item = nextItem(openItems(cache.db), tried);
      if (!item) return;
      tried.add(item.seq);
      // On its way with another pusher: left to it, and the record's later edits wait too.
      if (claimedElsewhere(item, claimant, Date.now())) continue;
      const spec = specs[item.resource];
      const payload = JSON.parse(item.payload) as Payload;
      let step: Step;
      try {
        // Taken over while this process was silent: not one more request of an edit.
        lease.check();
        step =
          item.operation === 'create'
            ? await sendCreate(item, spec, payload)
            : await sendUpdate(item, spec, payload);
      } catch (error) {
        if (!(error instanceof LeaseLostError)) throw error;
        step = { stop: error };
      }
      if (step === 'again') {
        tried.delete(item.seq);
        continue;
      }
      if (typeof step === 'object') {
        summary.stoppedBy = step.stop.toShape();
        if (!STOPPING.has(step.stop.code)) log.warn(`outbox push stopped: ${step.stop.code}`);
        return;
      }
      if (step === 'sent') summary.sent += 1;
      else if (step === 'failed') summary.failed += 1;
      else summary.conflicts += 1;
      report(true);
      if (step === 'failed') {
        try {
          await refreshDimensionOf(item);
        } catch (error) {
          if (!(error instanceof LeaseLostError)) throw error;
          summary.stoppedBy = error.toShape();
          return;
        }
      }
    }
  }

  report(true);
  const stopClaiming = claiming(claimant);
  try {
    await sendEach();
  } finally {
    stopClaiming();
    report(false);
  }
  summary.remaining = openItems(cache.db).filter(
    (item) => item.status === 'pending' || item.status === 'sending',
  ).length;
  return summary;
}
