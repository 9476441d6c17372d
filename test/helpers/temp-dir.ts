import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * A fresh temporary folder per test, removed after it, whatever the outcome. `list()` gives the
 * folders made so far in the running test (afterEach hooks declared later in a file run before
 * the removal, so they can still read them).
 */
export function useTempDirs(prefix = 'satchel-test-'): (() => string) & { list(): string[] } {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const make = () => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
  return Object.assign(make, { list: () => [...made] });
}
