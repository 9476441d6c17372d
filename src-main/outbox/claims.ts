import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { and, eq, isNull, type SQL } from 'drizzle-orm';
import { outbox, type CacheDb } from '../store';
import { processAlive } from '../sync/row-lease';
import type { Tx } from '../sync/types';
import type { OutboxRow } from './queue';

/**
 * Which pusher an offline edit is on its way with (`outbox.claimed_by`, docs/offline-edits.md,
 * "One pusher per edit"). The sync lease keeps a second process from pushing at all; a claim
 * keeps two pushers from sending one edit even where the lease did not keep them apart. An
 * edit is claimed by one conditional UPDATE that holds only if its row is still as the pusher
 * read it, so of two pushers only one wins.
 */

/** Who claims an edit: one per push, so two pushes of one process are told apart too. */
export interface Claimant {
  id: string;
  pid: number;
  host: string;
  /** As stored in `claimed_by`. */
  text: string;
}

export function newClaimant(): Claimant {
  const who = { id: randomUUID(), pid: process.pid, host: hostname() };
  return { ...who, text: JSON.stringify(who) };
}

/**
 * The claimants of pushes running in this process: a claim of this process not among them was
 * left by a push that ended without settling it (a write refused then), and is free.
 */
const running = new Set<string>();

/** Marks the claimant's push as running until the returned function is called. */
export function claiming(claimant: Claimant): () => void {
  running.add(claimant.id);
  return () => running.delete(claimant.id);
}

/**
 * Longer than any request of an edit lasts (a POST has one attempt of 30 s; a PATCH, safe to
 * repeat, may wait for the write bucket and retry): past it, a claim whose process cannot be
 * asked (another host sharing the folder, a process id reused) is free.
 */
export const CLAIM_EXPIRY_MS = 10 * 60_000;

/**
 * Whether another pusher's request of the edit may be on its way now. Free: no claim; the
 * claimant's own; a process of this host that is gone, or this process with no such push
 * running; a claim made longer ago than `CLAIM_EXPIRY_MS`.
 */
export function claimedElsewhere(item: OutboxRow, me: Claimant, nowMs: number): boolean {
  if (item.status !== 'sending' || item.claimedBy === null) return false;
  let claim: Partial<Claimant>;
  try {
    claim = JSON.parse(item.claimedBy) as Partial<Claimant>;
  } catch {
    return false;
  }
  if (claim.id === me.id) return false;
  if (claim.host === me.host && typeof claim.pid === 'number') {
    if (!processAlive(claim.pid)) return false;
    if (claim.pid === me.pid && typeof claim.id === 'string' && !running.has(claim.id)) return false;
  }
  const since = Date.parse(item.sentAt ?? '');
  return Number.isNaN(since) || nowMs - since < CLAIM_EXPIRY_MS;
}

/**
 * Whether a `sending` edit was interrupted: the push that sent it is no more (its process was
 * killed or crashed, or its answer never came), so nobody has its request on its way now,
 * and it may or may not have reached the server; the next push finds out (docs/offline-edits.md,
 * "Interrupted edits"). False for an edit a live push has on its way, by the rules above.
 */
export function interrupted(item: OutboxRow, nowMs: number): boolean {
  return item.status === 'sending' && !claimedElsewhere(item, newClaimant(), nowMs);
}

/** `column IS value`: equal, both null included. */
const same = <T extends string | number>(column: Parameters<typeof eq>[0], value: T | null): SQL =>
  value === null ? isNull(column) : eq(column, value);

/**
 * Writes `changes` to the edit only if its row is still as it was read (another pusher's claim
 * changes `attempts` and `claimed_by`; the user's change the payload, a discard the row), in
 * one statement: whether it changed a row is the verdict, with no window between a check and
 * the write for another process to slip into.
 */
export function writeIfAsRead(db: Tx | CacheDb['db'], item: OutboxRow, changes: Partial<OutboxRow>): boolean {
  const result = db
    .update(outbox)
    .set({ ...changes, updatedAt: new Date().toISOString() })
    .where(
      and(
        eq(outbox.seq, item.seq),
        eq(outbox.status, item.status),
        eq(outbox.attempts, item.attempts),
        eq(outbox.payload, item.payload),
        same(outbox.basedOn, item.basedOn),
        same(outbox.claimedBy, item.claimedBy),
      ),
    )
    .run();
  return result.changes === 1;
}

/**
 * Claims the edit for a request about to leave: `sending`, one attempt more, the claimant's
 * name. The edit as claimed, or null when another pusher claimed it first, or the user
 * changed or discarded it since it was read.
 */
export function claimEdit(
  db: Tx | CacheDb['db'],
  item: OutboxRow,
  claimant: Claimant,
  at: string,
  /** Written with the claim: an update moved onto the server's version its earlier request made. */
  also: Partial<OutboxRow> = {},
): OutboxRow | null {
  const changes = {
    ...also,
    status: 'sending' as const,
    attempts: item.attempts + 1,
    sentAt: at,
    claimedBy: claimant.text,
  };
  return writeIfAsRead(db, item, changes) ? { ...item, ...changes } : null;
}
