import { AppError } from '../../src-shared/errors';
import type { LastFill } from '../../src-shared/files';
import type { EventBus } from '../events';
import { fillOffline, type FillResult, type OfflineDeps } from './offline';
import type { ReadShare } from './share';

/**
 * Each organisation's fill of the offline file cache (offline.ts `fillOffline`): rounds until
 * one ends with nothing new asked of it, how the last one of the session ended, and the
 * `files.offline` events the Files area and the panes read the usage on.
 */

/** Files put in place by a fill are told to the renderer at most this often. */
const FILL_REPORT_MS = 250;

interface Fill {
  /** The running round's; replaced for each round. */
  controller: AbortController;
  /** Another round is to follow this one (new files, or a new scope). */
  again: boolean;
  stopped: boolean;
  done: Promise<FillResult>;
}

export interface FillsOptions {
  events: EventBus;
  nowIso: () => string;
  deps: (profileId: string) => OfflineDeps;
  share: (profileId: string) => ReadShare;
}

export interface Fills {
  /** Whether the organisation's cache is being filled now. */
  filling(profileId: string): boolean;
  /** How its last fill of this session ended (shown with the usage). */
  last(profileId: string): LastFill | null;
  /**
   * Brings the cache to its scope: a fill asked for while one runs (a sync that brought new
   * files) is a round after the running one, and is answered when that fill's last round ends.
   */
  fill(profileId: string): Promise<FillResult>;
  /** The scope changed: the running round stops (nothing more is fetched for it), another follows. */
  rescope(profileId: string): void;
  /** Stops the organisation's fill, if one runs; what it returns settles when it has stopped. */
  stop(profileId: string, reason: AppError): Promise<unknown> | undefined;
  /** Forgets how the organisation's last fill ended. */
  forget(profileId: string): void;
  /** Organisations with a fill running. */
  profiles(): Iterable<string>;
}

export function createFills(options: FillsOptions): Fills {
  const fills = new Map<string, Fill>();
  const lastFills = new Map<string, LastFill>();

  /**
   * The organisation's fill: rounds of `fillOffline` until one ends with nothing new asked of
   * it. A fill asked for while one runs (a sync that brought new files) is a round after the
   * running one; a new scope also stops the running round, so that no file is fetched for a
   * scope or a budget that no longer holds.
   */
  function startFill(profileId: string): Fill {
    const fill: Fill = {
      controller: new AbortController(),
      again: false,
      stopped: false,
      done: Promise.resolve({ fetched: 0, evicted: 0, failed: 0 }),
    };
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
      if (!fill.stopped)
        lastFills.set(profileId, {
          finishedAt: options.nowIso(),
          fetched: total.fetched,
          failed: total.failed,
          problem,
        });
    };
    fill.done = (async () => {
      for (;;) {
        try {
          const round = await fillOffline(
            options.deps(profileId),
            options.share(profileId),
            fill.controller.signal,
            onFetched,
          );
          total.evicted += round.evicted;
          total.failed += round.failed;
        } catch (error) {
          // No network, say: a new scope still gets its round (what it evicts needs none).
          if (!fill.again || fill.stopped) {
            ended(error instanceof Error ? error.message : String(error));
            throw error;
          }
        }
        if (!fill.again || fill.stopped) {
          ended(null);
          return total;
        }
        fill.again = false;
        fill.controller = new AbortController();
      }
    })().finally(() => {
      if (fills.get(profileId) === fill) fills.delete(profileId);
      report(false);
    });
    fills.set(profileId, fill);
    // Its start too: the Files area reads the usage on these events, never on a timer.
    options.events.emit('files.offline', { profileId, fetched: 0, filling: true });
    return fill;
  }

  return {
    filling: (profileId) => fills.has(profileId),
    last: (profileId) => lastFills.get(profileId) ?? null,
    fill(profileId) {
      const current = fills.get(profileId);
      if (current && !current.stopped) {
        current.again = true;
        return current.done;
      }
      return startFill(profileId).done;
    },
    rescope(profileId) {
      const fill = fills.get(profileId);
      if (fill && !fill.stopped) {
        fill.again = true;
        fill.controller.abort(new AppError('CANCELLED', 'The keep-offline setting changed.'));
      }
    },
    stop(profileId, reason) {
      const fill = fills.get(profileId);
      if (!fill) return undefined;
      fill.stopped = true;
      fill.controller.abort(reason);
      return fill.done.catch(() => undefined);
    },
    forget(profileId) {
      lastFills.delete(profileId);
    },
    profiles: () => fills.keys(),
  };
}
