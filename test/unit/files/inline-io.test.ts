import { describe, expect, it } from 'vitest';
import { createInlineIo, pooledIo } from '../../../src-main/files/inline-io';

// When a download's small file-system calls leave the main thread for the thread pool
// (src-main/files/inline-io.ts), with each call's duration set by a clock the test moves.

function timed(options: Parameters<typeof createInlineIo>[0] = {}) {
  let clock = 0;
  const io = createInlineIo({ ...options, now: () => clock });
  const where: string[] = [];
  /** One call that takes `ms` when made inline. */
  const call = (ms: number) =>
    io.run(
      () => {
        clock += ms;
        where.push('inline');
        return ms;
      },
      async () => {
        where.push('pool');
        return ms;
      },
    );
  return { io, call, where };
}

describe('inline file-system calls', () => {
  it('stays on the main thread while calls are cheap, and through a lone slow one', async () => {
    const { io, call, where } = timed();
    for (let i = 0; i < 100; i += 1) expect(await call(i % 20 === 0 ? 5 : 0.05)).toBeGreaterThan(0);
    expect(io.inline).toBe(true);
    expect(where.every((w) => w === 'inline')).toBe(true);
  });

  it('goes to the pool once more than half of the last 16 calls were slow', async () => {
    const { io, call, where } = timed();
    for (let i = 0; i < 8; i += 1) await call(2);
    expect(io.inline).toBe(true); // 8 of 16: not more than half
    await call(2);
    expect(io.inline).toBe(false);
    await call(0.01);
    expect(where.slice(-2)).toEqual(['inline', 'pool']);
  });

  it('goes to the pool after a single call that stalls', async () => {
    const { io, call, where } = timed({ stallMs: 50 });
    await call(0.01);
    await call(60);
    expect(io.inline).toBe(false);
    await call(0.01);
    expect(where).toEqual(['inline', 'inline', 'pool']);
  });

  it('answers a failing inline call as a rejection, and counts its time', async () => {
    let clock = 0;
    const io = createInlineIo({ now: () => clock, stallMs: 50 });
    const failing = io.run(
      () => {
        clock += 80;
        throw new Error('ENOSPC: no space left on device');
      },
      async () => 0,
    );
    await expect(failing).rejects.toThrow('no space left');
    expect(io.inline).toBe(false);
  });

  it('leaves every call to the pool when asked to', async () => {
    expect(pooledIo.inline).toBe(false);
    expect(
      await pooledIo.run(
        () => 'inline',
        async () => 'pool',
      ),
    ).toBe('pool');
  });
});
