import { describe, expect, it } from 'vitest';
import { progressLine } from '../../../src-main/cli/download';
import type { DownloadProgress } from '../../../src-shared/files';

// The progress line of `satchel download`: only what is known, never "0 B/s" or "0 s left".

const progress = (patch: Partial<DownloadProgress>): DownloadProgress => ({
  profileId: '00000000-0000-4000-8000-000000000001',
  jobId: '00000000-0000-4000-8000-000000000002',
  status: 'running',
  files: { total: 10, done: 0, failed: 0, pending: 10, fetched: 0, copied: 0, present: 0 },
  bytes: { total: 6150, done: 0 },
  bytesPerSecond: 0,
  etaSeconds: null,
  waitingUntil: null,
  ...patch,
});

describe('the progress line', () => {
  it('says the rate and the time left only once they mean something', () => {
    expect(progressLine(progress({}))).toBe('0/10 files · 0 B of 6.0 KB');
    expect(progressLine(progress({ bytesPerSecond: 2048, etaSeconds: 90 }))).toBe(
      '0/10 files · 0 B of 6.0 KB · 2.0 KB/s · about 2 min left',
    );
    const end = progress({
      files: { total: 10, done: 9, failed: 1, pending: 0, fetched: 9, copied: 0, present: 0 },
      bytes: { total: 6150, done: 5535 },
      bytesPerSecond: 615,
      etaSeconds: 0,
    });
    expect(progressLine(end)).toBe('10/10 files · 5.4 KB of 6.0 KB · 615 B/s · 1 failed');
  });
});
