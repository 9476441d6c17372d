import { AppError } from '../src-shared/errors';
import type { OnlineState } from '../src-shared/ipc';
import type { Core } from './core';
import { log } from './log';

/** What File → Sync Now says when there is no network: the round waits for it. */
export const SYNC_NOW_OFFLINE_MESSAGE = 'Offline: Satchel syncs as soon as the network is back.';

/**
 * Background work of the app (docs/shell.md, "Background sync"): every organisation is synced
 * when the app starts, when it comes back online (its outbox pushed first), and on an interval
 * while online; each of those rounds also starts again the bulk downloads that were interrupted. While the API does not answer, one cheap request per organisation checks now
 * and then whether it is back. Work runs in rounds, one organisation after the other, so two
 * syncs of one organisation never run at once (a sync the user starts meanwhile is joined,
 * not doubled), and a trigger during a round runs one more round after it instead of piling
 * up. Runs in plain Node: the Electron shell feeds the network signal and the wake-ups.
 */

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface BackgroundOptions {
  core: Pick<Core, 'profiles' | 'sync' | 'outbox' | 'demo' | 'connectivity' | 'files' | 'notify'>;
  /** Between two syncs of every organisation while online; 15 minutes by default. */
  intervalMs?: number;
  /** Between two checks whether an unreachable API is back; one minute by default. */
  retryMs?: number;
  timers?: Timers;
}

export type RoundReason = 'start' | 'reconnect' | 'interval' | 'wake' | 'probe';

export interface Background {
  /** Subscribes to the online state and runs the first round if online. */
  start(): void;
  /** Runs a round now if online (after the system woke up); says nothing of what it meets. */
  wake(): void;
  /**
   * File → Sync Now: the user asked, so what keeps it from syncing is told as a notice (no
   * network; an organisation that another Satchel process syncs, in the words the Sync screen
   * uses). A round already running is the one asked for: it is not doubled, and its refusals,
   * past and to come, are told.
   */
  syncNow(): void;
  /** The round running now, if any (tests and the quit path wait for it). */
  idle(): Promise<void>;
  /**
   * Stops scheduling, cancels the running sync or push at a page boundary, and waits for the
   * round to end. Nothing runs afterwards.
   */
  stop(): Promise<void>;
}

export const DEFAULT_SYNC_INTERVAL_MS = 15 * 60_000;
export const DEFAULT_RETRY_MS = 60_000;

export function createBackground(options: BackgroundOptions): Background {
  const { core } = options;
  const timers = options.timers ?? realTimers;
  const intervalMs = options.intervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;

  let started = false;
  let stopped = false;
  let timer: unknown = null;
  let round: Promise<void> | null = null;
  let next: RoundReason | null = null;
  let working: { profileId: string; controller: AbortController } | null = null;
  let unsubscribe: (() => void) | null = null;
  /** Whether the user asked for the running round (Sync now), and its syncs refused as busy. */
  let asked = false;
  let refused: Array<{ profileId: string; message: string }> = [];

  /** Names the organisation when there are several, so the notice says which one waits. */
  function tellRefused(entry: { profileId: string; message: string }): void {
    const profiles = core.profiles.list();
    const name = profiles.find((profile) => profile.id === entry.profileId)?.name;
    core.notify('info', profiles.length > 1 && name ? `${name}: ${entry.message}` : entry.message);
  }

  function schedule(): void {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    if (stopped) return;
    const state = core.connectivity.state();
    if (state.online) timer = timers.setTimeout(() => trigger('interval'), intervalMs);
    else if (state.reason === 'unreachable') timer = timers.setTimeout(() => trigger('probe'), retryMs);
    // Offline by the system's signal: wait for the signal to come back.
  }

  function trigger(reason: RoundReason): void {
    if (stopped) return;
    if (round) {
      // The round that runs covers an interval, a wake-up or a check; a reconnect runs one
      // more round after it, because its push must not be lost.
      if (reason === 'reconnect') next = 'reconnect';
      return;
    }
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    round = runRound(reason).finally(() => {
      round = null;
      asked = false;
      refused = [];
      const again = next;
      next = null;
      if (again && !stopped) trigger(again);
      else schedule();
    });
  }

  async function step(profileId: string, work: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    const controller = new AbortController();
    working = { profileId, controller };
    try {
      await work(controller.signal);
    } catch (error) {
      // Failures are the sync's to report (history, events); here they only end the step.
      if (!(error instanceof AppError)) log.error('background work failed:', error);
    } finally {
      working = null;
    }
  }

  async function runRound(reason: RoundReason): Promise<void> {
    const online = () => !stopped && core.connectivity.state().online;
    if (reason === 'probe') {
      if (stopped || core.connectivity.state().reason !== 'unreachable') return;
      // One cheap read per organisation; an answer flips the state and the reconnect follows.
      for (const profile of core.profiles.list()) {
        if (stopped || core.connectivity.state().online) return;
        await step(profile.id, async (signal) => {
          await core.demo.ensureFor(profile.id);
          await core.sync.clientOf(profile.id).verify(signal);
        });
      }
      return;
    }
    if (!online()) return;
    const profiles = core.profiles.list();
    if (reason === 'reconnect') {
      for (const profile of profiles) {
        if (!online()) return;
        await step(profile.id, async (signal) => {
          await core.demo.ensureFor(profile.id);
          await core.outbox.push(profile.id, signal);
        });
      }
    }
    {
      // Bulk downloads a quit, a kill or the lost network interrupted go on by themselves (they
      // leave half of each rate-limit window to the sync below). Every round tries, so a
      // download cut off by one organisation's server going down goes on once it is back,
      // even while the app as a whole stayed online.
      for (const profile of profiles) {
        if (!online()) return;
        await step(profile.id, async () => {
          await core.demo.ensureFor(profile.id);
          core.files.resumeInterrupted(profile.id);
        });
      }
    }
    for (const profile of profiles) {
      if (!online()) return;
      await step(profile.id, async (signal) => {
        await core.demo.ensureFor(profile.id);
        if (signal.aborted) return;
        const run = core.sync.sync(profile.id);
        // Stopping cancels this organisation's run, whoever started it: the app is closing.
        const cancel = () => core.sync.cancel(profile.id);
        signal.addEventListener('abort', cancel, { once: true });
        try {
          await run;
        } catch (error) {
          // Another process syncs it (lease.ts): silent in a round of the app's own, told when
          // the user asked. Any other failure is the sync's to report.
          if (error instanceof AppError && error.code === 'BUSY') {
            const entry = { profileId: profile.id, message: error.message };
            refused.push(entry);
            if (asked) tellRefused(entry);
          }
          throw error;
        } finally {
          signal.removeEventListener('abort', cancel);
        }
      });
    }
  }

  function onChange(state: OnlineState, previous: OnlineState): void {
    if (state.online && !previous.online) trigger('reconnect');
    else if (!round) schedule();
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      unsubscribe = core.connectivity.subscribe(onChange);
      if (core.connectivity.state().online) trigger('start');
      else schedule();
    },
    wake() {
      if (started && !stopped && core.connectivity.state().online) trigger('wake');
    },
    syncNow() {
      if (!started || stopped) return;
      if (!core.connectivity.state().online) {
        core.notify('info', SYNC_NOW_OFFLINE_MESSAGE);
        return;
      }
      if (round) {
        if (!asked) for (const entry of refused) tellRefused(entry);
        asked = true;
        return;
      }
      asked = true;
      trigger('wake');
    },
    idle: async () => {
      while (round) await round;
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      unsubscribe = null;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      next = null;
      working?.controller.abort(new AppError('CANCELLED', 'Satchel is closing.'));
      while (round) await round;
    },
  };
}
