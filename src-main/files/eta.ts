/**
 * Time left for a download, knowing the rate limit: the larger of what the bytes need at the
 * measured speed and what the requests need given the read bucket (requests left in this
 * window above the reserve, then whole windows). Pure, so it is tested on its own.
 */

export interface EtaInput {
  filesLeft: number;
  bytesLeft: number;
  /** Speed while transferring (bytes a second); 0 when not measured yet. */
  bytesPerSecond: number;
  /** Files a second while transferring; 0 when not measured yet. */
  filesPerSecond: number;
  nowMs: number;
  bucket: { limit: number; remaining: number; resetAtMs: number; reserve: number } | null;
  /** Length of the API's rate-limit window as observed; 60 s until one was seen. */
  windowMs: number;
}

export function estimateSeconds(input: EtaInput): number | null {
  if (input.filesLeft <= 0) return 0;
  const transfer =
    input.bytesPerSecond > 0
      ? input.bytesLeft / input.bytesPerSecond
      : input.filesPerSecond > 0
        ? input.filesLeft / input.filesPerSecond
        : null;
  let limited = 0;
  if (input.bucket) {
    const { limit, remaining, resetAtMs, reserve } = input.bucket;
    const usableNow = Math.max(0, remaining - reserve);
    const perWindow = Math.max(1, limit - reserve);
    if (input.filesLeft > usableNow) {
      const windows = Math.ceil((input.filesLeft - usableNow) / perWindow);
      const untilReset = Math.max(0, resetAtMs - input.nowMs);
      limited = (untilReset + (windows - 1) * input.windowMs) / 1000;
      // The last window's requests still take their transfer time.
      const lastWindowFiles = input.filesLeft - usableNow - (windows - 1) * perWindow;
      if (input.filesPerSecond > 0) limited += lastWindowFiles / input.filesPerSecond;
    }
  }
  if (transfer === null && limited === 0) return null;
  return Math.ceil(Math.max(transfer ?? 0, limited));
}

/** Bytes a second over the last `spanMs`, from (time, bytes) samples. */
export function createRateMeter(spanMs = 5000, now: () => number = Date.now) {
  const samples: Array<[number, number]> = [];
  let started = now();
  return {
    add(bytes: number) {
      samples.push([now(), bytes]);
    },
    reset() {
      samples.length = 0;
      started = now();
    },
    perSecond(): number {
      const at = now();
      while (samples.length > 0 && (samples[0]?.[0] ?? 0) < at - spanMs) samples.shift();
      const span = Math.min(spanMs, Math.max(1, at - started));
      const total = samples.reduce((sum, [, bytes]) => sum + bytes, 0);
      return Math.round((total * 1000) / span);
    },
  };
}

/**
 * The length of the API's rate-limit window, learned from the reset times its answers carry
 * (60 s until two were seen). Only a reset well ahead is the API's: once a window is over the
 * governor knows no next reset and reports the present moment, which taken for one made the
 * window as short as the gap between two progress events. Windows with no request in them are
 * skipped, so the step between two resets seen is a multiple of the window: the smallest is
 * kept.
 */
export function createWindowMeter(initialMs = 60_000) {
  let learned: number | null = null;
  let lastReset: number | null = null;
  return {
    observe(resetMs: number, nowMs: number): void {
      // A second ahead at least: the present moment, read a little later, is never taken for one.
      if (!(resetMs > nowMs + 1000)) return;
      if (lastReset !== null && resetMs > lastReset + 1000) {
        const step = resetMs - lastReset;
        learned = learned === null ? step : Math.min(learned, step);
      }
      if (lastReset === null || resetMs > lastReset) lastReset = resetMs;
    },
    ms: (): number => learned ?? initialMs,
  };
}
