import { eq } from 'drizzle-orm';
import { AppError } from '../../src-shared/errors';
import type { ApiClient } from '../api/client';
import { NO_NETWORK_MESSAGE } from '../connectivity';
import { createLeases, type Leases } from '../sync/lease';
import type { HeldLease } from '../sync/row-lease';
import { dimensionItems, outbox, type CacheDb } from '../store';
import type { Tx } from '../sync/types';
import { claimedElsewhere, interrupted, newClaimant, writeIfAsRead } from './claims';
import { pushOutbox, type PushProgress, type PushSummary } from './push';
import {
  chainBase,
  clearedError,
  enqueue,
  itemById,
  openItems,
  openItemsOf,
  rebase,
  rebaseLaterEdits,
  rebuildRow,
  setItem,
  setSupplierNumbering,
  supplierNumbering,
  type OutboxRow,
  type OutboxStatus,
  type SupplierNumbering,
} from './queue';
import { sameJson, specs, type OutboxResource, type Payload, type Raw } from './records';
import { validateEdit, type EditTarget } from './validate';

/**
 * Offline edits of suppliers, dimensions and dimension items (docs/offline-edits.md): checked
 * with the API's rules, applied to the cache at once, recorded in the outbox and sent by
 * `push` when the network is back. Everything is rows in the organisation's SQLite file, so
 * edits survive restarts and kills.
 */

export { conflictMessage } from './push';
export type { PushProgress, PushSummary } from './push';
export type { OutboxResource } from './records';
export type { SupplierNumbering } from './queue';

export interface OutboxItem {
  operationId: string;
  resource: OutboxResource;
  operation: 'create' | 'update';
  /** The record edited: a provisional `local-…` id until a create has been sent. */
  recordId: string;
  /** The dimension of a dimension item. */
  parentId: string | null;
  /** The record's name as the cache shows it now (edits applied): what the user knows it by. */
  name: string | null;
  payload: Payload;
  /** The record's `updateTime` the edit was based on (null for a create). */
  basedOn: string | null;
  /**
   * `sending`: a live push has its request on its way now; `interrupted`: left `sending` by a
   * push that is no more (a process killed, an answer that never came), so it may or may not
   * have reached the server, and the next push finds out (claims.ts).
   */
  status: Exclude<OutboxStatus, 'done'> | 'interrupted';
  attempts: number;
  /** `remoteCode`: the API's own code, when the API refused the edit (`DIMENSION_DELETED`). */
  error: { code: string; message: string; field?: string; remoteCode?: string } | null;
  /** For a conflict: the server's newer record. */
  server: Raw | null;
  /** The server's record the edit was made on (null for a create, or when not known). */
  before: Raw | null;
  createdAt: string;
  updatedAt: string;
}

/** What an edit function returns: the edit's id and the record as the cache now shows it. */
export interface EditResult {
  operationId: string;
  recordId: string;
  record: Raw;
}

export type Resolution = 'mine' | 'theirs' | { merged: unknown };

export interface OutboxOptions {
  cacheOf(profileId: string): CacheDb;
  clientOf(profileId: string): ApiClient;
  now?: () => Date;
  /** The organisation's name, as a refusal names it ("… reached Nordwind GmbH"). */
  organisationName?: (profileId: string) => string;
  /** Told how a push of the organisation's edits comes on (the app passes it on as an event). */
  onPushProgress?: (profileId: string, progress: PushProgress) => void;
  /**
   * Whether the system says there is no network at all: a push then sends nothing and says so
   * at once, instead of after the client's retries of the first edit.
   */
  networkDown?: (profileId: string) => boolean;
  /**
   * The organisation's lease against other processes (sync/lease.ts): the core shares one with
   * the sync service, whose run pushes first while it holds it. By default the outbox's own.
   */
  leases?: Leases;
}

export interface Outbox {
  createSupplier(profileId: string, input: unknown): EditResult;
  updateSupplier(profileId: string, supplierId: string, input: unknown): EditResult;
  createDimension(profileId: string, input: unknown): EditResult;
  updateDimension(profileId: string, dimensionId: string, input: unknown): EditResult;
  createDimensionItem(profileId: string, dimensionId: string, input: unknown): EditResult;
  updateDimensionItem(profileId: string, dimensionId: string, itemId: string, input: unknown): EditResult;
  /** Open edits in the order they will be sent: pending, sending, failed and conflicting. */
  list(profileId: string): OutboxItem[];
  /**
   * A failed edit goes back to pending (sent by the next push), once checked again like a new
   * edit against what the cache knows now; refused, it stays failed.
   */
  retry(profileId: string, operationId: string): OutboxItem;
  /**
   * Replaces the payload of a pending, failed or conflicting edit (checked like a new edit), or
   * of an interrupted update (pending again: the new value supersedes the one that may have
   * been sent). Refused for an edit a live push has on its way, and for an interrupted create,
   * which may have made the record already.
   */
  edit(profileId: string, operationId: string, input: unknown): OutboxItem;
  /**
   * Drops an edit and restores the row without it (a create's record and its items go). Refused
   * while a live push has it on its way (claims.ts); one a gone process left `sending` may go.
   */
  discard(profileId: string, operationId: string): void;
  /** Settles a conflict: send mine on the new version, take theirs, or send a merged payload. */
  resolve(profileId: string, operationId: string, resolution: Resolution): OutboxItem | null;
  /** Sends open edits; one push per organisation at a time (asking again joins it). */
  push(profileId: string, signal?: AbortSignal): Promise<PushSummary>;
  isPushing(profileId: string): boolean;
  /**
   * Stops the organisation's running push, whoever started it, at the edit it is on: what was
   * sent stays sent, the rest waits (a create already on its way stays "maybe sent"). False
   * when no push runs.
   */
  cancelPush(profileId: string): boolean;
  /** Who numbers suppliers: `manual` (default; creates need `code`) or `erp`. */
  supplierNumbering(profileId: string): SupplierNumbering;
  setSupplierNumbering(profileId: string, numbering: SupplierNumbering): void;
}

function toItem(db: CacheDb['db'] | Tx, row: OutboxRow): OutboxItem {
  const table = specs[row.resource].table;
  const record = db.select({ name: table.name }).from(table).where(eq(table.id, row.recordId)).get();
  return {
    operationId: row.operationId,
    resource: row.resource,
    operation: row.operation,
    recordId: row.recordId,
    parentId: row.parentId,
    name: record?.name ?? null,
    payload: JSON.parse(row.payload) as Payload,
    basedOn: row.basedOn,
    status: interrupted(row, Date.now()) ? 'interrupted' : (row.status as OutboxItem['status']),
    attempts: row.attempts,
    error:
      row.errorCode === null
        ? null
        : {
            code: row.errorCode,
            message: row.errorMessage ?? '',
            ...(row.errorField === null ? {} : { field: row.errorField }),
            ...(row.errorRemoteCode === null ? {} : { remoteCode: row.errorRemoteCode }),
          },
    server: row.serverRecord === null ? null : (JSON.parse(row.serverRecord) as Raw),
    before: row.basedOnRecord === null ? null : (JSON.parse(row.basedOnRecord) as Raw),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const refuse = (message: string) => new AppError('VALIDATION_ERROR', message);

/** Why Edit… and Discard leave an edit a live push has on its way. */
const BEING_SENT = 'This edit is being sent; wait for the push to finish';

/** The record an open edit changes, as `validateEdit` checks it. */
const targetOf = (row: OutboxRow): EditTarget => ({
  resource: row.resource,
  operation: row.operation,
  recordId: row.recordId,
  parentId: row.parentId,
});

export function createOutbox(options: OutboxOptions): Outbox {
  const pushes = new Map<string, Promise<PushSummary>>();
  const stoppers = new Map<string, AbortController>();
  const leases = options.leases ?? createLeases();

  /** Open edits not settled: what a push that sends nothing leaves waiting. */
  const waitingIn = (profileId: string) =>
    openItems(options.cacheOf(profileId).db).filter(
      (item) => item.status === 'pending' || item.status === 'sending',
    ).length;

  function edit(
    profileId: string,
    target: {
      resource: OutboxResource;
      operation: 'create' | 'update';
      recordId?: string;
      parentId?: string;
    },
    input: unknown,
  ): EditResult {
    const cache = options.cacheOf(profileId);
    return cache.db.transaction((tx) => {
      if (target.resource === 'dimensionItem' && target.operation === 'update') {
        const table = specs.dimensionItem.table;
        const row = tx
          .select({ dimensionId: dimensionItems.dimensionId })
          .from(table)
          .where(eq(table.id, target.recordId ?? ''))
          .get();
        if (!row || row.dimensionId !== target.parentId)
          throw new AppError(
            'NOT_FOUND',
            `No item ${target.recordId ?? ''} of the dimension ${target.parentId ?? ''} is in the offline copy. Sync, then try again.`,
          );
      }
      const payload = validateEdit(tx, target, input);
      return enqueue(tx, { ...target, payload });
    });
  }

  function open(tx: Tx, operationId: string): OutboxRow {
    const row = itemById(tx, operationId);
    if (row.status === 'done') throw new AppError('NOT_FOUND', 'This edit has already been sent.');
    return row;
  }

  /** The later of two server versions of a record, by `updateTime` as an instant. */
  function newer(a: Raw | null, b: Raw | null): Raw | null {
    const time = (raw: Raw | null) =>
      raw && typeof raw.updateTime === 'string' ? Date.parse(raw.updateTime) : Number.NaN;
    if (!a) return b;
    if (!b) return a;
    return time(b) > time(a) ? b : a;
  }

  /** Removes an edit and, for a create, every edit that needs the record it would make. */
  function discardIn(tx: Tx, row: OutboxRow): void {
    if (row.operation === 'create') {
      // Items of a dimension created here go with it; so do later edits of the record.
      const children = new Set(
        openItems(tx)
          .filter((item) => item.parentId === row.recordId)
          .map((item) => item.recordId),
      );
      for (const child of children) {
        const first = openItemsOf(tx, child)[0];
        if (first) discardIn(tx, first);
      }
      for (const item of openItemsOf(tx, row.recordId))
        tx.delete(outbox).where(eq(outbox.seq, item.seq)).run();
      rebuildRow(tx, row.resource, row.recordId, null);
      return;
    }
    // The newer of the server's record met by the push (a conflict) and the version the open
    // edits apply to, which a later pull may have brought.
    const base = newer(
      row.serverRecord === null ? null : (JSON.parse(row.serverRecord) as Raw),
      chainBase(tx, row.recordId),
    );
    tx.delete(outbox).where(eq(outbox.seq, row.seq)).run();
    if (base) rebase(tx, row.recordId, base);
    // A conflict given up for the server's version: the user has now seen that version, so
    // later edits of the record are made on top of it, unless a colleague changed a field they
    // touch (then sending them would undo that change unseen, and the push asks the user).
    if (base && row.status === 'conflict') rebaseLaterEdits(tx, row, base);
    rebuildRow(tx, row.resource, row.recordId, base);
  }

  /**
   * Edit… of a `sending` edit. On its way with a live push: refused, its request has left. Left
   * by a push that is no more (interrupted): an update is safe to send again, so the new value
   * supersedes the one that may have been sent (the push reads the record before sending, as
   * for any update); a create may have made the record already, and the push finds it by the
   * values it was sent with, so it is refused until a sync has settled it.
   */
  function editInterrupted(profileId: string, tx: Tx, row: OutboxRow, input: unknown): OutboxItem {
    if (!interrupted(row, Date.now())) throw refuse(`${BEING_SENT}.`);
    if (row.operation === 'create') {
      const org = options.organisationName?.(profileId) ?? 'the server';
      throw refuse(
        `Satchel does not know yet whether this new ${specs[row.resource].label} reached ${org}: sending it was interrupted. Sync to find out, then edit it.`,
      );
    }
    const payload = validateEdit(tx, targetOf(row), input);
    // Written only onto the row as read, as a claim is: a pusher that has claimed it since wins.
    // The payload it may have been sent with is kept: the push takes the server holding it for
    // this edit's own earlier request, and sends the new value on top, rather than a conflict.
    const pending = writeIfAsRead(tx, row, {
      payload: JSON.stringify(payload),
      sentPayload: row.payload,
      status: 'pending',
      claimedBy: null,
      ...clearedError,
    });
    if (!pending) throw refuse(`${BEING_SENT}.`);
    rebuildRow(tx, row.resource, row.recordId, chainBase(tx, row.recordId));
    return toItem(tx, itemById(tx, row.operationId));
  }

  return {
    createSupplier: (profileId, input) =>
      edit(profileId, { resource: 'supplier', operation: 'create' }, input),
    updateSupplier: (profileId, supplierId, input) =>
      edit(profileId, { resource: 'supplier', operation: 'update', recordId: supplierId }, input),
    createDimension: (profileId, input) =>
      edit(profileId, { resource: 'dimension', operation: 'create' }, input),
    updateDimension: (profileId, dimensionId, input) =>
      edit(profileId, { resource: 'dimension', operation: 'update', recordId: dimensionId }, input),
    createDimensionItem: (profileId, dimensionId, input) =>
      edit(profileId, { resource: 'dimensionItem', operation: 'create', parentId: dimensionId }, input),
    updateDimensionItem: (profileId, dimensionId, itemId, input) =>
      edit(
        profileId,
        { resource: 'dimensionItem', operation: 'update', recordId: itemId, parentId: dimensionId },
        input,
      ),
    list(profileId) {
      const db = options.cacheOf(profileId).db;
      return openItems(db).map((row) => toItem(db, row));
    },
    retry(profileId, operationId) {
      const cache = options.cacheOf(profileId);
      return cache.db.transaction((tx) => {
        const row = open(tx, operationId);
        if (row.status === 'conflict')
          throw refuse('Resolve the conflict first: keep yours, take theirs, or merge.');
        if (row.status === 'failed') {
          // Checked again as when it was saved: the cache may know more now (the dimension a
          // refused item was added to has since shown deleted), and then sending it again would
          // only be refused again. The error is thrown on its field and the edit stays failed.
          validateEdit(tx, targetOf(row), JSON.parse(row.payload) as Payload);
          setItem(tx, row.seq, { status: 'pending', ...clearedError });
        }
        return toItem(tx, itemById(tx, operationId));
      });
    },
    edit(profileId, operationId, input) {
      const cache = options.cacheOf(profileId);
      return cache.db.transaction((tx) => {
        const row = open(tx, operationId);
        if (row.status === 'sending') return editInterrupted(profileId, tx, row, input);
        const payload = validateEdit(tx, targetOf(row), input);
        setItem(tx, row.seq, {
          payload: JSON.stringify(payload),
          ...(row.status === 'failed' ? { status: 'pending' as const, ...clearedError } : {}),
        });
        rebuildRow(tx, row.resource, row.recordId, chainBase(tx, row.recordId));
        return toItem(tx, itemById(tx, operationId));
      });
    },
    discard(profileId, operationId) {
      const cache = options.cacheOf(profileId);
      cache.db.transaction((tx) => {
        const row = open(tx, operationId);
        // Its request has left with a live push (a create reaches the server whatever the
        // outbox says then); one left `sending` by a process that is gone is free to discard.
        if (claimedElsewhere(row, newClaimant(), Date.now()))
          throw refuse(`${BEING_SENT}, then discard it if it is still listed.`);
        discardIn(tx, row);
      });
    },
    resolve(profileId, operationId, resolution) {
      const cache = options.cacheOf(profileId);
      return cache.db.transaction((tx) => {
        const row = open(tx, operationId);
        if (row.status !== 'conflict' || row.serverRecord === null)
          throw refuse('This edit is not in conflict.');
        const server = JSON.parse(row.serverRecord) as Raw;
        const version = typeof server.updateTime === 'string' ? server.updateTime : null;
        if (resolution === 'theirs') {
          discardIn(tx, row);
          return null;
        }
        const payload =
          resolution === 'mine' ? undefined : validateEdit(tx, targetOf(row), resolution.merged, server);
        // The edit is sent on the server's version; later edits of the record follow it there
        // by the same rule as when taking theirs: those on a field the colleague changed stay
        // on their own version, and the push asks the user about them. A field this resolution
        // gives the user's value (kept, or merged to other than the colleague's) is the user's
        // from now on: a later edit of it is the user's own next change, sent without asking.
        const settledPayload = payload ?? (JSON.parse(row.payload) as Payload);
        const spec = specs[row.resource];
        const mine = Object.fromEntries(
          Object.entries(settledPayload).filter(
            ([field, value]) => resolution === 'mine' || !sameJson(spec.fieldValue(server, field), value),
          ),
        );
        setItem(tx, row.seq, {
          status: 'pending',
          serverRecord: null,
          sentPayload: null,
          basedOn: version,
          basedOnRecord: JSON.stringify(server),
          ...clearedError,
          ...(payload ? { payload: JSON.stringify(payload) } : {}),
        });
        rebase(tx, row.recordId, server);
        rebaseLaterEdits(tx, row, server, { version, record: server, mine });
        rebuildRow(tx, row.resource, row.recordId, server);
        return toItem(tx, itemById(tx, operationId));
      });
    },
    push(profileId, signal) {
      const running = pushes.get(profileId);
      if (running) return running;
      const sendNothing = (why: AppError) =>
        Promise.resolve({
          sent: 0,
          failed: 0,
          conflicts: 0,
          remaining: waitingIn(profileId),
          stoppedBy: why.toShape(),
        });
      if (options.networkDown?.(profileId)) return sendNothing(new AppError('OFFLINE', NO_NETWORK_MESSAGE));
      const cache = options.cacheOf(profileId);
      // Another process pushing the same edits would send a create it has on its way again.
      let lease: HeldLease;
      const stopper = new AbortController();
      try {
        // A lease taken over while this push was silent (sync/lease.ts) stops it before its next
        // request of an edit, or at its next write, with nothing more sent or written.
        lease = leases.hold(profileId, cache, (lost) => stopper.abort(lost));
      } catch (error) {
        if (error instanceof AppError && error.code === 'BUSY') return sendNothing(error);
        throw error;
      }
      const done = pushOutbox({
        cache,
        client: options.clientOf(profileId),
        signal: signal ? AbortSignal.any([signal, stopper.signal]) : stopper.signal,
        lease,
        ...(options.now ? { now: options.now } : {}),
        ...(options.onPushProgress
          ? { onProgress: (progress: PushProgress) => options.onPushProgress?.(profileId, progress) }
          : {}),
      }).finally(() => {
        pushes.delete(profileId);
        stoppers.delete(profileId);
        lease.release();
      });
      pushes.set(profileId, done);
      stoppers.set(profileId, stopper);
      return done;
    },
    isPushing: (profileId) => pushes.has(profileId),
    cancelPush(profileId) {
      const stopper = stoppers.get(profileId);
      if (!stopper || stopper.signal.aborted) return false;
      stopper.abort(new AppError('CANCELLED', 'Sending offline edits was cancelled.'));
      return true;
    },
    supplierNumbering: (profileId) => supplierNumbering(options.cacheOf(profileId).db),
    setSupplierNumbering: (profileId, numbering) =>
      setSupplierNumbering(options.cacheOf(profileId).db, numbering),
  };
}
