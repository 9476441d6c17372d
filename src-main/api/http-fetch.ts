import { STATUS_CODES } from 'node:http';
import { Agent, errors, type Dispatcher } from 'undici';

/**
 * The transport of file bodies (`RawFetch`), over an `undici` connection pool with keep-alive
 * connections. Receipts are small and many, so a bulk download is bound by the cost of each
 * request: Node's built-in `fetch` spends about twice the CPU per request of a plain
 * `http.request`, and `http.request` about a third more than undici's own `request` (its
 * parser and connection handling in place of `node:http`'s); `request` itself parses every
 * header and wraps every body in a stream, which the pool's `dispatch` with a handler of our
 * own (`Exchange`) does not. A `Response` around a web stream, a `Headers` object and a
 * combined abort signal per request would cost again as much as the rest of a small file's
 * handling (docs/files.md, "Benchmark"). So an answer here is a `RawResponse`, the part of
 * `Response` the download path reads:
 *
 * - GET and HEAD only, headers as a plain record, `signal` for cancellation;
 * - `idleTimeoutMs`: the request fails when no byte arrived for that long, waiting for the
 *   answer or within the body. A deadline for the whole request would cut a large file on a
 *   slow line however steadily it arrives; a body the reader is slow to take pauses the
 *   connection, and that is not silence. `firstByteTimeoutMs`, when given, is the wait for the
 *   answer to begin (its status and headers) instead: a person waiting for a preview is told
 *   sooner that a server says nothing, while a body that has begun keeps the idle time;
 * - the body streams as it arrives (with back-pressure) and ends in an error when the
 *   connection closes before the body is complete, so a cut body is seen as cut and can be
 *   continued with `Range`;
 * - no content decoding: it asks for `identity`, because sizes, hashes and ranges are of the
 *   file's own bytes;
 * - redirects followed (at most 5), without the `Authorization` header once the origin changes.
 *
 * JSON requests keep using the built-in `fetch`; `fromFetch` turns one into a `RawFetch` (tests
 * give the app their own fetch).
 */

export interface RawBody extends AsyncIterable<Uint8Array> {
  /** Stops the body and frees its connection. */
  cancel(): Promise<void>;
}

export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** Null for HEAD and for statuses without a body. */
  readonly body: RawBody | null;
  text(): Promise<string>;
}

export interface RawInit {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Fail when no byte arrived for this long (waiting for the answer or in the body). */
  idleTimeoutMs?: number;
  /**
   * Fail when the answer (its status line and headers) has not come within this long; the body
   * then keeps `idleTimeoutMs`. Left out: `idleTimeoutMs` for both.
   */
  firstByteTimeoutMs?: number;
}

export type RawFetch = (url: string, init?: RawInit) => Promise<RawResponse>;

/** A request ran out of time: no byte for the idle time, or past a JSON request's deadline. */
export class RequestTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

export interface HttpFetchOptions {
  /** Connections kept per origin; 16 by default (downloads run up to 8 at a time). */
  maxSockets?: number;
}

/** Fires `onIdle` when `touch` was not called for `ms`; `stop` ends it. */
function idleTimer(ms: number | undefined, onIdle: (error: RequestTimeoutError) => void) {
  if (!ms || !Number.isFinite(ms) || ms <= 0) return { touch() {}, stop() {} };
  const timer = setTimeout(() => onIdle(silence(ms)), ms);
  // The connection keeps the process alive while it matters; the timer alone never does.
  timer.unref();
  return { touch: () => timer.refresh(), stop: () => clearTimeout(timer) };
}

function silence(ms: number): RequestTimeoutError {
  const seconds = ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
  return new RequestTimeoutError(`No data arrived for ${seconds}.`);
}

/** undici's own time-outs as the one this module promises; anything else as it is. */
function translated(error: unknown, firstByteMs: number, idleTimeoutMs: number): unknown {
  if (error instanceof errors.HeadersTimeoutError) return silence(firstByteMs);
  return error instanceof errors.BodyTimeoutError ? silence(idleTimeoutMs) : error;
}

/** A time-out in milliseconds as undici takes it: 0 (none) when not a positive finite number. */
function undiciTimeout(ms: number | undefined): number {
  return ms && Number.isFinite(ms) && ms > 0 ? Math.max(1, ms) : 0;
}

/** Body bytes held for a reader before the connection is paused (back-pressure). */
const HIGH_WATER_BYTES = 256 * 1024;
/** Bytes of a redirect's or an empty answer's body read to keep its connection; more closes it. */
const DRAIN_LIMIT_BYTES = 128 * 1024;

/**
 * One request and its answer as undici's dispatcher reports them: the status and the raw list
 * of header names and values, then each chunk of the body. This is the dispatcher's handler
 * interface that hands the headers over unparsed (undici 7 also has one that first turns every
 * header into an object, as `request` does); with it, an answer costs no stream, no header
 * object and no combined signal, which for a receipt of a few kilobytes is a quarter of the
 * process's own time per file (docs/files.md, "Benchmark").
 *
 * Chunks wait in a queue for the reader; past `HIGH_WATER_BYTES` the connection is paused
 * until the reader catches up (undici stops reading the socket and its body time-out with it).
 * The body ends in the error that ended the request, after the chunks that did arrive.
 */
class Exchange implements Dispatcher.DispatchHandler {
  status = 0;
  rawHeaders: Buffer[] = [];
  /** Settles when the headers arrived, or with the error that came first. */
  readonly answered: Promise<void>;
  private settle!: { resolve: () => void; reject: (error: unknown) => void };
  private abortRequest: ((error: Error) => void) | null = null;
  private resumeSocket: (() => void) | null = null;
  private readonly chunks: Buffer[] = [];
  private queued = 0;
  private paused = false;
  private discarded = 0;
  private discarding = false;
  private ended = false;
  private failure: { error: unknown } | null = null;
  /** Why the request was stopped before undici sent it. */
  private stopped: Error | null = null;
  private reader: {
    resolve: (result: IteratorResult<Uint8Array>) => void;
    reject: (error: unknown) => void;
  } | null = null;
  private finished: (() => void) | null = null;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly firstByteMs: number,
    private readonly idleTimeoutMs: number,
  ) {
    this.answered = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // The exchange itself listens (`handleEvent`): no function made per request.
    signal?.addEventListener('abort', this, { once: true });
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.abort(this.signal?.reason ?? new Error('Aborted.'));
  }

  // undici's side.
  onConnect(abort: (error?: Error) => void): void {
    this.abortRequest = abort;
    // Stopped while it waited for a connection: it never goes out.
    if (this.stopped) abort(this.stopped);
    else if (this.signal?.aborted) this.handleEvent();
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (status < 200) return true; // informational; the real answer follows
    this.status = status;
    this.rawHeaders = rawHeaders;
    this.resumeSocket = resume;
    this.settle.resolve();
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.discarding) {
      this.discarded += chunk.length;
      if (this.discarded > DRAIN_LIMIT_BYTES) this.cancel();
      return true;
    }
    this.chunks.push(chunk);
    this.queued += chunk.length;
    this.wake();
    if (this.queued < HIGH_WATER_BYTES) return true;
    this.paused = true;
    return false;
  }

  onComplete(): void {
    this.ended = true;
    this.done();
  }

  onError(error: Error): void {
    this.failure = { error: translated(error, this.firstByteMs, this.idleTimeoutMs) };
    this.settle.reject(this.failure.error);
    this.done();
  }

  // The reader's side.
  /** The next chunk; done at the end of the body; the request's error after the last chunk. */
  read(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.chunks.shift();
    if (chunk) {
      this.queued -= chunk.length;
      if (this.paused && this.queued < HIGH_WATER_BYTES / 2) {
        this.paused = false;
        this.resumeSocket?.();
      }
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.reader = { resolve, reject }));
  }

  /**
   * Stops the request and forgets what arrived: a reader waiting for the next chunk, or asking
   * later, learns the body was cancelled (never a clean end of a body it did not get whole).
   */
  cancel(): void {
    this.chunks.length = 0;
    this.queued = 0;
    const error = new Error('The body was cancelled.');
    if (this.ended || this.failure) this.failure ??= { error };
    else this.abort(error);
  }

  /**
   * Reads and forgets the rest of a body nobody wants (a redirect's, a HEAD's), so that its
   * connection serves the next request; a large one is cut off instead.
   */
  drain(): Promise<void> {
    this.discarding = true;
    this.discarded = this.queued;
    this.chunks.length = 0;
    this.queued = 0;
    if (this.paused) {
      this.paused = false;
      this.resumeSocket?.();
    }
    if (this.discarded > DRAIN_LIMIT_BYTES) this.cancel();
    if (this.ended || this.failure) return Promise.resolve();
    return new Promise((resolve) => (this.finished = resolve));
  }

  private abort(error: Error): void {
    if (this.ended || this.failure) return;
    if (this.abortRequest) return this.abortRequest(error);
    // Not sent yet: it fails now, and is stopped when undici gets to it (onConnect).
    this.stopped = error;
    this.onError(error);
  }

  private wake(): void {
    const reader = this.reader;
    if (!reader) return;
    this.reader = null;
    this.read().then(reader.resolve, reader.reject);
  }

  private done(): void {
    this.signal?.removeEventListener('abort', this);
    this.wake();
    this.finished?.();
    this.finished = null;
  }

  /** The answer's headers are read from the exchange: `get` is `header`. */
  get(name: string): string | null {
    return this.header(name);
  }

  /** A header's value (several of the same name joined by ", "), or null. */
  header(name: string): string | null {
    const wanted = name.toLowerCase();
    let found: string | null = null;
    for (let i = 0; i + 1 < this.rawHeaders.length; i += 2) {
      if (!sameName(this.rawHeaders[i]!, wanted)) continue;
      const value = this.rawHeaders[i + 1]!.toString('latin1');
      found = found === null ? value : `${found}, ${value}`;
    }
    return found;
  }
}

/** Whether a raw header name is `wanted` (lower case), ignoring the case of its ASCII letters. */
function sameName(raw: Buffer, wanted: string): boolean {
  if (raw.length !== wanted.length) return false;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i]!;
    if ((byte >= 65 && byte <= 90 ? byte + 32 : byte) !== wanted.charCodeAt(i)) return false;
  }
  return true;
}

export function createHttpFetch(options: HttpFetchOptions = {}): RawFetch {
  const agent = new Agent({ connections: options.maxSockets ?? 16 });

  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD')
      throw new TypeError(`This client sends only GET and HEAD requests, not ${method}.`);
    const signal = init?.signal;
    // 0 turns undici's time-outs off (its defaults are 300 s).
    const idle = undiciTimeout(init?.idleTimeoutMs);
    const firstByte = init?.firstByteTimeoutMs === undefined ? idle : undiciTimeout(init.firstByteTimeoutMs);
    let url = new URL(input);
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const [name, value] of Object.entries(init?.headers ?? {})) headers[name.toLowerCase()] = value;
    for (let redirects = 0; ; redirects += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new TypeError(`Unsupported protocol ${url.protocol}`);
      if (signal?.aborted) throw signal.reason ?? new Error('Aborted.');
      const exchange = new Exchange(signal, firstByte, idle);
      agent.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          headersTimeout: firstByte,
          bodyTimeout: idle,
        },
        exchange,
      );
      await exchange.answered;
      const status = exchange.status;
      const location = exchange.header('location');
      if (REDIRECT_STATUS.has(status) && location !== null) {
        await exchange.drain();
        if (redirects >= MAX_REDIRECTS) throw new TypeError(`Too many redirects from ${url.origin}.`);
        const next = new URL(location, url);
        if (next.origin !== url.origin) delete headers['authorization'];
        url = next;
        continue;
      }
      const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
      if (empty) await exchange.drain();
      return new ExchangeResponse(exchange, empty ? null : new ExchangeBody(exchange));
    }
  };
}

/**
 * A body read from its exchange. Classes rather than object literals of arrow functions: an
 * answer a file makes no function of its own (under tsx, which names every such function as
 * it is made, that cost more than a microsecond each).
 */
class ExchangeBody implements RawBody, AsyncIterator<Uint8Array> {
  constructor(private readonly exchange: Exchange) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    return this.exchange.read();
  }

  /** A reader that stops early (a break, a failed write) ends the request. */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.exchange.cancel();
    return Promise.resolve({ value: undefined, done: true });
  }

  cancel(): Promise<void> {
    this.exchange.cancel();
    return Promise.resolve();
  }
}

class ExchangeResponse implements RawResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };

  constructor(
    exchange: Exchange,
    readonly body: ExchangeBody | null,
  ) {
    this.status = exchange.status;
    this.statusText = STATUS_CODES[exchange.status] ?? '';
    this.ok = exchange.status >= 200 && exchange.status < 300;
    this.headers = exchange;
  }

  async text(): Promise<string> {
    if (!this.body) return '';
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * A standard `fetch` as a `RawFetch`, the idle time-out kept by a timer reset per chunk. Unlike
 * the node:http transport, a reader that holds the body back for longer than the idle time
 * also times out here: a web stream does not tell whether it waits for the network or for
 * its reader. (Used when the app is given a fetch, as tests do.)
 */
export function fromFetch(fetchImpl: typeof fetch): RawFetch {
  return async (url, init) => {
    const controller = new AbortController();
    const timedOut = (error: RequestTimeoutError) => controller.abort(error);
    const answer = idleTimer(init?.firstByteTimeoutMs ?? init?.idleTimeoutMs, timedOut);
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: init?.method ?? 'GET',
        headers: init?.headers ?? {},
        signal,
      });
    } catch (error) {
      throw controller.signal.aborted ? controller.signal.reason : error;
    } finally {
      answer.stop();
    }
    const stream = response.body;
    // The body's silence is timed from the answer on.
    const idle = idleTimer(stream ? init?.idleTimeoutMs : undefined, timedOut);
    const body: RawBody | null = stream && {
      async *[Symbol.asyncIterator]() {
        try {
          for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
            idle.touch();
            yield chunk;
          }
        } catch (error) {
          throw controller.signal.aborted ? controller.signal.reason : error;
        } finally {
          idle.stop();
        }
      },
      cancel: async () => {
        idle.stop();
        await stream.cancel().catch(() => undefined);
      },
    };
    return {
      status: response.status,
      statusText: response.statusText,
      ok: response.ok,
      headers: response.headers,
      body,
      text: async () => {
        try {
          return await response.text();
        } finally {
          idle.stop();
        }
      },
    };
  };
}
