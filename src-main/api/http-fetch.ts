import { STATUS_CODES } from 'node:http';
import { Agent, errors } from 'undici';

/**
 * The transport of file bodies (`RawFetch`), over an `undici` connection pool with keep-alive
 * connections. Receipts are small and many, so a bulk download is bound by the cost of each
 * request: Node's built-in `fetch` spends about twice the CPU per request of a plain
 * `http.request`, and `http.request` about a third more than undici's own `request` (its
 * parser and connection handling in place of `node:http`'s). A `Response` around a web stream,
 * a `Headers` object and a combined abort signal per request would cost again as much as the
 * rest of a small file's handling (docs/files.md, "Benchmark"). So an answer here is a
 * `RawResponse`, the part of `Response` the download path reads:
 *
 * - GET and HEAD only, headers as a plain record, `signal` for cancellation;
 * - `idleTimeoutMs`: the request fails when no byte arrived for that long, waiting for the
 *   answer or within the body. A deadline for the whole request would cut a large file on a
 *   slow line however steadily it arrives; a body the reader is slow to take pauses the
 *   connection, and that is not silence;
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
function translated(error: unknown, idleTimeoutMs: number): unknown {
  return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError
    ? silence(idleTimeoutMs)
    : error;
}

type UndiciBody = Awaited<ReturnType<Agent['request']>>['body'];

/** An answer's body: chunks as they arrive, the time-out reported as `RequestTimeoutError`. */
function rawBody(body: UndiciBody, idleTimeoutMs: number): RawBody {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of body) yield chunk as Uint8Array;
      } catch (error) {
        throw translated(error, idleTimeoutMs);
      }
    },
    cancel() {
      // A reader waiting for the next chunk learns it will not come.
      body.destroy(new Error('The body was cancelled.'));
      return Promise.resolve();
    },
  };
}

export function createHttpFetch(options: HttpFetchOptions = {}): RawFetch {
  const agent = new Agent({ connections: options.maxSockets ?? 16 });

  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD')
      throw new TypeError(`This client sends only GET and HEAD requests, not ${method}.`);
    const signal = init?.signal;
    // 0 turns undici's time-outs off (its defaults are 300 s).
    const idle =
      init?.idleTimeoutMs && Number.isFinite(init.idleTimeoutMs) ? Math.max(1, init.idleTimeoutMs) : 0;
    let url = new URL(input);
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const [name, value] of Object.entries(init?.headers ?? {})) headers[name.toLowerCase()] = value;
    for (let redirects = 0; ; redirects += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new TypeError(`Unsupported protocol ${url.protocol}`);
      if (signal?.aborted) throw signal.reason ?? new Error('Aborted.');
      let answer: Awaited<ReturnType<Agent['request']>>;
      try {
        answer = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          signal,
          headersTimeout: idle,
          bodyTimeout: idle,
        });
      } catch (error) {
        throw translated(error, idle);
      }
      const status = answer.statusCode;
      const location = answer.headers['location'];
      if (REDIRECT_STATUS.has(status) && typeof location === 'string') {
        await answer.body.dump().catch(() => undefined); // drained, so the connection is reused
        if (redirects >= MAX_REDIRECTS) throw new TypeError(`Too many redirects from ${url.origin}.`);
        const next = new URL(location, url);
        if (next.origin !== url.origin) delete headers['authorization'];
        url = next;
        continue;
      }
      const empty = method === 'HEAD' || NULL_BODY_STATUS.has(status);
      if (empty) await answer.body.dump().catch(() => undefined);
      const received = answer.headers;
      const body = empty ? null : rawBody(answer.body, idle);
      return {
        status,
        statusText: STATUS_CODES[status] ?? '',
        ok: status >= 200 && status < 300,
        headers: {
          get(name) {
            const value = received[name.toLowerCase()];
            if (value === undefined) return null;
            return Array.isArray(value) ? value.join(', ') : String(value);
          },
        },
        body,
        async text() {
          if (!body) return '';
          const chunks: Uint8Array[] = [];
          for await (const chunk of body) chunks.push(chunk);
          return Buffer.concat(chunks).toString('utf8');
        },
      };
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
