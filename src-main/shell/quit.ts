/**
 * Quitting: the first `will-quit` is held back while the core closes (the running page
 * transaction finishes, syncs and pushes stop, every cache is closed); then the app quits for
 * real. A deadline keeps a hung request from keeping the app alive: every page is one SQLite
 * transaction, so quitting after it is still safe, only less tidy.
 */

export const QUIT_DEADLINE_MS = 10_000;

export interface QuitSequence {
  /**
   * Called on every `will-quit`. True: let this one through. False: prevent it; `quit` is
   * called once closing is done (or the deadline passed).
   */
  willQuit(quit: () => void): boolean;
  /** 'closed', or 'timed-out' when the deadline cut closing short; null while running. */
  outcome(): 'closed' | 'timed-out' | null;
}

export function createQuitSequence(options: {
  close: () => Promise<void>;
  deadlineMs?: number;
  onError?: (error: unknown) => void;
}): QuitSequence {
  const deadlineMs = options.deadlineMs ?? QUIT_DEADLINE_MS;
  let state: 'running' | 'closing' | 'done' = 'running';
  let outcome: 'closed' | 'timed-out' | null = null;

  return {
    willQuit(quit) {
      if (state === 'done') return true;
      if (state === 'closing') return false;
      state = 'closing';
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<'timed-out'>((resolve) => {
        timer = setTimeout(() => resolve('timed-out'), deadlineMs);
      });
      const closing = options.close().then(
        () => 'closed' as const,
        (error: unknown) => {
          options.onError?.(error);
          return 'closed' as const;
        },
      );
      void Promise.race([closing, deadline]).then((result) => {
        clearTimeout(timer);
        outcome = result;
        state = 'done';
        quit();
      });
      return false;
    },
    outcome: () => outcome,
  };
}
