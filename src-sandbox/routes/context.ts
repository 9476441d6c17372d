import { DEFAULT_PAGE_SIZE, type PaginationMeta } from '../../src-shared/api';
import type { State } from '../data/state';
import { boundInstantMs, boundSeconds, isoFromSeconds } from '../data/time';
import type { Auth } from '../http/auth';
import { failure, notFound } from '../http/errors';

/** What every route module needs: the data, the clock, and a few list helpers. */
export interface RouteContext {
  state: State;
  auth: Auth;
  now: () => number;
  openapi: () => unknown;
}

export function nowIso(context: RouteContext): string {
  return isoFromSeconds(Math.floor(context.now() / 1000));
}

export function meta(page: number, pageSize: number, totalItems: number): { pagination: PaginationMeta } {
  const totalPages = Math.ceil(totalItems / pageSize);
  return { pagination: { page, pageSize, totalItems, totalPages, hasMore: page < totalPages } };
}

/** One page of a GET list from its `page` / `page_size` query parameters (already validated). */
export function pageOf<T>(
  items: readonly T[],
  query: Record<string, string | undefined>,
): { data: T[]; meta: ReturnType<typeof meta> } {
  const page = Number(query.page ?? 1);
  const pageSize = Number(query.page_size ?? DEFAULT_PAGE_SIZE);
  return {
    data: items.slice((page - 1) * pageSize, page * pageSize),
    meta: meta(page, pageSize, items.length),
  };
}

export function byId<T extends { id: string }>(items: readonly T[], id: string | undefined, what: string): T {
  const found = items.find((item) => item.id === id?.toLowerCase());
  if (!found) throw notFound(what);
  return found;
}

/**
 * Keeps records whose timestamp lies inside the optional inclusive bounds `<filter>__gte` and
 * `<filter>__lte` of the (validated) query. A lower bound after the upper one is a 400 naming
 * the lower, as for booking dates, rather than a range that silently matches nothing.
 */
export function within<T>(
  items: readonly T[],
  time: (item: T) => string,
  query: Record<string, string | undefined>,
  filter: 'update_time' | 'create_date',
): T[] {
  const gte = query[`${filter}__gte`];
  const lte = query[`${filter}__lte`];
  if (gte === undefined && lte === undefined) return [...items];
  if (gte !== undefined && lte !== undefined && boundInstantMs(gte, false) > boundInstantMs(lte, true))
    throw failure(400, 'VALIDATION_ERROR', `${filter}__gte is after ${filter}__lte.`, `${filter}__gte`);
  const low = gte === undefined ? -Infinity : boundSeconds(gte, false);
  const high = lte === undefined ? Infinity : boundSeconds(lte, true);
  return items.filter((item) => {
    const seconds = Date.parse(time(item)) / 1000;
    return seconds >= low && seconds <= high;
  });
}

/** Ordered by updateTime, then id: what a client syncing with `update_time__gte` pages through. */
export function byUpdateTime<T extends { id: string; updateTime: string }>(items: T[]): T[] {
  return items.sort((a, b) =>
    a.updateTime === b.updateTime ? (a.id < b.id ? -1 : 1) : a.updateTime < b.updateTime ? -1 : 1,
  );
}
