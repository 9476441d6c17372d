import { AppError } from '../../src-shared/errors';
import type { LastFill } from '../../src-shared/files';
import type { EventBus } from '../events';
import { log } from '../log';
import { isSqliteError } from '../store';
import type { HeldLease } from '../sync/row-lease';
import type { FillLeases } from './fill-lease';
import { fillOffline, type FillResult, type OfflineDeps } from './offline';
import type { ReadShare } from './share';

/**
 * Each organisation's fill of the offline file cache (offline.ts `fillOffline`): rounds until
 * one ends with nothing new asked of it, how the last one of the session ended, and the
 * `files.offline` events the Files area and the panes read the usage on. Across processes a
 * fill runs only while it holds the cache's fill lease (fill-lease.ts): one that finds another
 * process filling does not run, and this process looks again every heartbeat until the lease is
 * given back (the other may stop before it is done), then fills, so a scope changed meanwhile
 * is brought in here. A sweep (`fetch: false`: the fill's clean-up of the folder without a
 * request, for the command line, which exits after its sync) runs under the same lease, and is
 * left out while another process holds it.
 */

/** Files put in place by a fill are told to the renderer at most this often. */
const FILL_REPORT_MS = 250;

interface Fill {
  /** The running round's; replaced for each round. */
  controller: AbortController;
  /** Another round is to follow this one (new files, or a new scope). */
  again: boolean;
  stopped: boolean;
  /** Another process took the fill lease over: this fill stops and leaves the cache to it. */
  lost: boolean;
  /** Whether its rounds fetch the missing files, or only sweep (`fillOffline`'s `fetch`). */
  fetch: boolean;
  done: Promise<FillResult>;
}

export interface FillsOptions {
  events: EventBus;
  nowIso: () => string;
  deps: (profileId: string) => OfflineDeps;
  share: (profileId: string) => ReadShare;
  /** Who fills each cache across processes. */
  leases: FillLeases;
  /**
   * Told of an error SQLite raised that ended a fill (service.ts `onCacheError`): a write the
   * copy refused because it cannot be written any more turns it read-only, and the error given
   * back (the read-only words) is what the fill ends with.
   */
  onCacheError?: (profileId: string, error: unknown) => AppError | null | void;
}

export interface Fills {
  /** Whether the organisation's cache is being filled now. */
  filling(profileId: string): boolean;
  /** Whether another process (the command line, another window) fills it now. */
  fillingElsewhere(profileId: string): boolean;
  /** How its last fill of this session ended (shown with the usage). */
  last(profileId: string): LastFill | null;
  /**
   * Brings the cache to its scope: a fill asked for while one runs (a sync that brought new
   * files) is a round after the running one, and is answered when that fill's last round ends.
   * While another process fills the cache it does not run (`elsewhere` in the answer).
   */
  fill(profileId: string): Promise<FillResult>;
  /**
   * The fill's sweep alone, fetching nothing (`fillOffline` with `fetch: false`): for a process
   * about to exit. Answered by the running fill when there is one; not run at all while another
   * process fills.
   */
  sweep(profileId: string): Promise<FillResult>;
  /** The scope changed: the running round stops (nothing more is fetched for it), another follows. */
  rescope(profileId: string): void;
  /** Stops the organisation's fill, if one runs; what it returns settles when it has stopped. */
  stop(profileId: string, reason: AppError): Promise<unknown> | undefined;
  /** Forgets how the organisation's last fill ended. */
  forget(profileId: string): void;
  /** Organisations with a fill running, or waiting for another process's to end. */
  profiles(): Iterable<string>;
}

export function createFills(options: FillsOptions): Fills {
  const fills = new Map<string, Fill>();
  const lastFills = new Map<string, LastFill>();
  /** Organisations whose fill found another process filling: looked at again each heartbeat. */
  const waiting = new Map<string, ReturnType<typeof setInterval>>();
  const { leases } = options;

  function unwait(profileId: string): void {
    clearInterval(waiting.get(profileId));
    waiting.delete(profileId);
  }

  /** What a fill ends with after SQLite's `error`: the read-only words once the copy turned read-only. */
  function turned(profileId: string, error: unknown): unknown {
    if (!isSqliteError(error)) return error;
    return options.onCacheError?.(profileId, error) ?? error;
  }

  /** Fills once the other process has given the lease back (or is gone). */
  function waitForOther(profileId: string): void {
    if (waiting.has(profileId)) return;
    const timer = setInterval(() => {
      try {
        if (leases.elsewhere(options.deps(profileId).cache)) return;
      } catch (error) {
        // The cache cannot be read now (closed, removed): nothing to fill.
        log.warn('offline file cache: could not look whether another process fills it:', error);
        unwait(profileId);
        return;
      }
      unwait(profileId);
      fillNow(profileId).catch((error: unknown) => log.warn('offline file cache:', error));
    }, leases.heartbeatMs);
    timer.unref();
    waiting.set(profileId, timer);
  }

  function fillNow(profileId: string, fetch = true): Promise<FillResult> {
    const current = fills.get(profileId);
    if (current && !current.stopped) {
      // A running fill sweeps too: a sweep asks it for nothing more.
      if (!fetch) return current.done;
      current.again = true;
      current.fetch = true;
      return current.done;
    }
    return startFill(profileId, fetch);
  }

  /**
   * The organisation's fill: rounds of `fillOffline` until one ends with nothing new asked of
   * it. A fill asked for while one runs (a sync that brought new files) is a round after the
   * running one; a new scope also stops the running round, so that no file is fetched for a
   * scope or a budget that no longer holds.
   */
  function startFill(profileId: string, fetch: boolean): Promise<FillResult> {
    const fill: Fill = {
      controller: new AbortController(),
      again: false,
      stopped: false,
      lost: false,
      fetch,
      done: Promise.resolve({ fetched: 0, evicted: 0, failed: 0 }),
    };
    let lease: HeldLease | null;
    try {
      lease = leases.take(options.deps(profileId).cache, (error) => {
        fill.lost = true;
        fill.controller.abort(error);
      });
    } catch (error) {
      // Taking the lease is the fill's first write: refused, nothing ran. A rejection, never a
      // throw (the heartbeat of a fill waiting for another process calls this too).
      return Promise.reject(turned(profileId, error));
    }
    if (!lease) {
      // Not a failure: the other process brings the cache to its scope, and the usage says so.
      // A sweep is not worth waiting for: the other fill sweeps.
      if (fetch) waitForOther(profileId);
      options.events.emit('files.offline', { profileId, fetched: 0, filling: false });
      return Promise.resolve({ fetched: 0, evicted: 0, failed: 0, elsewhere: true });
    }
    unwait(profileId);
    const total: FillResult = { fetched: 0, evicted: 0, failed: 0 };
    // The renderer's panes say which files are on this computer: they hear of the files put in
    // place (a few times a second at most) and of the fill's end, which also evicted some.
    let reportTimer: ReturnType<typeof setTimeout> | null = null;
    const report = (filling: boolean) => {
      if (reportTimer) clearTimeout(reportTimer);
      reportTimer = null;
      options.events.emit('files.offline', { profileId, fetched: total.fetched, filling });
    };
    const onFetched = () => {
      total.fetched += 1;
      reportTimer ??= setTimeout(() => report(true), FILL_REPORT_MS);
    };
    const ended = (problem: string | null) => {
      // A sweep is no fill to report: the usage's "last fill" stays the last real one.
      if (!fill.stopped && fill.fetch)
        lastFills.set(profileId, {
          finishedAt: options.nowIso(),
          fetched: total.fetched,
          failed: total.failed,
          problem,
        });
    };
    const tookOver = () => {
      // Left to the process that took the lease over; this one fills again once it is free.
      if (fill.fetch) waitForOther(profileId);
      return { ...total, elsewhere: true };
    };
    fill.done = (async () => {
      for (;;) {
        try {
          const round = await fillOffline(
            options.deps(profileId),
            options.share(profileId),
            fill.controller.signal,
            onFetched,
            lease,
            { fetch: fill.fetch },
          );
          total.evicted += round.evicted;
          total.failed += round.failed;
        } catch (error) {
          if (fill.lost && !fill.stopped) return tookOver();
          // A write the copy refused: it is read-only now (or its disk is full, say), and no
          // round, new scope or not, could record what it fetched. The fill ends here.
          if (isSqliteError(error)) {
            const reason = turned(profileId, error);
            ended(reason instanceof Error ? reason.message : String(reason));
            throw reason;
          }
          // No network, say: a new scope still gets its round (what it evicts needs none).
          if (!fill.again || fill.stopped) {
            ended(error instanceof Error ? error.message : String(error));
            throw error;
          }
        }
        if (fill.lost && !fill.stopped) return tookOver();
        if (!fill.again || fill.stopped) {
          ended(null);
          return total;
        }
        fill.again = false;
        fill.controller = new AbortController();
      }
    })().finally(() => {
      lease.release();
      if (fills.get(profileId) === fill) fills.delete(profileId);
      report(false);
    });
    fills.set(profileId, fill);
    // Its start too: the Files area reads the usage on these events, never on a timer.
    options.events.emit('files.offline', { profileId, fetched: 0, filling: true });
    return fill.done;
  }

  return {
    filling: (profileId) => fills.has(profileId),
    fillingElsewhere: (profileId) => !fills.has(profileId) && leases.elsewhere(options.deps(profileId).cache),
    last: (profileId) => lastFills.get(profileId) ?? null,
    fill: (profileId) => fillNow(profileId),
    sweep: (profileId) => fillNow(profileId, false),
    rescope(profileId) {
      const fill = fills.get(profileId);
      if (fill && !fill.stopped) {
        fill.again = true;
        fill.controller.abort(new AppError('CANCELLED', 'The keep-offline setting changed.'));
      }
    },
    stop(profileId, reason) {
      unwait(profileId);
      const fill = fills.get(profileId);
      if (!fill) return undefined;
      fill.stopped = true;
      fill.controller.abort(reason);
      return fill.done.catch(() => undefined);
    },
    forget(profileId) {
      lastFills.delete(profileId);
    },
    profiles: () => new Set([...fills.keys(), ...waiting.keys()]),
  };
}
