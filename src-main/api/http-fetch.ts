import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

/**
 * A lean `fetch` for file bodies, over `node:http(s)` with keep-alive connections. Receipts are
 * small and many, so a bulk download is bound by the cost of each request, and Node's built-in
 * `fetch` spends about twice the CPU per request of a plain `http.request` (docs/files.md,
 * "Benchmark"). It does what the download path needs and nothing more:
 *
 * - GET and HEAD only, headers as a plain record, `signal` for cancellation and time-outs;
 * - the body streams as it arrives (with back-pressure) and ends in an error when the
 *   connection closes before the body is complete, so a cut body is seen as cut and can be
 *   continued with `Range`;
 * - no content decoding: it asks for `identity`, because sizes, hashes and ranges are of the
 *   file's own bytes;
 * - redirects followed (at most 5), without the `Authorization` header once the origin changes.
 *
 * JSON requests keep using the built-in `fetch`.
 */

const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

export interface HttpFetchOptions {
  /** Connections kept per origin; 16 by default (downloads run up to 8 at a time). */
  maxSockets?: number;
}

function toHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  return headers;
}

function headerRecord(init: RequestInit | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => (result[key] = value));
  return result;
}

/** The body as a web stream that pauses the socket while the reader is behind. */
function bodyStream(message: IncomingMessage, signal: AbortSignal | null | undefined) {
  let onAbort: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let finished = false;
      const fail = (error: unknown) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      };
      message.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) message.pause();
      });
      message.on('end', () => {
        if (finished) return;
        finished = true;
        signal?.removeEventListener('abort', onAbort!);
        controller.close();
      });
      message.on('error', fail);
      message.on('close', () => {
        signal?.removeEventListener('abort', onAbort!);
        if (!message.complete) fail(new Error('The connection closed before the whole body arrived.'));
      });
      onAbort = () => {
        const reason: unknown = signal?.reason;
        fail(reason ?? new Error('Aborted.'));
        message.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    },
    pull() {
      message.resume();
    },
    cancel() {
      signal?.removeEventListener('abort', onAbort!);
      message.destroy();
    },
  });
}

export function createHttpFetch(options: HttpFetchOptions = {}): typeof fetch {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16 };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function once(url: URL, method: string, headers: Record<string, string>, signal?: AbortSignal | null) {
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
      const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('response', (message) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(message);
      });
      request.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(signal?.aborted ? (signal.reason ?? error) : error);
      });
      request.end();
    });
  }

  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD')
      throw new TypeError(`This client sends only GET and HEAD requests, not ${method}.`);
    if (init?.body !== undefined && init.body !== null)
      throw new TypeError('This client sends no request bodies.');
    const signal = init?.signal;
    let url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = { 'accept-encoding': 'identity', ...headerRecord(init) };
    for (let redirects = 0; ; redirects += 1) {
      const message = await once(url, method, headers, signal);
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
      return new Response(empty ? null : bodyStream(message, signal), {
        status,
        statusText: message.statusMessage ?? '',
        headers: toHeaders(message),
      });
    }
  };
}
