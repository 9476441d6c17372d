import type { Scope } from '../../src-shared/api';

/**
 * Fixed windows per API key and scope (read 180, write 20 a minute by default). Windows are
 * aligned to multiples of the window length since the Unix epoch, so `X-RateLimit-Reset` is
 * the same for every key. A request without a valid token, or one refused before it is
 * counted (a body too large), spends nothing: its headers show the bucket of the scope the
 * operation needs as it stands.
 */

export interface RateLimitSettings {
  read: number;
  write: number;
  windowSeconds: number;
}

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  reset: number;
  scope: Scope;
  allowed: boolean;
}

export interface RateLimiter {
  take(key: string, scope: Scope): RateDecision;
  /** The bucket as it stands, spending nothing. */
  peek(key: string, scope: Scope): RateDecision;
  /** Empties a bucket for the rest of its window (forced 429s). */
  exhaust(key: string, scope: Scope): void;
  reset(): void;
  settings: RateLimitSettings;
}

export function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.reset),
    'x-ratelimit-scope': decision.scope,
  };
}

export function createRateLimiter(settings: RateLimitSettings, now: () => number): RateLimiter {
  const used = new Map<string, { window: number; count: number }>();
  const windowOf = (): { window: number; reset: number } => {
    const window = Math.floor(now() / 1000 / settings.windowSeconds);
    return { window, reset: (window + 1) * settings.windowSeconds };
  };
  const bucket = (key: string, scope: Scope): { count: number } => {
    const { window } = windowOf();
    const id = `${key}\u0000${scope}`;
    let entry = used.get(id);
    if (!entry || entry.window !== window) used.set(id, (entry = { window, count: 0 }));
    return entry;
  };
  return {
    settings,
    take(key, scope) {
      const limit = settings[scope];
      const entry = bucket(key, scope);
      const allowed = entry.count < limit;
      if (allowed) entry.count++;
      return { limit, remaining: Math.max(0, limit - entry.count), reset: windowOf().reset, scope, allowed };
    },
    peek(key, scope) {
      const limit = settings[scope];
      const { window, reset } = windowOf();
      const entry = used.get(`${key}\u0000${scope}`);
      const count = entry && entry.window === window ? entry.count : 0;
      // Nothing is spent, so nothing is refused: an uncounted request goes on even when the bucket is empty.
      return { limit, remaining: Math.max(0, limit - count), reset, scope, allowed: true };
    },
    exhaust(key, scope) {
      bucket(key, scope).count = settings[scope];
    },
    reset() {
      used.clear();
    },
  };
}
