import type Database from 'better-sqlite3';
import { and, between, count, gte } from 'drizzle-orm';
import { z } from 'zod';
import { bankTransactionFees, bankTransactions } from '../store';
import { addDays, dateWindows, toIsoDate } from './dates';
import { parseEach } from './paging';
import type { ResourceContext, ResourceSync, Tx } from './types';
import { WireBankTransaction, hasMorePages, listEnvelope } from './wire';
import { deleteChildren, insertRows, markUnseenDeleted, money, upsertRows } from './write';

/**
 * Bank transactions by booking-date windows through the v1 search (both dates required).
 * The first sync reads the whole history; every later one re-reads a trailing window (60 days
 * by default) so changed `matched` flags and late fees arrive, and marks rows that vanished
 * from a re-read window as deleted. Windows are 90 days so an interrupted window is cheap to
 * redo; the cursor remembers the window, its page and when its read began.
 */

const PAGE_SIZE = 100;
const WINDOW_DAYS = 90;
/** Before the first window: a date no organisation's history starts earlier than. */
const EPOCH = '2000-01-01';

const WindowState = z.object({ historyFrom: z.string(), doneThrough: z.string().nullable() });
const Cursor = z.object({
  from: z.string(),
  to: z.string(),
  page: z.number().int().min(1),
  readStartedAt: z.string(),
  rangeTo: z.string(),
  attempt: z.number().int().min(0).default(0),
  /** `totalItems` of this read's first page: a later page that says otherwise saw a shift. */
  total: z.number().int().nullable().default(null),
  /** Ids of records this read listed but could not parse: there upstream, not deleted. */
  unread: z.array(z.string()).default([]),
});
type Cursor = z.infer<typeof Cursor>;

function toRow(record: WireBankTransaction, syncedAt: string) {
  const amount = money(record.amount);
  return {
    id: record.id,
    bankAccountId: record.bankAccountId,
    organisationId: record.organisationId ?? null,
    transactionType: record.transactionType ?? null,
    amountMinor: amount.minor ?? 0,
    amountCurrency: amount.currency ?? record.amount.currency,
    bookingDate: record.bookingDate,
    valueDate: record.valueDate ?? null,
    description: record.description ?? null,
    counterparty: record.counterparty ?? null,
    groupId: record.groupId ?? null,
    bankAccountNumber: record.bankAccountNumber ?? null,
    matched: record.matched ?? false,
    createTime: record.createTime ?? null,
    updateTime: record.updateTime ?? null,
    raw: JSON.stringify(record),
    syncedAt,
    deletedAt: null,
  };
}

export function writeTransactions(
  db: Database.Database,
  records: WireBankTransaction[],
  syncedAt: string,
): number {
  const written = upsertRows(
    db,
    bankTransactions,
    records.map((record) => toRow(record, syncedAt)),
  );
  const ids = records.map((record) => record.id);
  if (ids.length > 0) deleteChildren(db, bankTransactionFees, 'transactionId', ids);
  const fees = records.flatMap((record) =>
    (record.fees ?? []).map((fee, position) => {
      const amount = money(fee.amount);
      return {
        transactionId: record.id,
        position,
        feeType: fee.feeType,
        amountMinor: amount.minor ?? 0,
        amountCurrency: fee.amount.currency,
      };
    }),
  );
  insertRows(db, bankTransactionFees, fees);
  return written;
}

async function searchPage(
  context: ResourceContext,
  from: string,
  to: string,
  page: number,
  pageSize = PAGE_SIZE,
) {
  return context.client.request({
    method: 'POST',
    path: '/v1/bank-transactions/search-query',
    body: {
      bookingDateFrom: from,
      bookingDateTo: to,
      pagination: { page, pageSize },
      sorting: { field: 'bookingDate', direction: 'ASC' },
    },
    schema: listEnvelope,
    signal: context.signal,
  });
}

/** The earliest booking date the API knows, from one single-row page. */
async function earliestBookingDate(context: ResourceContext, today: string): Promise<string | null> {
  const first = await searchPage(context, EPOCH, today, 1, 1);
  const record = first.data[0] ? context.parseRecord(WireBankTransaction, first.data[0]) : null;
  return record?.bookingDate ?? (first.data.length > 0 ? EPOCH : null);
}

function nextWindow(cursor: Cursor, readStartedAt: string): Cursor {
  const from = addDays(cursor.to, 1);
  const to = addDays(from, WINDOW_DAYS - 1);
  return {
    from,
    to: to < cursor.rangeTo ? to : cursor.rangeTo,
    page: 1,
    readStartedAt,
    rangeTo: cursor.rangeTo,
    attempt: 0,
    total: null,
    unread: [],
  };
}

/** Rows of the window stored by this read: what the API listed, if nothing moved meanwhile. */
function seenInWindow(tx: Tx, cursor: Cursor): number {
  const row = tx
    .select({ seen: count() })
    .from(bankTransactions)
    .where(
      and(
        between(bankTransactions.bookingDate, cursor.from, cursor.to),
        gte(bankTransactions.syncedAt, cursor.readStartedAt),
      ),
    )
    .get();
  return row?.seen ?? 0;
}

/**
 * Reads one window page by page, then marks what it did not see there as deleted. Pages are
 * offsets, so a record added or removed upstream during the read can shift another past us
 * (a removal shifts the first row of the next page onto the page already read). Two signs
 * tell: a page whose `totalItems` differs from the first page's, or fewer rows seen than the
 * last page's total. Either way the window is read again (up to three times) before anything
 * is marked deleted; a removal alone keeps the count of rows seen equal to the new total.
 */
async function readWindow(
  context: ResourceContext,
  start: Cursor,
  state: z.infer<typeof WindowState>,
): Promise<void> {
  let cursor = start;
  for (;;) {
    const answer = await searchPage(context, cursor.from, cursor.to, cursor.page);
    const { parsed, unread } = parseEach(context, WireBankTransaction, answer.data);
    const records = parsed.map((entry) => entry.record);
    const hasMore = hasMorePages(answer, PAGE_SIZE);
    const total = answer.meta?.pagination.totalItems ?? null;
    const read = {
      ...cursor,
      total: cursor.page === 1 ? total : cursor.total,
      unread: [...cursor.unread, ...unread],
    };
    const steady = cursor.page === 1 || total === cursor.total;
    const syncedAt = context.now().toISOString();
    if (hasMore) {
      cursor = { ...read, page: cursor.page + 1 };
      const saved = cursor;
      context.commitPage((_tx, db) => writeTransactions(db, records, syncedAt), { cursor: saved });
      continue;
    }
    let next: Cursor | null = cursor.to >= cursor.rangeTo ? null : nextWindow(cursor, syncedAt);
    context.commitPage(
      (tx, db) => {
        const written = writeTransactions(db, records, syncedAt);
        const consistent =
          total === null || (steady && seenInWindow(tx, cursor) + read.unread.length >= total);
        if (consistent) {
          markUnseenDeleted(
            tx,
            bankTransactions,
            between(bankTransactions.bookingDate, cursor.from, cursor.to),
            cursor.readStartedAt,
            syncedAt,
            read.unread,
          );
        } else if (cursor.attempt < 2) {
          next = {
            ...cursor,
            page: 1,
            readStartedAt: syncedAt,
            attempt: cursor.attempt + 1,
            total: null,
            unread: [],
          };
        }
        return written;
      },
      // Evaluated after `write`, inside the same transaction: `next` is final by then.
      () =>
        next === null
          ? { cursor: null, windowState: { ...state, doneThrough: cursor.rangeTo }, completedAt: syncedAt }
          : { cursor: next },
    );
    return;
  }
}

export const bankTransactionsSync: ResourceSync = {
  resource: 'bankTransactions',
  async pull(context) {
    // One day ahead of UTC today, so a booking dated "today" in any time zone is inside.
    const today = addDays(toIsoDate(context.now()), 1);
    const checkpoint = context.checkpoint();
    const saved = WindowState.safeParse(checkpoint?.windowState);
    let state = saved.success ? saved.data : null;
    const resumed = Cursor.safeParse(checkpoint?.cursor);
    let cursor: Cursor | null = resumed.success ? resumed.data : null;

    if (!cursor) {
      let from: string;
      if (!state?.doneThrough) {
        const earliest = await earliestBookingDate(context, today);
        if (earliest === null) {
          context.commitPage(() => 0, {
            windowState: { historyFrom: EPOCH, doneThrough: today },
            completedAt: context.now().toISOString(),
          });
          return;
        }
        state = { historyFrom: earliest, doneThrough: null };
        from = earliest;
      } else {
        // Re-read the trailing window, and anything since the last sync if that is longer ago.
        const trailing = addDays(today, -context.trailingDays);
        from = state.doneThrough < trailing ? addDays(state.doneThrough, -context.trailingDays) : trailing;
      }
      const [first] = dateWindows(from, today, WINDOW_DAYS);
      if (!first) return;
      cursor = {
        ...first,
        page: 1,
        readStartedAt: context.now().toISOString(),
        rangeTo: today,
        attempt: 0,
        total: null,
        unread: [],
      };
      context.commitPage(() => 0, { cursor, windowState: state });
    }
    const current = state ?? { historyFrom: cursor.from, doneThrough: null };
    while (cursor) {
      await readWindow(context, cursor, current);
      const next = Cursor.safeParse(context.checkpoint()?.cursor);
      cursor = next.success ? next.data : null;
    }
  },
};
