import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

/**
 * The transport of file bodies (`RawFetch`), over `node:http(s)` with keep-alive connections.
 * Receipts are small and many, so a bulk download is bound by the cost of each request: Node's
 * built-in `fetch` spends about twice the CPU per request of a plain `http.request`, and a
 * `Response` around a web stream, a `Headers` object and a combined abort signal per request
 * cost again as much as the rest of a small file's handling (docs/files.md, "Benchmark"). So
 * an answer here is a `RawResponse`, the part of `Response` the download path reads:
 *
 * - GET and HEAD only, headers as a plain record, `signal` for cancellation;
 * - `idleTimeoutMs`: the request fails when no byte arrived for that long, waiting for the
 *   answer or within the body. A deadline for the whole request would cut a large file on a
 *   slow line however steadily it arrives;
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
/** Chunks held for a reader that is behind before the socket is paused. */
const HIGH_WATER_CHUNKS = 16;

export interface HttpFetchOptions {
  /** Connections kept per origin; 16 by default (downloads run up to 8 at a time). */
  maxSockets?: number;
}

function headerOf(message: IncomingMessage, name: string): string | null {
  const value = message.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Fires `onIdle` when `touch` was not called for `ms`; `stop` ends it. */
function idleTimer(ms: number | undefined, onIdle: (error: RequestTimeoutError) => void) {
  if (!ms || !Number.isFinite(ms) || ms <= 0) return { touch() {}, stop() {} };
  const seconds = ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
  const timer = setTimeout(() => onIdle(new RequestTimeoutError(`No data arrived for ${seconds}.`)), ms);
  // The connection keeps the process alive while it matters; the timer alone never does.
  timer.unref();
  return { touch: () => timer.refresh(), stop: () => clearTimeout(timer) };
}

/**
 * The body of an answer as an async iterable: chunks as they arrive, the socket paused while
 * the reader is behind, an error when the connection closes early, the signal aborts or no
 * byte arrives for the idle time.
 */
class MessageBody implements RawBody {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: unknown = null;
  private wake: (() => void) | null = null;
  private readonly detach: () => void;

  constructor(
    private readonly message: IncomingMessage,
    signal: AbortSignal | undefined,
    idleTimeoutMs: number | undefined,
  ) {
    // A socket paused because the reader is behind is not idle.
    const idle = idleTimer(idleTimeoutMs, (error) => (message.isPaused() ? idle.touch() : this.fail(error)));
    const onAbort = () => this.fail(signal?.reason ?? new Error('Aborted.'));
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detach = () => {
      idle.stop();
      signal?.removeEventListener('abort', onAbort);
    };
    message.on('data', (chunk: Buffer) => {
      idle.touch();
      this.chunks.push(chunk);
      if (this.chunks.length >= HIGH_WATER_CHUNKS) message.pause();
      this.notify();
    });
    message.on('end', () => {
      this.ended = true;
      this.detach();
      this.notify();
    });
    message.on('error', (error) => this.fail(error));
    message.on('close', () => {
      if (!message.complete) this.fail(new Error('The connection closed before the whole body arrived.'));
      this.detach();
    });
    // Closed between the answer's head and these listeners: nothing more will be emitted.
    if (message.destroyed && !message.complete)
      this.fail(message.errored ?? new Error('The connection closed before the whole body arrived.'));
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private fail(error: unknown): void {
    if (this.ended || this.failure !== null) return;
    this.failure = error;
    this.detach();
    this.message.destroy();
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk) {
        if (this.message.isPaused() && this.chunks.length < HIGH_WATER_CHUNKS / 2) this.message.resume();
        yield chunk;
        continue;
      }
      // What arrived before a failure is read first: a cut body keeps its bytes for a Range request.
      if (this.failure !== null) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  cancel(): Promise<void> {
    if (!this.ended && this.failure === null) {
      this.failure = new Error('The body was cancelled.');
      this.detach();
      this.message.destroy();
    }
    this.chunks.length = 0;
    this.notify(); // a reader waiting for the next chunk learns it will not come
    return Promise.resolve();
  }
}

class MessageResponse implements RawResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: MessageBody | null;

  constructor(message: IncomingMessage, body: MessageBody | null) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.headers = { get: (name) => headerOf(message, name) };
    this.body = body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  async text(): Promise<string> {
    if (!this.body) return '';
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }
}

export function createHttpFetch(options: HttpFetchOptions = {}): RawFetch {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function once(url: URL, method: string, headers: Record<string, string>, init: RawInit | undefined) {
    const signal = init?.signal;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const protocol = url.protocol as keyof typeof agents;
      const agent = agents[protocol];
      if (!agent) {
        reject(new TypeError(`Unsupported protocol ${url.protocol}`));
        return;
      }
      if (signal?.aborted) {
        reject(signal.reason ?? new Error('Aborted.'));
        return;
      }
      const request = (protocol === 'https:' ? https : http).request(url, { method, headers, agent });
      let failure: unknown = null;
      const stopWith = (error: unknown) => {
        failure ??= error;
        request.destroy();
      };
      const idle = idleTimer(init?.idleTimeoutMs, stopWith);
      const onAbort = () => stopWith(signal?.reason ?? new Error('Aborted.'));
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('response', (message) => {
        idle.stop();
        signal?.removeEventListener('abort', onAbort);
        resolve(message);
      });
      request.on('error', (error) => {
        idle.stop();
        signal?.removeEventListener('abort', onAbort);
        reject(failure ?? error);
      });
      request.end();
    });
  }

  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD')
      throw new TypeError(`This client sends only GET and HEAD requests, not ${method}.`);
    let url = new URL(input);
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const [name, value] of Object.entries(init?.headers ?? {})) headers[name.toLowerCase()] = value;
    for (let redirects = 0; ; redirects += 1) {
      const message = await once(url, method, headers, init);
      const status = message.statusCode ?? 0;
      const location = message.headers.location;
      if (REDIRECT_STATUS.has(status) && location) {
        message.resume(); // drain, so the connection can be reused
        if (redirects >= MAX_REDIRECTS) throw new TypeError(`Too many redirects from ${url.origin}.`);
        const next = new URL(location, url);
        if (next.origin !== url.origin) delete headers['authorization'];
        url = next;
        continue;
      }
      const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
      if (empty) message.resume();
      return new MessageResponse(
        message,
        empty ? null : new MessageBody(message, init?.signal, init?.idleTimeoutMs),
      );
    }
  };
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
    const idle = idleTimer(init?.idleTimeoutMs, (error) => controller.abort(error));
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: init?.method ?? 'GET',
        headers: init?.headers ?? {},
        signal,
      });
    } catch (error) {
      idle.stop();
      throw controller.signal.aborted ? controller.signal.reason : error;
    }
    idle.touch();
    const stream = response.body;
    if (!stream) idle.stop();
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
