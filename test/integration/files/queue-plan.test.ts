import { describe, expect, it } from 'vitest';
import { RECORD_MTIME_SQL } from '../../../src-main/files/queue';
import { useCaches } from '../store/fixtures';

// The statements run once per finished file at a job's end must find their row by its key: a
// plan that walks the job's done items and scans the list of seen files for each is quadratic
// (1.3 s at the end of a 2,000-file job, more than the downloads themselves took).

const caches = useCaches();

function plan(sql: string, params: Record<string, unknown>): string[] {
  const cache = caches.open(caches.file());
  return (cache.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>).map(
    (row) => row.detail,
  );
}

describe('recording finished files’ modification times', () => {
  it('finds each item by the job and file it belongs to, scanning nothing', () => {
    const steps = plan(RECORD_MTIME_SQL, { jobId: 'job', fileId: 'file', mtimeMs: 1 });
    expect(steps.some((step) => /\bSCAN\b/.test(step))).toBe(false);
    expect(steps).toContainEqual(
      expect.stringMatching(/download_items USING .*\(job_id=\? AND file_id=\?\)/),
    );
  });
});
