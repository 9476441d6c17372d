import { describe, expect, it } from 'vitest';
import { createRateGovernor } from '../../src-main/api/rate-governor';

/** Virtual time: sleeping moves the clock, so the tests are exact and instant. */
function virtualClock(startMs = 1_700_000_000_000) {
  let current = startMs;
  const waits: number[] = [];
  return {
    now: () => current,
    sleep: async (ms: number) => {
      waits.push(ms);
      current += ms;
    },
    advance: (ms: number) => (current += ms),
    waits,
  };
}

const headers = (scope: string, limit: number, remaining: number, resetMs: number) => ({
  scope,
  limit,
  remaining,
  reset: Math.ceil(resetMs / 1000),
});

describe('rate governor', () => {
  it('sends the first request of an unknown operation alone, then learns its scope', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep });
    const first = await governor.acquire('GET /v1/suppliers');
    expect(first.scope).toBeUndefined();
    let secondStarted = false;
    const second = governor.acquire('GET /v1/suppliers').then((permit) => {
      secondStarted = true;
      return permit;
    });
    await Promise.resolve();
    expect(secondStarted).toBe(false);
    first.settle(headers('read', 180, 179, clock.now() + 60_000));
    const permit = await second;
    expect(permit.scope).toBe('read');
    expect(governor.scopeOf('GET /v1/suppliers')).toBe('read');
  });

  it("asks the caller's hold-back before each permit, those that waited for the first answer too", async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep, resetMarginMs: 100 });
    const resetMs = clock.now() + 30_000;
    // Two requests may go in this window; one is kept for others, as files/share.ts keeps it.
    const reserve = 1;
    // A 0 lets the permit be taken at once (nothing is awaited in between): when it was given.
    const givenAt: number[] = [];
    const holdBack = () => {
      const bucket = governor.bucket('read');
      if (!bucket || bucket.remaining > reserve) {
        givenAt.push(clock.now());
        return 0;
      }
      return Math.max(1, bucket.resetAt.getTime() - clock.now() + 100);
    };
    const probe = await governor.acquire('op', undefined, holdBack);
    const waiting = [1, 2, 3].map(async () =>
      (await governor.acquire('op', undefined, holdBack)).settle(null),
    );
    probe.settle(headers('read', 40, 2, resetMs));
    await Promise.all(waiting);
    const windowEnd = Math.ceil(resetMs / 1000) * 1000;
    // One of the waiters went in this window (2 left, 1 kept), the others after the reset.
    expect(givenAt.filter((t) => t < windowEnd)).toHaveLength(1);
    expect(givenAt.filter((t) => t >= windowEnd)).toHaveLength(2);
  });

  it('never spends more than the known budget and waits for the next window', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep, resetMarginMs: 100 });
    const resetMs = clock.now() + 30_000;
    const probe = await governor.acquire('op');
    probe.settle(headers('read', 5, 2, resetMs));

    const startedAt: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const permit = await governor.acquire('op');
      startedAt.push(clock.now());
      permit.settle(null);
    }
    const inFirstWindow = startedAt.filter((t) => t < Math.ceil(resetMs / 1000) * 1000);
    expect(inFirstWindow).toHaveLength(2);
    // The next five fit the fresh window of five.
    expect(startedAt.slice(2).every((t) => t >= Math.ceil(resetMs / 1000) * 1000 + 100)).toBe(true);
    expect(clock.waits).toHaveLength(1);
  });

  it('sends the first request of another operation only when every known bucket has room', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep, resetMarginMs: 100 });
    const resetMs = clock.now() + 2_000;
    (await governor.acquire('GET /v1/suppliers')).settle(headers('read', 25, 1, resetMs));
    const last = await governor.acquire('GET /v1/suppliers');
    last.settle(headers('read', 25, 0, resetMs));
    // The next resource's first request: its scope is unknown, and the one bucket known is
    // empty until the window resets. Sent at once, it earned a 429.
    const probe = await governor.acquire('GET /v1/expenses');
    expect(probe.scope).toBeUndefined();
    expect(clock.now()).toBeGreaterThanOrEqual(Math.ceil(resetMs / 1000) * 1000 + 100);
    expect(clock.waits).toHaveLength(1);
    probe.settle(headers('read', 25, 24, clock.now() + 2_000));
    expect(governor.snapshot()).toEqual([expect.objectContaining({ scope: 'read', remaining: 24 })]);
  });

  it('gives back the permits a probe held in the buckets it did not draw on', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep });
    const reset = clock.now() + 60_000;
    (await governor.acquire('GET /v1/suppliers')).settle(headers('read', 180, 100, reset));
    (await governor.acquire('POST /v1/suppliers')).settle(headers('write', 60, 50, reset));
    const probe = await governor.acquire('PATCH /v1/suppliers/{id}');
    // Held in both while its scope is unknown.
    expect(governor.snapshot()).toEqual([
      expect.objectContaining({ scope: 'read', remaining: 99 }),
      expect.objectContaining({ scope: 'write', remaining: 49 }),
    ]);
    probe.settle(headers('write', 60, 49, reset));
    expect(governor.scopeOf('PATCH /v1/suppliers/{id}')).toBe('write');
    expect(governor.snapshot()).toEqual([
      expect.objectContaining({ scope: 'read', remaining: 100 }),
      expect.objectContaining({ scope: 'write', remaining: 49 }),
    ]);
    // One bucket alone reads the same.
    expect(governor.bucket('write')).toEqual(governor.snapshot()[1]);
    expect(governor.bucket('read')).toEqual({
      scope: 'read',
      limit: 180,
      remaining: 100,
      resetAt: new Date(reset),
    });
    expect(governor.bucket('files')).toBeNull();
    // An aborted wait holds nothing and leaves the operation free to probe again.
    const drained = createRateGovernor({
      now: clock.now,
      sleep: (ms, signal) => Promise.reject(signal?.reason ?? new Error(`waited ${ms}`)),
    });
    (await drained.acquire('GET /a')).settle(headers('read', 1, 0, clock.now() + 5_000));
    await expect(drained.acquire('GET /b')).rejects.toThrow();
    await expect(drained.acquire('GET /b')).rejects.toThrow(); // not left waiting on the first
    expect(drained.snapshot()).toEqual([expect.objectContaining({ scope: 'read', remaining: 0 })]);
  });

  it('keeps the lower count when answers of one window arrive out of order', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep });
    const reset = clock.now() + 60_000;
    (await governor.acquire('op')).settle(headers('write', 20, 10, reset));
    const a = await governor.acquire('op');
    const b = await governor.acquire('op');
    b.settle(headers('write', 20, 3, reset));
    a.settle(headers('write', 20, 9, reset));
    expect(governor.snapshot()).toEqual([
      expect.objectContaining({ scope: 'write', limit: 20, remaining: 3 }),
    ]);
  });

  it('follows the answer of a request sent alone that shows more room than it counted', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep });
    const reset = clock.now() + 60_000;
    (await governor.acquire('op')).settle(headers('write', 20, 1, reset));
    // The last write of the window goes out alone; meanwhile the server's limits are reset, so
    // its answer says 19 left in the same window.
    const last = await governor.acquire('op');
    last.settle(headers('write', 20, 19, reset));
    expect(governor.bucket('write')).toMatchObject({ remaining: 19 });
    // The next writes go at once instead of waiting a minute for the window to end.
    (await governor.acquire('op')).settle(headers('write', 20, 18, reset));
    expect(clock.waits).toEqual([]);
    // Two at once: their answers may come in any order, so the lower count still wins.
    const a = await governor.acquire('op');
    const b = await governor.acquire('op');
    b.settle(headers('write', 20, 15, reset));
    a.settle(headers('write', 20, 16, reset));
    expect(governor.bucket('write')).toMatchObject({ remaining: 15 });
    // Sent alone but answered after another was sent: not the newest count either.
    const c = await governor.acquire('op');
    const d = await governor.acquire('op');
    c.settle(headers('write', 20, 14, reset));
    expect(governor.bucket('write')).toMatchObject({ remaining: 13 });
    d.settle(headers('write', 20, 13, reset));
    expect(governor.bucket('write')).toMatchObject({ remaining: 13 });
  });

  it('shares one bucket between operations of the same scope', async () => {
    const clock = virtualClock();
    const governor = createRateGovernor({ now: clock.now, sleep: clock.sleep });
    const reset = clock.now() + 60_000;
    (await governor.acquire('GET /v1/expenses')).settle(headers('read', 180, 1, reset));
    (await governor.acquire('GET /v1/users')).settle(headers('read', 180, 0, reset));
    const before = clock.now();
    (await governor.acquire('GET /v1/expenses')).settle(null);
    expect(clock.now()).toBeGreaterThanOrEqual(Math.ceil(reset / 1000) * 1000);
    expect(clock.now()).toBeGreaterThan(before);
  });

  it('blocks a scope until Retry-After has passed and reports the wait', async () => {
    const clock = virtualClock();
    const waits: Array<[string, Date]> = [];
    const governor = createRateGovernor({
      now: clock.now,
      sleep: clock.sleep,
      onWait: (s, u) => waits.push([s, u]),
    });
    (await governor.acquire('op')).settle(headers('read', 180, 100, clock.now() + 60_000));
    const until = clock.now() + 5_000;
    governor.blockUntil('op', until);
    (await governor.acquire('op')).settle(null);
    expect(clock.now()).toBeGreaterThanOrEqual(until);
    expect(waits[0]?.[0]).toBe('read');
  });

  it('stops waiting when the caller cancels', async () => {
    const governor = createRateGovernor();
    (await governor.acquire('op')).settle(headers('read', 1, 0, Date.now() + 60_000));
    const controller = new AbortController();
    const waiting = governor.acquire('op', controller.signal);
    controller.abort(new Error('cancelled by the user'));
    await expect(waiting).rejects.toThrow('cancelled by the user');
  });

  it('stops a request waiting behind the first of its operation when its caller cancels', async () => {
    const governor = createRateGovernor();
    const probe = await governor.acquire('GET /v1/files/{id}/content'); // still out
    const controller = new AbortController();
    const waiting = governor.acquire('GET /v1/files/{id}/content', controller.signal);
    controller.abort(new Error('paused by the user'));
    await expect(waiting).rejects.toThrow('paused by the user');
    // The probe's answer still teaches the scope; a request after it goes at once.
    probe.settle(headers('read', 180, 179, Date.now() + 60_000));
    expect((await governor.acquire('GET /v1/files/{id}/content')).scope).toBe('read');
  });
});
