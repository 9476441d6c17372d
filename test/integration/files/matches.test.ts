import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFile, matches } from '../../../src-main/files/fetch';
import { useTempDirs } from '../../helpers/temp-dir';

// Whether a file already on disk is the expected one (a download reuses it, or leaves it alone
// and takes another name): its size first, its sha256 only when the size is right, on real files
// small (read whole) and large (streamed).

const tempDir = useTempDirs();

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('a file in place', () => {
  for (const [label, size] of [
    ['a receipt', 615],
    ['a file of exactly 1 MiB', 1024 * 1024],
    ['a file over 1 MiB', 3 * 1024 * 1024 + 17],
  ] as const) {
    it(`is trusted only with the same bytes: ${label}`, async () => {
      const dir = tempDir();
      const bytes = randomBytes(size);
      const file = path.join(dir, 'receipt.pdf');
      writeFileSync(file, bytes);
      const expected = { id: 'f', size, sha256: sha(bytes).toUpperCase() };
      expect(await hashFile(file)).toEqual({ size, sha256: sha(bytes) });
      expect(await matches(file, expected)).toBe(true);
      expect(await matches(file, { ...expected, sha256: null })).toBe(true);
      expect(await matches(file, { ...expected, size: null })).toBe(true);

      // The same size with other bytes (one flipped, anywhere): not this file.
      for (const at of [0, Math.floor(size / 2), size - 1]) {
        const other = Buffer.from(bytes);
        other[at] = other[at]! ^ 0x01;
        writeFileSync(file, other);
        expect(await matches(file, expected), `byte ${at}`).toBe(false);
      }
      // Another size, or nothing there.
      writeFileSync(file, Buffer.concat([bytes, Buffer.from([0])]));
      expect(await matches(file, expected)).toBe(false);
      expect(await matches(file, { ...expected, sha256: null })).toBe(false);
      expect(await matches(path.join(dir, 'missing.pdf'), expected)).toBe(false);
    });
  }

  it('is never a folder, nor a named pipe a read would wait on for ever', async () => {
    const dir = tempDir();
    const folder = path.join(dir, 'receipt.pdf');
    mkdirSync(folder);
    expect(await matches(folder, { id: 'f', size: null, sha256: null })).toBe(false);
    const pipe = path.join(dir, 'invoice.pdf');
    execFileSync('mkfifo', [pipe]);
    try {
      const verdict = await Promise.race([
        matches(pipe, { id: 'f', size: 615, sha256: 'ab'.repeat(32) }),
        new Promise((resolve) => setTimeout(() => resolve('still reading'), 10_000)),
      ]);
      expect(verdict).toBe(false);
    } finally {
      // A read still waiting on the pipe gets its end (and frees its thread).
      try {
        closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader: nothing to free
      }
    }
  });
});
