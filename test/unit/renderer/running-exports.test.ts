import { describe, expect, it } from 'vitest';
import { followExport, type ExportProgress } from '../../../src-renderer/components/running-exports';

// The status bar's running exports of an organisation (src-renderer/components/StatusBar.tsx):
// each until its own end, so that two at once do not share one item that the first one's end
// clears while the second still runs.

const profileId = '6b0c8d1e-6a55-4f55-9b43-3c1f0f3a9d10';
const first = '0d9c7b54-2f6e-4c1a-9a53-6f1c1b8f7e01';
const second = '0d9c7b54-2f6e-4c1a-9a53-6f1c1b8f7e02';
const event = (exportId: string, written: number, total: number, done = false): ExportProgress => ({
  profileId,
  exportId,
  written,
  total,
  done,
});

describe('running exports in the status bar', () => {
  it('keeps an export until its own end, whatever another does', () => {
    const stream = [
      event(first, 1000, 3000),
      event(second, 200, 200),
      event(second, 200, 200, true),
      event(first, 2000, 3000),
      // Short of its total (rows a sync deleted meanwhile): it ends all the same.
      event(first, 2500, 3000, true),
    ];
    const seen = stream.reduce<Array<ReadonlyMap<string, ExportProgress>>>(
      (states, next) => [...states, followExport(states.at(-1) ?? new Map(), next)],
      [],
    );
    const shown = seen.map((running) => [...running.values()].map((p) => `${p.written}/${p.total}`));
    expect(shown).toEqual([['1000/3000'], ['1000/3000', '200/200'], ['1000/3000'], ['2000/3000'], []]);
  });
});
