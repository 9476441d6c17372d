import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writevSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHttpFetch } from '../../src-main/api/http-fetch';
import { createEventBus } from '../../src-main/events';
import { createFileService } from '../../src-main/files/service';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../src-main/store';
import { startSandbox } from '../../src-sandbox';
import { sandboxProcess } from '../helpers/sandbox-process';
import { sandboxClient, syncFromSandbox, type SandboxPeer } from '../helpers/sandbox-sync';
import { sandboxToken } from '../helpers/sandbox-token';

/**
 * Bulk download figures:
 * - throughput of the downloader against `curl --parallel --parallel-max N` fetching the same
 *   files with the same concurrency from the same sandbox, in the same run, with the rate
 *   limit set out of the way (target: at least 80 % of curl's files a second): the sandbox's
 *   drawn receipts of 0.3–1 KB (to the disk, in memory, and with 2 ms of latency per answer),
 *   and receipts of a scan's size (200 KiB on average);
 * - in memory, the floor loop (floorLoop) against the same curl: how far Node gets with only
 *   the work each file needs, and the download against it;
 * - the time to download under the real limit of 180 requests a minute, scaled to 30 per
 *   10 s (the same 3 a second, so the bench takes under a minute), against the limit's own
 *   bound: the earliest moment any client could have sent the last request in those windows.
 */

const CONCURRENCY = 8;
const ROUNDS = 7;

type Sandbox = SandboxPeer;

async function syncedCache(sandbox: Sandbox, file: string): Promise<CacheDb> {
  const cache = openCache(file, { migrationsDir: defaultMigrationsDir() });
  await syncFromSandbox(cache, sandbox);
  return cache;
}

function fileService(sandbox: Sandbox, cache: CacheDb, dataDir: string, durable: boolean) {
  const client = sandboxClient(sandbox);
  return createFileService({
    dataDir,
    cacheOf: () => cache,
    clientOf: () => client,
    syncing: () => false,
    events: createEventBus(),
    now: () => new Date(),
    concurrency: CONCURRENCY,
    durable,
  });
}

const PROFILE = '00000000-0000-4000-8000-000000000001';

async function ours(sandbox: Sandbox, cache: CacheDb, dir: string, durable: boolean, ids?: string[]) {
  const files = fileService(sandbox, cache, dir, durable);
  const destination = path.join(dir, `ours-${Math.random().toString(36).slice(2)}`);
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const { job } = await files.start(PROFILE, {
    scope: ids ? { by: 'ids', kind: 'file', ids } : { by: 'all' },
    destination,
  });
  const result = await files.wait(PROFILE, job.id);
  const seconds = (performance.now() - started) / 1000;
  // The whole process, its thread pool included (the sandbox runs in a process of its own).
  const cpu = process.cpuUsage(cpuAtStart);
  const status = files.status(PROFILE, job.id);
  if (result.status !== 'completed' || status.files.done !== status.files.total)
    throw new Error(`the download ended ${result.status} with ${status.files.failed} failed`);
  return {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    files: status.files.total,
    bytes: status.bytes.total,
  };
}

/**
 * curl fetching `ids` into a folder of its own. With `cpu`, it runs under bash, whose `times`
 * then gives the CPU it spent (user and system): for runs of their own, since bash's start
 * would be timed with it.
 */
async function curl(
  sandbox: Sandbox,
  accessToken: string,
  dir: string,
  ids: string[],
  options: { cpu?: boolean } = {},
) {
  const destination = path.join(dir, `curl-${Math.random().toString(36).slice(2)}`);
  mkdirSync(destination);
  const config = path.join(dir, 'curl.config');
  // The token goes in a config file, never on the command line.
  const lines = [
    `header = "Authorization: Bearer ${accessToken}"`,
    'fail',
    'silent',
    'show-error',
    'no-progress-meter',
  ];
  for (const id of ids)
    lines.push(`url = "${sandbox.url}/v1/files/${id}/content"`, `output = "${path.join(destination, id)}"`);
  writeFileSync(config, `${lines.join('\n')}\n`, { mode: 0o600 });
  const args = ['--parallel', '--parallel-max', String(CONCURRENCY), '-K', config];
  const started = performance.now();
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = options.cpu
      ? spawn('/bin/bash', ['-c', '/usr/bin/curl "$@"; code=$?; times >&2; exit $code', 'bash', ...args], {
          stdio: ['ignore', 'ignore', 'pipe'],
        })
      : spawn('/usr/bin/curl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
  const seconds = (performance.now() - started) / 1000;
  if (run.code !== 0) throw new Error(`curl failed: ${run.stderr.slice(-500)}`);
  // curl leaves its files in the page cache; a durable download has them on the disk when it
  // ends. The same guarantee for curl's files is this sync, timed apart.
  execFileSync('sync', ['-f', destination]);
  const syncedSeconds = (performance.now() - started) / 1000;
  rmSync(config);
  const files = readdirSync(destination).length;
  // `times`: the shell's own user and system time, then its children's (curl's).
  const children = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(run.stderr);
  if (options.cpu && !children) throw new Error(`no CPU times from bash: ${run.stderr.slice(-200)}`);
  const cpuSeconds = children
    ? Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])
    : null;
  return { seconds, syncedSeconds, files, cpuSeconds };
}

/**
 * The floor under the downloader: what the issue asks of each file and nothing else, in a
 * bare loop of CONCURRENCY workers over the same transport (src-main/api/http-fetch.ts): the
 * request, its body checked against the sha256 in memory, written to a `.part` file and
 * renamed into place. No queue, names, progress, rate-limit share, manifest or durability:
 * how far Node itself gets against curl, and so how much of the gap is the downloader's own.
 */
async function floorLoop(
  sandbox: Sandbox,
  accessToken: string,
  dir: string,
  files: Array<{ id: string; sha256: string }>,
) {
  const destination = path.join(dir, `floor-${Math.random().toString(36).slice(2)}`);
  const partial = path.join(destination, '.part');
  mkdirSync(partial, { recursive: true });
  const transport = createHttpFetch();
  const headers = { accept: '*/*', authorization: `Bearer ${accessToken}` };
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < files.length; index = next++) {
      const file = files[index]!;
      const response = await transport(`${sandbox.url}/v1/files/${file.id}/content`, {
        headers,
        idleTimeoutMs: 30_000,
      });
      if (response.status !== 200 || !response.body) throw new Error(`file ${file.id}: ${response.status}`);
      const chunks: Uint8Array[] = [];
      const hash = createHash('sha256');
      for await (const chunk of response.body) {
        chunks.push(chunk);
        hash.update(chunk);
      }
      if (hash.digest('hex') !== file.sha256) throw new Error(`file ${file.id} arrived damaged`);
      const part = path.join(partial, `${index}.part`);
      const fd = openSync(part, 'w');
      try {
        writevSync(fd, chunks);
      } finally {
        closeSync(fd);
      }
      renameSync(part, path.join(destination, file.id));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { seconds: (performance.now() - started) / 1000 };
}

/**
 * How fast this machine takes new data into its page cache just now: 64 files of 1 MiB written
 * into a fresh folder under `dir` (kept, as every file of the bench is), in MB a second. On a
 * virtual machine whose freed memory goes back to its host (free page reporting), a write into
 * memory the guest no longer holds costs several times what one into memory it still holds, for
 * curl and Satchel alike (docs/files.md, "What moves the scans' figures"); the probe before and
 * after each setting shows which of the two a setting's runs met.
 */
function writeProbe(dir: string): number {
  const folder = mkdtempSync(path.join(dir, 'probe-'));
  const block = Buffer.alloc(2 ** 20, 7);
  const started = performance.now();
  for (let i = 0; i < 64; i += 1) writeFileSync(path.join(folder, String(i)), block);
  return (64 * 2 ** 20) / 1e6 / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

interface ThroughputOptions {
  latencyMs?: number;
  rounds?: number;
  /** Files of about this many KiB (the sandbox's `--file-kb`) instead of drawn ones of 0.3–1 KB. */
  fileKb?: number;
  /** Only the first this many files, by id. */
  files?: number;
  /** Each round also times the floor loop (floorLoop) against curl and the download. */
  floor?: boolean;
}

async function throughput(dir: string, options: ThroughputOptions = {}) {
  const probeBefore = writeProbe(dir);
  const sandbox = await sandboxProcess([
    '--seed',
    '7',
    '--transactions',
    '5000',
    '--read-limit',
    '10000000',
    ...(options.latencyMs ? ['--control'] : []),
    ...(options.fileKb ? ['--file-kb', String(options.fileKb)] : []),
  ]);
  try {
    // A cache of its own: one synced from another setting's sandbox would hold other files'
    // sizes and hashes, and every download would (rightly) fail its check.
    const cache = await syncedCache(
      sandbox,
      path.join(mkdtempSync(path.join(dir, 'cache-')), 'throughput.sqlite'),
    );
    const all = cache.sqlite.prepare(`SELECT id, sha256 FROM expense_files ORDER BY id`).all() as Array<{
      id: string;
      sha256: string;
    }>;
    const chosen = options.files ? all.slice(0, options.files) : all;
    const ids = chosen.map((file) => file.id);
    const subset = options.files ? ids : undefined;
    const accessToken = await sandboxToken(sandbox);
    if (options.latencyMs) {
      // Every file answer waits this long first: a server across a network rather than on the
      // same machine (the sync above ran without it).
      const added = await fetch(`${sandbox.url}/__control/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ match: 'getFileContent', latencyMs: options.latencyMs }),
      });
      if (added.status !== 201) throw new Error(`the sandbox refused the latency rule (${added.status})`);
    }
    const curlRates: number[] = [];
    const curlSyncedRates: number[] = [];
    const oursRates: number[] = [];
    const oursFastRates: number[] = [];
    // Per round: durable against curl, durable against curl and its sync, not durable against curl.
    const shares: number[] = [];
    const syncedShares: number[] = [];
    const plainShares: number[] = [];
    // With `floor`: the floor loop against curl, and the download (not durable) against it.
    const floorShares: number[] = [];
    const oursOfFloor: number[] = [];
    let files = 0;
    let bytes = 0;
    // Every run starts from the same disk: nothing written and not yet on it (`sync`, untimed),
    // and no files removed since. Removing a round's files makes ext4's inode allocator pass
    // over their inodes for about 30 s (`recently_deleted`), each creation then costing up to
    // a millisecond of system time: every later run, curl's or ours, would measure the clean-up
    // of the runs before it rather than itself. So files stay until the bench ends.
    const run = async <T>(what: () => Promise<T>): Promise<T> => {
      execFileSync('sync');
      return what();
    };
    // Untimed rounds first (the JIT warms up, the disk settles); then rounds of one run of
    // each, in alternating order, so that neither side profits from a warmer machine. The
    // share is taken per round (runs next to each other share the machine's state) and its
    // median reported.
    for (let warm = 0; warm < 2; warm += 1) {
      await run(() => curl(sandbox, accessToken, dir, ids));
      await run(() => ours(sandbox, cache, dir, true, subset));
      if (options.floor) await run(() => floorLoop(sandbox, accessToken, dir, chosen));
    }
    for (let round = 0; round < (options.rounds ?? ROUNDS); round += 1) {
      const curlFirst = round % 2 === 0;
      const c0 = curlFirst ? await run(() => curl(sandbox, accessToken, dir, ids)) : null;
      const o = await run(() => ours(sandbox, cache, dir, true, subset));
      const f = await run(() => ours(sandbox, cache, dir, false, subset));
      const b = options.floor ? await run(() => floorLoop(sandbox, accessToken, dir, chosen)) : null;
      const c = c0 ?? (await run(() => curl(sandbox, accessToken, dir, ids)));
      if (b) {
        floorShares.push(c.seconds / b.seconds);
        oursOfFloor.push(b.seconds / f.seconds);
      }
      curlRates.push(c.files / c.seconds);
      curlSyncedRates.push(c.files / c.syncedSeconds);
      oursRates.push(o.files / o.seconds);
      oursFastRates.push(f.files / f.seconds);
      shares.push(c.seconds / o.seconds);
      syncedShares.push(c.syncedSeconds / o.seconds);
      plainShares.push(c.seconds / f.seconds);
      files = o.files;
      bytes = o.bytes;
    }
    // CPU a file, in runs of their own: what each client spends is far steadier than the rates,
    // which move with how the host schedules two single-threaded processes on two cores.
    const curlCpu: number[] = [];
    const oursCpu: number[] = [];
    const floorCpu: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      if (options.floor) {
        const spent = await run(async () => {
          const before = process.cpuUsage();
          await floorLoop(sandbox, accessToken, dir, chosen);
          return process.cpuUsage(before);
        });
        floorCpu.push((spent.user + spent.system) / 1e6 / chosen.length);
      }
      const c = await run(() => curl(sandbox, accessToken, dir, ids, { cpu: true }));
      curlCpu.push((c.cpuSeconds ?? 0) / c.files);
      const o = await run(() => ours(sandbox, cache, dir, true, subset));
      oursCpu.push(o.cpuSeconds / o.files);
    }
    cache.close();
    return {
      files,
      bytes,
      pageCacheMBps: { before: probeBefore, after: writeProbe(dir) },
      curl: median(curlRates),
      curlSynced: median(curlSyncedRates),
      ours: median(oursRates),
      share: median(shares),
      shares,
      syncedShare: median(syncedShares),
      syncedShares,
      oursWithoutFsync: median(oursFastRates),
      plainShare: median(plainShares),
      plainShares,
      floorShare: median(floorShares),
      floorShares,
      oursOfFloor: median(oursOfFloor),
      oursOfFloors: oursOfFloor,
      curlCpuMicros: median(curlCpu) * 1e6,
      oursCpuMicros: median(oursCpu) * 1e6,
      floorCpuMicros: median(floorCpu) * 1e6,
    };
  } finally {
    await sandbox.stop();
  }
}

async function underTheLimit(dir: string) {
  const limit = 30;
  const windowSeconds = 10;
  const sandbox = await startSandbox({
    port: 0,
    seed: 7,
    transactions: 600,
    readLimit: 100_000,
  });
  const cache = await syncedCache(sandbox, path.join(dir, 'limited.sqlite'));
  await sandbox.stop();
  // The same organisation again, now with the scaled real limit and a fresh bucket.
  const limited = await startSandbox({
    port: 0,
    seed: 7,
    transactions: 600,
    readLimit: limit,
    windowSeconds,
  });
  // (In process: at 3 requests a second the server's share of the thread does not matter.)
  try {
    const ids = limited.state.files.slice(0, 150).map((file) => file.id);
    const startedAt = Date.now();
    const result = await ours(limited, cache, dir, true, ids);
    // The limit's own bound: `limit` requests in the window we started in, then `limit` per
    // window; the last request can go no earlier than the start of window floor((n-1)/limit).
    const windowMs = windowSeconds * 1000;
    const firstWindowStart = Math.floor(startedAt / windowMs) * windowMs;
    const lastWindow = Math.floor((ids.length - 1) / limit);
    const boundSeconds = Math.max(0, firstWindowStart + lastWindow * windowMs - startedAt) / 1000;
    cache.close();
    return {
      files: ids.length,
      seconds: result.seconds,
      boundSeconds,
      steadyBoundSeconds: (ids.length / limit) * windowSeconds,
      limit,
      windowSeconds,
    };
  } finally {
    await limited.stop();
  }
}

const percent = (share: number) => `${Math.round(share * 100)}%`;
const rounds = (shares: number[]) => shares.map((share) => Math.round(share * 100)).join(' / ');

/**
 * A setting's figures in one line: files a second of each side, then the median share of the
 * rounds (each round's shown) three ways: durable against curl; durable against curl followed
 * by a sync of its files (both then on the disk); not durable against curl (neither); then
 * the median CPU each side spent a file in three runs of its own; last, how fast the machine
 * took new data into its page cache before and after the setting (writeProbe).
 */
function shareLine(result: Awaited<ReturnType<typeof throughput>>): string {
  return [
    `curl ${Math.round(result.curl)} (${Math.round(result.curlSynced)} with its sync),`,
    `ours ${Math.round(result.ours)} (${Math.round(result.oursWithoutFsync)} not durable) files/s:`,
    `durable ${percent(result.share)} (${rounds(result.shares)}),`,
    `against curl and sync ${percent(result.syncedShare)} (${rounds(result.syncedShares)}),`,
    `not durable ${percent(result.plainShare)} (${rounds(result.plainShares)});`,
    `CPU a file: curl ${Math.round(result.curlCpuMicros)} µs, ours ${Math.round(result.oursCpuMicros)} µs (durable);`,
    `new data into the page cache at ${Math.round(result.pageCacheMBps.before)} MB/s before and ${Math.round(result.pageCacheMBps.after)} after`,
  ].join(' ');
}

const SCAN_KB = 200;
const SCAN_FILES = 500;

export default async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bench-download-'));
  // The same again with everything in memory (tmpfs), where there is one: the software alone,
  // without the disk's cost of creating files, which on some machines swings with what was
  // removed lately (see throughput).
  const memoryDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/satchel-bench-download-') : null;
  try {
    const fast = await throughput(dir);
    const memory = memoryDir ? await throughput(memoryDir, { floor: true }) : null;
    // Receipts as accountants have them: scans and photos of 100–300 KiB, where the bytes
    // rather than the requests are the work.
    const scans = await throughput(dir, { fileKb: SCAN_KB, files: SCAN_FILES });
    const distant = await throughput(dir, { latencyMs: 2, rounds: 3 });
    const limited = await underTheLimit(dir);
    const mebibytes = (filesPerSecond: number) =>
      `${((filesPerSecond * scans.bytes) / scans.files / 2 ** 20).toFixed(0)} MiB/s`;
    return {
      concurrency: CONCURRENCY,
      files: fast.files,
      averageFileBytes: Math.round(fast.bytes / fast.files),
      curlFilesPerSecond: Math.round(fast.curl),
      oursFilesPerSecond: Math.round(fast.ours),
      oursShareOfCurl: `${percent(fast.share)} (target ≥ 80%; median of rounds ${rounds(fast.shares)} %)`,
      toTheDisk: shareLine(fast),
      inMemory: memory ? shareLine(memory) : 'no tmpfs at /dev/shm',
      inMemoryFloor: memory
        ? `the floor loop (request, sha256, write, rename; nothing else) ${percent(memory.floorShare)} of curl (${rounds(memory.floorShares)}); the download, not durable, ${percent(memory.oursOfFloor)} of the floor loop (${rounds(memory.oursOfFloors)}); CPU a file: the floor loop ${Math.round(memory.floorCpuMicros)} µs, the download ${Math.round(memory.oursCpuMicros)} µs (durable)`
        : 'no tmpfs at /dev/shm',
      scanSized: `${scans.files} files of ${Math.round(scans.bytes / scans.files / 1024)} KiB on average, to the disk: ${shareLine(scans)}`,
      scanSizedBytes: `curl ${mebibytes(scans.curl)} (${mebibytes(scans.curlSynced)} with its sync), ours ${mebibytes(scans.ours)} (${mebibytes(scans.oursWithoutFsync)} not durable)`,
      withTwoMsLatency: shareLine(distant),
      limitedScale: `${limited.limit} per ${limited.windowSeconds} s (180 a minute scaled by 1/6)`,
      limitedFiles: limited.files,
      limitedSeconds: Number(limited.seconds.toFixed(1)),
      limitedBoundSeconds: Number(limited.boundSeconds.toFixed(1)),
      limitedSteadyBoundSeconds: Number(limited.steadyBoundSeconds.toFixed(1)),
      limitedOverBound: `${(limited.seconds - limited.boundSeconds).toFixed(1)} s over the fixed-window bound`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (memoryDir) rmSync(memoryDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await run());
