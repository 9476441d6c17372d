/**
 * One governor per API connection, one bucket per rate-limit scope (`read`, `write`). It is fed
 * the four X-RateLimit-* headers of every answer and makes callers wait for the next window
 * instead of spending a request that would earn a 429. Which bucket an operation draws on is
 * learned from X-RateLimit-Scope, never assumed: until an operation's scope is known, its
 * requests go one at a time, so the first answer teaches the governor before a burst follows,
 * and each waits for room in every bucket already known, any of which it may draw on.
 */

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  /** Unix seconds, UTC. */
  reset: number;
  scope: string;
}

export interface BucketSnapshot {
  scope: string;
  limit: number;
  remaining: number;
  resetAt: Date;
}

export interface Permit {
  /** Scope the permit was taken from, when it was known. */
  scope: string | undefined;
  /** Call once with the answer's headers (or none, if the request never reached the server). */
  settle(headers: RateLimitHeaders | null): void;
}

export interface RateGovernorOptions {
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Extra wait after a window's reset, for clock skew between us and the server. */
  resetMarginMs?: number;
  /** Called whenever a request has to wait; the UI shows "waiting for the rate limit until …". */
  onWait?: (scope: string, until: Date) => void;
}

interface Bucket {
  limit: number;
  remaining: number;
  resetAtMs: number;
  inFlight: number;
  /** Permits ever taken from this bucket: tells whether any was taken after a given one. */
  taken: number;
}

/** A permit taken from a known bucket: which one it was, and whether none other was in flight. */
interface Ticket {
  bucket: Bucket;
  seq: number;
  aloneWhenTaken: boolean;
}

/**
 * Milliseconds the caller holds back before taking a permit (0: take it now): a share of the
 * limit kept for others (files/share.ts). Asked right before each permit is taken, after any
 * wait for room or for the operation's first answer, with nothing awaited in between.
 */
export type HoldBack = () => number;

export interface RateGovernor {
  acquire(operation: string, signal?: AbortSignal, holdBack?: HoldBack): Promise<Permit>;
  /** A 429 or Retry-After answer: nothing more goes to this scope until then. */
  blockUntil(operation: string, untilMs: number): void;
  scopeOf(operation: string): string | undefined;
  snapshot(): BucketSnapshot[];
  /** One scope's bucket (the same as its entry of `snapshot`), or null before it is known. */
  bucket(scope: string): BucketSnapshot | null;
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `promise` (one that never rejects), or a rejection with the signal's reason once it aborts. */
function settledOrAborted(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

export function createRateGovernor(options: RateGovernorOptions = {}): RateGovernor {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const margin = options.resetMarginMs ?? 250;
  const buckets = new Map<string, Bucket>();
  const scopes = new Map<string, string>();
  /** Operations whose scope is still unknown: one probe at a time. */
  const probing = new Map<string, Promise<void>>();

  function refresh(bucket: Bucket): void {
    if (now() >= bucket.resetAtMs + margin) {
      // A new window: the server's counter started again from the limit.
      bucket.remaining = bucket.limit;
      bucket.resetAtMs = Number.POSITIVE_INFINITY;
    }
  }

  /**
   * `alone`: no other request of the bucket was in flight when this one was sent, and none was
   * sent since. Its answer is then the server's count as it stands, nothing of ours in between.
   */
  function learn(operation: string, headers: RateLimitHeaders, alone = false): void {
    scopes.set(operation, headers.scope);
    const resetAtMs = headers.reset * 1000;
    const bucket = buckets.get(headers.scope);
    if (!bucket) {
      buckets.set(headers.scope, {
        limit: headers.limit,
        remaining: headers.remaining,
        resetAtMs,
        inFlight: 0,
        taken: 0,
      });
      return;
    }
    bucket.limit = headers.limit;
    if (bucket.resetAtMs === Number.POSITIVE_INFINITY || resetAtMs > bucket.resetAtMs) {
      // First answer of a new window: trust the server, less what we already sent into it.
      bucket.resetAtMs = resetAtMs;
      bucket.remaining = Math.max(0, headers.remaining - bucket.inFlight);
    } else if (resetAtMs === bucket.resetAtMs) {
      // Answers of one window can arrive out of order: the lower count is the true one. But the
      // answer of a request that went alone is newer than every other we had: it is followed
      // even when it shows more room than we counted (the limits were reset on the server, or
      // a request we counted never reached it), so no one waits for a window that is not full.
      bucket.remaining = alone
        ? Math.max(0, headers.remaining - bucket.inFlight)
        : Math.min(bucket.remaining, headers.remaining);
    }
  }

  async function take(scope: string, signal?: AbortSignal, holdBack?: HoldBack): Promise<Ticket | null> {
    for (;;) {
      const bucket = buckets.get(scope);
      if (!bucket) return null;
      refresh(bucket);
      const held = bucket.remaining > 0 ? (holdBack?.() ?? 0) : 0;
      if (held > 0) {
        await sleep(held, signal);
        continue;
      }
      if (bucket.remaining > 0) {
        const aloneWhenTaken = bucket.inFlight === 0;
        bucket.remaining -= 1;
        bucket.inFlight += 1;
        bucket.taken += 1;
        return { bucket, seq: bucket.taken, aloneWhenTaken };
      }
      const until = Number.isFinite(bucket.resetAtMs) ? bucket.resetAtMs + margin : now() + 1000;
      options.onWait?.(scope, new Date(until));
      await sleep(Math.max(0, until - now()), signal);
    }
  }

  return {
    async acquire(operation, signal, holdBack) {
      let scope = scopes.get(operation);
      if (scope === undefined) {
        // Wait for any probe of the same operation, then look again.
        while (probing.has(operation) && scopes.get(operation) === undefined)
          await settledOrAborted(probing.get(operation)!, signal);
        scope = scopes.get(operation);
      }
      if (scope === undefined) {
        let release!: () => void;
        probing.set(operation, new Promise<void>((resolve) => (release = resolve)));
        // The probe may draw on any bucket already known (its scope is what it will teach):
        // it waits for room in each, and holds one permit of each until its answer says which
        // bucket it drew on. Sent regardless, it earned a 429 whenever it came while a known
        // bucket was empty (the first request of a sync's next resource, at the end of a window).
        const held: Array<{ scope: string; resetAtMs: number }> = [];
        const giveBack = (drawnOn: string | undefined) => {
          for (const permit of held.splice(0)) {
            const bucket = buckets.get(permit.scope);
            if (!bucket) continue;
            bucket.inFlight = Math.max(0, bucket.inFlight - 1);
            // Not the bucket it drew on, and still the same window: the permit was never spent.
            if (permit.scope !== drawnOn && bucket.resetAtMs === permit.resetAtMs) bucket.remaining += 1;
          }
        };
        try {
          for (const known of [...buckets.keys()]) {
            await take(known, signal, holdBack);
            held.push({ scope: known, resetAtMs: buckets.get(known)!.resetAtMs });
          }
        } catch (error) {
          giveBack(undefined);
          probing.delete(operation);
          release();
          throw error;
        }
        let settled = false;
        return {
          scope: undefined,
          settle(headers) {
            if (settled) return;
            settled = true;
            giveBack(headers?.scope);
            if (headers) learn(operation, headers);
            probing.delete(operation);
            release();
          },
        };
      }
      const ticket = await take(scope, signal, holdBack);
      let settled = false;
      return {
        scope,
        settle(headers) {
          if (settled) return;
          settled = true;
          if (ticket) ticket.bucket.inFlight = Math.max(0, ticket.bucket.inFlight - 1);
          const alone =
            ticket !== null &&
            ticket.aloneWhenTaken &&
            ticket.bucket.taken === ticket.seq &&
            headers?.scope === scope;
          if (headers) learn(operation, headers, alone);
        },
      };
    },
    blockUntil(operation, untilMs) {
      const scope = scopes.get(operation);
      if (scope === undefined) return;
      const bucket = buckets.get(scope);
      if (!bucket) return;
      bucket.remaining = 0;
      bucket.resetAtMs = Math.max(Number.isFinite(bucket.resetAtMs) ? bucket.resetAtMs : 0, untilMs - margin);
    },
    scopeOf: (operation) => scopes.get(operation),
    snapshot: () => [...buckets.keys()].map((scope) => snapshotOf(scope)!),
    bucket: (scope) => snapshotOf(scope),
  };

  function snapshotOf(scope: string): BucketSnapshot | null {
    const bucket = buckets.get(scope);
    if (!bucket) return null;
    refresh(bucket);
    return {
      scope,
      limit: bucket.limit,
      remaining: bucket.remaining,
      resetAt: new Date(Number.isFinite(bucket.resetAtMs) ? bucket.resetAtMs : now()),
    };
  }
}
