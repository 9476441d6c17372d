import { describe, expect, it } from 'vitest';
import { createWindowMeter, estimateSeconds } from '../../../src-main/files/eta';
import { reserveOf } from '../../../src-main/files/share';

const base = { nowMs: 0, windowMs: 60_000, bytesPerSecond: 0, filesPerSecond: 0, bucket: null };

describe('time left', () => {
  it('is the transfer time when the rate limit is not in the way', () => {
    expect(
      estimateSeconds({
        ...base,
        filesLeft: 100,
        bytesLeft: 1_000_000,
        bytesPerSecond: 100_000,
        filesPerSecond: 10,
      }),
    ).toBe(10);
    const bucket = { limit: 100_000, remaining: 99_000, resetAtMs: 30_000, reserve: 10 };
    expect(
      estimateSeconds({
        ...base,
        filesLeft: 100,
        bytesLeft: 1_000_000,
        bytesPerSecond: 100_000,
        filesPerSecond: 10,
        bucket,
      }),
    ).toBe(10);
  });

  it('counts whole windows of the rate limit beyond what is left in this one', () => {
    // 180 a minute, 9 kept in reserve, 20 left now (11 usable): 500 files need the rest of this
    // window (30 s) and then ceil(489 / 171) = 3 windows, the last one partly.
    const bucket = { limit: 180, remaining: 20, resetAtMs: 30_000, reserve: 9 };
    const eta = estimateSeconds({
      ...base,
      filesLeft: 500,
      bytesLeft: 500_000,
      bytesPerSecond: 1_000_000,
      filesPerSecond: 50,
      bucket,
    });
    expect(eta).toBe(Math.ceil(30 + 2 * 60 + (500 - 11 - 2 * 171) / 50));
  });

  it('is unknown before anything was measured, and zero when done', () => {
    expect(estimateSeconds({ ...base, filesLeft: 10, bytesLeft: 100 })).toBeNull();
    expect(estimateSeconds({ ...base, filesLeft: 0, bytesLeft: 0 })).toBe(0);
  });

  it('keeps a small reserve while idle and half the window while sync runs', () => {
    expect(reserveOf(180, false)).toBe(9);
    expect(reserveOf(180, true)).toBe(90);
    expect(reserveOf(3, false)).toBe(1);
    expect(reserveOf(1, true)).toBe(0);
  });
});

describe('the rate-limit window', () => {
  it('is learned from the resets the API sends, never from the present moment', () => {
    const meter = createWindowMeter();
    expect(meter.ms()).toBe(60_000);
    meter.observe(10_000, 0); // the first window's reset, seen at its start
    meter.observe(10_000, 4_000);
    // The window is over and the next reset unknown: the governor reports the present moment,
    // again and again while no answer of the new window came back.
    meter.observe(10_300, 10_300);
    meter.observe(11_700, 11_700);
    meter.observe(13_100, 13_100);
    expect(meter.ms()).toBe(60_000);
    meter.observe(20_000, 13_200); // the second window's reset
    expect(meter.ms()).toBe(10_000);
  });

  it('keeps the shortest step when windows without requests were skipped', () => {
    const meter = createWindowMeter();
    meter.observe(10_000, 0);
    meter.observe(40_000, 31_000); // two windows passed with no request
    expect(meter.ms()).toBe(30_000);
    meter.observe(50_000, 41_000);
    expect(meter.ms()).toBe(10_000);
    meter.observe(50_000, 45_000);
    expect(meter.ms()).toBe(10_000);
  });
});
