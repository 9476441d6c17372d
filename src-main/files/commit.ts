import { renameSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { syncFileSystem } from './fs-sync';
import { pooledIo, type InlineIo } from './inline-io';

/**
 * Puts checked `.part` files in place for a bulk download: durably (their bytes on the disk
 * before the name appears, so a power cut can never leave a hollow file under a final name)
 * and cheaply.
 *
 * `fdatasync` per file costs about a fifth of a bulk download's throughput (receipts are
 * small, so a download is a stream of tiny files). On Linux one `syncfs` of the destination's
 * file system (`sync -f FOLDER`, coreutils, run by fs-sync.ts) makes a whole batch of files
 * durable in one journal commit, so files are collected, synced together, then renamed. Where
 * `sync -f` is missing or fails (macOS, Windows, an old coreutils) each file of the batch is
 * `fdatasync`ed instead. With `durable: false` a file is renamed at once.
 *
 * `place` resolves once the file is in place (or rejects with why it could not be): the caller
 * does not wait for it before fetching the next file. `flush` puts every queued file in place
 * now; a runner calls it before it stops. A kill before a batch is placed leaves checked
 * `.part` files, which the next run verifies and places without fetching them again.
 */

export interface Committer {
  /** `bytes`: the file's size, which counts towards the batch's `batchBytes`. */
  place(partPath: string, finalPath: string, bytes?: number): Promise<void>;
  flush(): Promise<void>;
}

export interface CommitterOptions {
  /** A folder on the destination's file system (the job's `.part` folder). */
  folder: string;
  durable: boolean;
  /**
   * Files per batch at most (2,000); a batch also goes when `delayMs` (500) passed since its
   * first file. Each batch waits for one file-system sync, so batches are few.
   */
  batchSize?: number;
  delayMs?: number;
  /**
   * A batch also goes once its files hold this many bytes (32 MiB). Scans and photos of
   * hundreds of KiB arrive at a few hundred MiB a second, and a sync waits for every byte
   * not yet on the disk: batches cut by size sync while later files arrive, so the last sync,
   * the one the download waits for, has at most this much to write.
   */
  batchBytes?: number;
  /** Makes the folder's file system durable; false when it cannot (then files are synced one by one). */
  syncFileSystem?: (folder: string) => Promise<boolean>;
  /**
   * Where renames are made (inline-io.ts): on the main thread while they are cheap, a batch
   * then renamed in slices of a few milliseconds with the event loop served in between. The
   * thread pool when left out.
   */
  io?: InlineIo;
  /**
   * Called right before each rename; what it throws is the file's rejection and the file stays
   * a `.part` file: a run whose lease another process took over (row-lease.ts `check`) puts
   * nothing more in place, as that run may be writing the same `.part` file now.
   */
  fence?: () => void;
}

async function datasync(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Renames on the main thread go on for this long at most before the event loop is served. */
const SLICE_MS = 4;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Pending {
  partPath: string;
  finalPath: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function createCommitter(options: CommitterOptions): Committer {
  const batchSize = options.batchSize ?? 2000;
  const delayMs = options.delayMs ?? 500;
  const batchBytes = options.batchBytes ?? 32 * 1024 * 1024;
  const syncAll = options.syncFileSystem ?? syncFileSystem;
  const io = options.io ?? pooledIo;
  const fence = options.fence ?? (() => undefined);
  let queue: Pending[] = [];
  let queuedBytes = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Whether `syncFileSystem` works here; learned from the first batch. */
  let fileSystemSync = true;
  let running: Promise<void> = Promise.resolve();

  async function commit(batch: Pending[]): Promise<void> {
    if (batch.length === 0) return;
    if (fileSystemSync) fileSystemSync = await syncAll(options.folder).catch(() => false);
    const pooled: Pending[] = [];
    let sliceStart = performance.now();
    for (const file of batch) {
      if (!fileSystemSync || !io.inline) {
        pooled.push(file);
        continue;
      }
      await io
        .run(
          () => {
            fence();
            renameSync(file.partPath, file.finalPath);
          },
          async () => {
            fence();
            await rename(file.partPath, file.finalPath);
          },
        )
        .then(file.resolve, file.reject);
      if (performance.now() - sliceStart > SLICE_MS) {
        await turn();
        sliceStart = performance.now();
      }
    }
    await Promise.all(
      pooled.map(async (file) => {
        try {
          if (!fileSystemSync) await datasync(file.partPath);
          fence();
          await rename(file.partPath, file.finalPath);
          file.resolve();
        } catch (error) {
          file.reject(error);
        }
      }),
    );
  }

  /** The queued files as one batch, after any batch still being committed. */
  function cut(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = queue;
    queue = [];
    queuedBytes = 0;
    running = running.then(() => commit(batch));
    return running;
  }

  return {
    place(partPath, finalPath, bytes = 0) {
      if (!options.durable)
        return io.run(
          () => {
            fence();
            renameSync(partPath, finalPath);
          },
          async () => {
            fence();
            await rename(partPath, finalPath);
          },
        );
      return new Promise<void>((resolve, reject) => {
        queue.push({ partPath, finalPath, resolve, reject });
        queuedBytes += bytes;
        if (queue.length >= batchSize || queuedBytes >= batchBytes) void cut();
        else timer ??= setTimeout(() => void cut(), delayMs);
      });
    },
    flush: () => cut(),
  };
}
