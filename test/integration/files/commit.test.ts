import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCommitter } from '../../../src-main/files/commit';
import { syncFileSystem, syncHelperState } from '../../../src-main/files/fs-sync';
import { createInlineIo } from '../../../src-main/files/inline-io';
import { useTempDirs } from '../../helpers/temp-dir';

/**
 * Putting checked `.part` files in place (src-main/files/commit.ts), on real folders: batched
 * behind one file-system sync, each file's own answer, the per-file fallback, and the
 * immediate rename when durability is off; renames in the thread pool (the default) and on
 * the main thread (a download's inline I/O, src-main/files/inline-io.ts).
 */

const tempDir = useTempDirs('satchel-commit-');

function parts(count: number) {
  const root = tempDir();
  const partial = path.join(root, '.partial');
  mkdirSync(partial);
  const files = Array.from({ length: count }, (_, i) => {
    const partPath = path.join(partial, `${i}.part`);
    writeFileSync(partPath, `receipt ${i}`);
    return { partPath, finalPath: path.join(root, `receipt-${i}.pdf`) };
  });
  return { root, partial, files };
}

const modes = [
  ['in the thread pool', () => undefined],
  ['on the main thread', () => createInlineIo()],
] as const;

describe.each(modes)('createCommitter, renaming %s', (_mode, io) => {
  it('syncs the file system once per batch, then renames, and answers per file', async () => {
    const { partial, files } = parts(7);
    const synced: string[][] = [];
    const committer = createCommitter({
      folder: partial,
      io: io(),
      durable: true,
      batchSize: 3,
      delayMs: 10_000,
      syncFileSystem: async (folder) => {
        // At the moment of the sync no file of the batch is in place yet.
        synced.push(files.filter((f) => existsSync(f.finalPath)).map((f) => f.finalPath));
        return syncFileSystem(folder);
      },
    });
    const placed = files.map((f) => committer.place(f.partPath, f.finalPath));
    // Two full batches went by size; the seventh file waits for its delay or a flush.
    await Promise.all(placed.slice(0, 6));
    expect(existsSync(files[6]!.finalPath)).toBe(false);
    await committer.flush();
    await placed[6];
    expect(synced).toHaveLength(3);
    expect(synced[0]).toEqual([]);
    expect(synced[1]).toHaveLength(3);
    for (const [i, f] of files.entries()) {
      expect(readFileSync(f.finalPath, 'utf8')).toBe(`receipt ${i}`);
      expect(existsSync(f.partPath)).toBe(false);
    }
  });

  it('places a batch after its delay without a flush', async () => {
    const { partial, files } = parts(2);
    const committer = createCommitter({
      folder: partial,
      io: io(),
      durable: true,
      batchSize: 100,
      delayMs: 20,
    });
    await Promise.all(files.map((f) => committer.place(f.partPath, f.finalPath)));
    expect(files.every((f) => existsSync(f.finalPath))).toBe(true);
  });

  it('cuts a batch once its files hold the batch bytes, before its delay or size', async () => {
    const { partial, files } = parts(5);
    const batches: number[] = [];
    const committer = createCommitter({
      folder: partial,
      io: io(),
      durable: true,
      batchSize: 100,
      delayMs: 10_000,
      batchBytes: 1000,
      syncFileSystem: async (folder) => {
        batches.push(files.filter((f) => existsSync(f.partPath)).length);
        return syncFileSystem(folder);
      },
    });
    // 400 + 700 bytes reach 1,000: those two go at once; the next 900 wait for more.
    const placed = [400, 700, 300, 300, 300].map((bytes, i) =>
      committer.place(files[i]!.partPath, files[i]!.finalPath, bytes),
    );
    await Promise.all(placed.slice(0, 2));
    expect(batches).toEqual([5]);
    expect(files.map((f) => existsSync(f.finalPath))).toEqual([true, true, false, false, false]);
    // The count starts again with the next batch: 300 + 300 + 300 stays under it.
    await committer.flush();
    await Promise.all(placed);
    expect(batches).toEqual([5, 3]);
  });

  it('rejects only the file that could not be renamed', async () => {
    const { root, partial, files } = parts(3);
    const committer = createCommitter({ folder: partial, io: io(), durable: true, batchSize: 3 });
    const broken = { ...files[1]!, finalPath: path.join(root, 'no-such-folder', 'receipt.pdf') };
    const results = await Promise.allSettled([
      committer.place(files[0]!.partPath, files[0]!.finalPath),
      committer.place(broken.partPath, broken.finalPath),
      committer.place(files[2]!.partPath, files[2]!.finalPath),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'ENOENT' });
    expect(existsSync(broken.partPath)).toBe(true); // kept, for the next attempt
  });

  it('syncs each file when the file system cannot be synced as a whole, and stops asking', async () => {
    const { partial, files } = parts(4);
    let asked = 0;
    const committer = createCommitter({
      folder: partial,
      io: io(),
      durable: true,
      batchSize: 2,
      syncFileSystem: async () => {
        asked += 1;
        return false;
      },
    });
    await Promise.all(files.map((f) => committer.place(f.partPath, f.finalPath)));
    expect(asked).toBe(1);
    expect(files.map((f, i) => readFileSync(f.finalPath, 'utf8') === `receipt ${i}`)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('renames at once when durability is off', async () => {
    const { partial, files } = parts(1);
    let asked = 0;
    const committer = createCommitter({
      folder: partial,
      io: io(),
      durable: false,
      syncFileSystem: async () => {
        asked += 1;
        return true;
      },
    });
    await committer.place(files[0]!.partPath, files[0]!.finalPath);
    expect(existsSync(files[0]!.finalPath)).toBe(true);
    expect(asked).toBe(0);
  });
});

it('renames a batch of thousands on the main thread with the event loop served in between', async () => {
  const { partial, files } = parts(3000);
  const committer = createCommitter({
    folder: partial,
    io: createInlineIo(),
    durable: true,
    batchSize: 3000,
  });
  let placed = 0;
  // What a timer saw of the batch each time the event loop came round to it.
  const seen: number[] = [];
  const ticker = setInterval(() => seen.push(placed), 0);
  try {
    await Promise.all(files.map((f) => committer.place(f.partPath, f.finalPath).then(() => (placed += 1))));
  } finally {
    clearInterval(ticker);
  }
  expect(files.every((f, i) => readFileSync(f.finalPath, 'utf8') === `receipt ${i}`)).toBe(true);
  expect(seen.some((count) => count > 0 && count < files.length)).toBe(true);
});

// The development and CI machines are Linux with coreutils: the batched path is the one that
// runs. Elsewhere syncFileSystem answers false and files are synced one by one.
describe.runIf(process.platform === 'linux')('syncFileSystem', () => {
  it('syncs real folders through one helper process kept for the session', async () => {
    const before = syncHelperState().started;
    const folders = Array.from({ length: 5 }, () => tempDir());
    expect(await Promise.all(folders.map((folder) => syncFileSystem(folder)))).toEqual(
      folders.map(() => true),
    );
    for (const folder of folders) expect(await syncFileSystem(folder)).toBe(true);
    expect(syncHelperState().started - before).toBeLessThanOrEqual(1);
    expect(syncHelperState().pid).not.toBeNull();
  });

  it('answers false for a folder that cannot be synced, and the next folder rightly', async () => {
    const results = await Promise.all([
      syncFileSystem(tempDir()),
      syncFileSystem(path.join(tempDir(), 'no such folder')),
      syncFileSystem(tempDir()),
    ]);
    expect(results).toEqual([true, false, true]);
  });

  it('syncs a folder with a line break in its name (without the helper)', async () => {
    const odd = path.join(tempDir(), 'receipts\nof 2026');
    mkdirSync(odd);
    const before = syncHelperState().started;
    expect(await syncFileSystem(odd)).toBe(true);
    expect(await syncFileSystem(`${odd}/missing`)).toBe(false);
    expect(syncHelperState().started).toBe(before);
  });

  it('starts another helper when the running one was killed', async () => {
    expect(await syncFileSystem(tempDir())).toBe(true);
    const { pid, started } = syncHelperState();
    process.kill(pid!, 'SIGKILL');
    await expect.poll(() => syncHelperState().pid, { timeout: 5000 }).toBeNull();
    expect(await syncFileSystem(tempDir())).toBe(true);
    expect(syncHelperState().started).toBe(started + 1);
    expect(syncHelperState().pid).not.toBe(pid);
  });

  it('does not keep a process running once its syncs are answered', async () => {
    const folder = tempDir();
    const script = [
      "const { syncFileSystem } = await import('./src-main/files/fs-sync.ts');",
      'console.log(await syncFileSystem(process.argv.at(-1)));',
    ].join('\n');
    const started = Date.now();
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script, folder],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('the process was kept running'));
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve({ code: exitCode, out: text });
      });
    });
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'true' });
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
