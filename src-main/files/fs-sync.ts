import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';

/**
 * `syncfs` of a folder's file system, for the batches of a bulk download (commit.ts): coreutils
 * `sync -f FOLDER` on Linux; false elsewhere, or when it fails, and the caller syncs file by
 * file instead.
 *
 * The command runs in one `sh` kept for the session, which reads folders on its standard input
 * and answers each with a line. Starting a process from the app for every batch would fork
 * the app's own process each time: 20–30 ms of the main thread, and afterwards every page of
 * memory the app writes to (its heap, SQLite's page cache) is copied once on the first write,
 * so the next few queries and the next garbage collection run about ten times slower. Once
 * per session that is nothing; once per batch it was a tenth of a bulk download's
 * throughput. The shell's own `sync` processes are forks of a small shell.
 *
 * A folder whose path the line protocol cannot carry (a line break in it) runs `sync -f`
 * directly, as every folder did before. The helper does not keep the app running; it ends
 * when the app does (its input closes). One that fails, stops, or does not answer within
 * 60 s is dropped, its waiting callers answered false, and the next sync starts another.
 */

const TIMEOUT_MS = 60_000;
const LOOP =
  'while IFS= read -r dir; do if sync -f -- "$dir" 2>/dev/null; then echo 1; else echo 0; fi; done';

interface Helper {
  child: ChildProcessByStdio<Writable, Readable, null>;
  waiting: Array<(ok: boolean) => void>;
}

let helper: Helper | null = null;
/** Helpers started in this process (for tests: one per session unless one failed). */
let started = 0;

/** Whether the helper keeps the app running: only while a sync waits for its answer. */
function hold(current: Helper, held: boolean): void {
  // The pipes of a spawned process are sockets, each with its own hold on the event loop.
  const { child } = current;
  for (const handle of [child, child.stdin as Socket, child.stdout as Socket]) {
    if (held) handle.ref();
    else handle.unref();
  }
}

function drop(current: Helper): void {
  if (helper === current) helper = null;
  for (const answer of current.waiting.splice(0)) answer(false);
  current.child.stdin.destroy();
  current.child.stdout.destroy();
  current.child.kill();
}

function startHelper(): Helper {
  const child = spawn('sh', ['-c', LOOP], { stdio: ['pipe', 'pipe', 'ignore'] });
  const current: Helper = { child, waiting: [] };
  started += 1;
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    buffered += text;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      current.waiting.shift()?.(line === '1');
    }
    if (current.waiting.length === 0) hold(current, false);
  });
  child.on('error', () => drop(current));
  child.on('exit', () => drop(current));
  child.stdin.on('error', () => drop(current));
  hold(current, false);
  return current;
}

function syncThroughHelper(folder: string): Promise<boolean> {
  const current = (helper ??= startHelper());
  return new Promise((resolve) => {
    const timer = setTimeout(() => drop(current), TIMEOUT_MS);
    timer.unref();
    current.waiting.push((ok) => {
      clearTimeout(timer);
      resolve(ok);
    });
    hold(current, true);
    current.child.stdin.write(`${folder}\n`);
  });
}

/** `syncfs` of the folder's file system through coreutils `sync -f`; false where that is missing. */
export function syncFileSystem(folder: string): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  if (/[\n\r]/.test(folder))
    return new Promise((resolve) => {
      execFile('sync', ['-f', folder], { timeout: TIMEOUT_MS }, (error) => resolve(error === null));
    });
  return syncThroughHelper(folder);
}

/** How many helpers this process started, and the running one's process id (tests). */
export function syncHelperState(): { started: number; pid: number | null } {
  return { started, pid: helper?.child.pid ?? null };
}
