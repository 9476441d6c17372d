import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { AppError } from '../../src-shared/errors';
import { dimensionItems, organisationSettings, outbox, type CacheDb } from '../store';
import type { Tx } from '../sync/types';
import {
  LOCAL_ID_PREFIX,
  sameJson,
  sameVersion,
  specs,
  type OutboxResource,
  type Payload,
  type Raw,
} from './records';

/**
 * The outbox table and the cache rows it drives. Every function here runs inside one SQLite
 * transaction given by the caller, so an edit and its row, or a server answer and the edits it
 * settles, are written together or not at all.
 *
 * A record's row is always derived the same way (`rebuildRow`): the server's version the
 * chain of edits started from (`base`), with the payload of every open edit applied in order.
 * With no open edit left the row is the server's record and `local_edit_pending` is 0.
 */

export type OutboxRow = typeof outbox.$inferSelect;
export type OutboxStatus = OutboxRow['status'];
export const OPEN_STATUSES: OutboxStatus[] = ['pending', 'sending', 'failed', 'conflict'];

const nowIso = () => new Date().toISOString();
const parse = (json: string | null): Raw | null => (json === null ? null : (JSON.parse(json) as Raw));

export function openItemsOf(tx: Tx, recordId: string): OutboxRow[] {
  return tx
    .select()
    .from(outbox)
    .where(and(eq(outbox.recordId, recordId), inArray(outbox.status, OPEN_STATUSES)))
    .orderBy(asc(outbox.seq))
    .all();
}

export function openItems(db: CacheDb['db'] | Tx): OutboxRow[] {
  return db.select().from(outbox).where(inArray(outbox.status, OPEN_STATUSES)).orderBy(asc(outbox.seq)).all();
}

export function itemById(db: CacheDb['db'] | Tx, operationId: string): OutboxRow {
  const row = db.select().from(outbox).where(eq(outbox.operationId, operationId)).get();
  if (!row) throw new AppError('NOT_FOUND', 'No such offline edit; it may have been sent or discarded.');
  return row;
}

export function readRow(tx: Tx, resource: OutboxResource, id: string): Raw | null {
  const table = specs[resource].table;
  const row = tx.select({ raw: table.raw }).from(table).where(eq(table.id, id)).get();
  return row ? parse(row.raw) : null;
}

/** Writes (or removes) a record's row: `base` with the record's open edits applied. */
export function rebuildRow(tx: Tx, resource: OutboxResource, recordId: string, base: Raw | null): Raw | null {
  const spec = specs[resource];
  const items = openItemsOf(tx, recordId);
  let raw = base;
  for (const item of items) {
    const payload = JSON.parse(item.payload) as Payload;
    raw =
      item.operation === 'create'
        ? spec.applyCreate(payload, recordId, item.parentId)
        : raw && spec.applyUpdate(raw, payload);
  }
  const table = spec.table;
  if (!raw) {
    tx.delete(table).where(eq(table.id, recordId)).run();
    return null;
  }
  const row = {
    ...spec.columns(raw),
    raw: JSON.stringify(raw),
    deletedAt: null,
    localEditPending: items.length > 0,
    ...(items.length === 0 ? { syncedAt: nowIso() } : {}),
  };
  tx.insert(table)
    .values(row as never)
    .onConflictDoUpdate({ target: table.id, set: row as never })
    .run();
  return raw;
}

/** The server version a record's open edits started from (null for a record created here). */
export function chainBase(tx: Tx, recordId: string): Raw | null {
  const first = openItemsOf(tx, recordId)[0];
  return first ? parse(first.base) : null;
}

/** Sets the server version every open edit of a record builds on (`base`, what its row shows them on). */
export function rebase(tx: Tx, recordId: string, base: Raw): void {
  tx.update(outbox)
    .set({ base: JSON.stringify(base), updatedAt: nowIso() })
    .where(and(eq(outbox.recordId, recordId), inArray(outbox.status, OPEN_STATUSES)))
    .run();
}

/**
 * The server's record as colleagues left it, under the user's settled edit (`rebaseLaterEdits`):
 * the version a conflict met (or the one taken), or the version an edit was sent on.
 */
export interface TheirVersion {
  version: string | null;
  /** Null when not known (an edit queued before `based_on_record` was kept, migration 0016). */
  record: Raw | null;
  /** Fields whose value on the server is the user's, whoever set it (an edit found there). */
  mine?: Payload;
}

/**
 * Moves the later edits of a record onto the server's version `onto` (their `based_on` and
 * `based_on_record`), so that the push sends them as changes on top of it, unless a colleague
 * changed one of their fields: then sending would overwrite the colleague's value unseen, so
 * the edit stays on the version it was made on and the push meets it as a conflict for the user.
 *
 * `settled` is the edit just settled: a conflict resolved (keep mine, merged, take theirs; the
 * colleague's version is then `onto` itself), or an edit sent or found on the server. A field
 * the colleague changed is one whose value differs between the version a later edit was made
 * on and `theirs`. An edit made on `theirs` itself moves as it is; one whose version is not
 * known stays for the user.
 */
export function rebaseLaterEdits(
  tx: Tx,
  settled: Pick<OutboxRow, 'seq' | 'resource' | 'recordId'>,
  onto: Raw,
  theirs: TheirVersion = {
    version: typeof onto.updateTime === 'string' ? onto.updateTime : null,
    record: onto,
  },
): void {
  const spec = specs[settled.resource];
  const version = typeof onto.updateTime === 'string' ? onto.updateTime : null;
  const colleagueChanged = (made: Raw, field: string) =>
    !(theirs.mine && field in theirs.mine) &&
    !sameJson(spec.fieldValue(made, field), theirs.record && spec.fieldValue(theirs.record, field));
  for (const later of openItemsOf(tx, settled.recordId)) {
    if (later.seq <= settled.seq || later.operation !== 'update' || later.status === 'sending') continue;
    if (sameVersion(later.basedOn, version)) continue;
    if (!sameVersion(later.basedOn, theirs.version)) {
      const made = parse(later.basedOnRecord);
      if (!made || !theirs.record) continue;
      const fields = Object.keys(JSON.parse(later.payload) as Payload);
      if (fields.some((field) => colleagueChanged(made, field))) continue;
    }
    setItem(tx, later.seq, { basedOn: version, basedOnRecord: JSON.stringify(onto) });
  }
}

export interface NewEdit {
  resource: OutboxResource;
  operation: 'create' | 'update';
  recordId?: string;
  parentId?: string | null;
  payload: Payload;
}

/** Records an edit and applies it to the cache. Returns the operation id and the record as it now stands. */
export function enqueue(tx: Tx, edit: NewEdit): { operationId: string; recordId: string; record: Raw } {
  const operationId = randomUUID();
  let recordId: string;
  let base: Raw | null = null;
  let basedOn: string | null = null;
  let basedOnRecord: Raw | null = null;
  if (edit.operation === 'create') {
    recordId = `${LOCAL_ID_PREFIX}${randomUUID()}`;
  } else {
    recordId = edit.recordId ?? '';
    const current = readRow(tx, edit.resource, recordId);
    if (!current)
      throw new AppError(
        'NOT_FOUND',
        `No ${specs[edit.resource].label} ${recordId} is in the offline copy. Sync, then try again.`,
      );
    const chain = openItemsOf(tx, recordId);
    base = chain.length > 0 ? chainBase(tx, recordId) : current;
    basedOn = typeof current.updateTime === 'string' ? current.updateTime : null;
    // The server's record at that version: the chain's base, unless a pull has replaced it
    // since, in which case an earlier edit made on the same version still has it.
    basedOnRecord =
      [base, ...chain.map((item) => parse(item.basedOnRecord))].find(
        (raw) => raw !== null && basedOn !== null && sameVersion(raw.updateTime, basedOn),
      ) ?? null;
  }
  const stamp = nowIso();
  tx.insert(outbox)
    .values({
      operationId,
      resource: edit.resource,
      operation: edit.operation,
      recordId,
      parentId: edit.parentId ?? null,
      payload: JSON.stringify(edit.payload),
      basedOn,
      base: base === null ? null : JSON.stringify(base),
      basedOnRecord: basedOnRecord === null ? null : JSON.stringify(basedOnRecord),
      createdAt: stamp,
      updatedAt: stamp,
    })
    .run();
  const record = rebuildRow(tx, edit.resource, recordId, base);
  return { operationId, recordId, record: record ?? {} };
}

/** Switches a provisional id to the server's everywhere it is used. */
export function mapLocalId(tx: Tx, resource: OutboxResource, localId: string, realId: string): void {
  const table = specs[resource].table;
  tx.delete(table).where(eq(table.id, localId)).run();
  tx.update(outbox).set({ recordId: realId }).where(eq(outbox.recordId, localId)).run();
  tx.update(outbox).set({ parentId: realId }).where(eq(outbox.parentId, localId)).run();
  if (resource === 'dimension') {
    const children = tx
      .select({ id: dimensionItems.id, raw: dimensionItems.raw })
      .from(dimensionItems)
      .where(eq(dimensionItems.dimensionId, localId))
      .all();
    for (const child of children) {
      const raw = { ...(JSON.parse(child.raw) as Raw), dimensionId: realId };
      tx.update(dimensionItems)
        .set({ dimensionId: realId, raw: JSON.stringify(raw) })
        .where(eq(dimensionItems.id, child.id))
        .run();
    }
  }
}

export function setItem(tx: Tx, seq: number, changes: Partial<OutboxRow>): void {
  tx.update(outbox)
    .set({ ...changes, updatedAt: nowIso() })
    .where(eq(outbox.seq, seq))
    .run();
}

export const clearedError = {
  errorCode: null,
  errorMessage: null,
  errorField: null,
  errorRemoteCode: null,
} as const;

// Organisation settings the API does not expose.

export type SupplierNumbering = 'manual' | 'erp';

export function supplierNumbering(db: CacheDb['db'] | Tx): SupplierNumbering {
  const row = db
    .select({ value: organisationSettings.value })
    .from(organisationSettings)
    .where(eq(organisationSettings.key, 'supplierNumbering'))
    .get();
  return row && JSON.parse(row.value) === 'erp' ? 'erp' : 'manual';
}

export function setSupplierNumbering(db: CacheDb['db'], numbering: SupplierNumbering): void {
  const row = { key: 'supplierNumbering', value: JSON.stringify(numbering), updatedAt: nowIso() };
  db.insert(organisationSettings)
    .values(row)
    .onConflictDoUpdate({ target: organisationSettings.key, set: row })
    .run();
}
