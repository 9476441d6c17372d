import { z } from 'zod';
import { AppError } from '../../src-shared/errors';
import { ApiErrorBody, TokenResponse } from '../../src-shared/api';
import {
  abortableSleep,
  createRateGovernor,
  type HoldBack,
  type RateGovernor,
  type RateLimitHeaders,
} from './rate-governor';
import type { Credentials } from './credentials';
import {
  createHttpFetch,
  fromFetch,
  RequestTimeoutError,
  type RawFetch,
  type RawResponse,
} from './http-fetch';
import { redact } from '../log';
import { backoffMs, RETRYABLE_STATUS, retryAfterMs } from './retry';
import { transportFailure } from './transport-failure';

/**
 * HTTP client of the spend API. Gets and refreshes tokens, paces every request through the
 * rate governor, retries what is safe to retry, and parses every answer with the shared wire
 * schemas. Secrets are read from the credentials callback per token request and never kept,
 * logged or put into an error message.
 */

/** The longest `Retry-After` of a 5xx the client waits for before retrying. */
const MAX_SERVER_WAIT_MS = 60_000;

export interface ApiClientOptions {
  baseUrl: string;
  credentials: () => Promise<Credentials>;
  /** OAuth scopes to ask for; reading and writing by default. */
  scope?: string;
  fetch?: typeof fetch;
  /**
   * The transport of file bodies (`fetchRaw`): by default `fetch` when one is given, else the
   * lean keep-alive client of `http-fetch.ts`.
   */
  rawFetch?: RawFetch;
  governor?: RateGovernor;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  timeoutMs?: number;
  maxRetries?: number;
  /** Each request that reached the server: for progress and the sync history. */
  onResponse?: (info: { operation: string; status: number; attempt: number }) => void;
}

export interface RequestOptions<T> {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  schema: z.ZodType<T>;
  signal?: AbortSignal;
  /** Whether a request that may have reached the server can be sent again. Creates are not. */
  idempotent?: boolean;
  /**
   * Called right before each attempt goes out, after any wait for the rate limit: where a
   * caller records that the server may have the request (a request cancelled before this
   * never left).
   */
  beforeSend?: () => void;
}

export interface ApiClient {
  request<T>(options: RequestOptions<T>): Promise<T>;
  /**
   * A raw answer (file content); the caller reads the body. Same pacing, retries and auth; the
   * time-out is for silence (no byte for `timeoutMs`), not for the whole body.
   */
  fetchRaw(
    path: string,
    init: {
      headers?: Record<string, string>;
      signal?: AbortSignal;
      /**
       * The caller's share of the rate limit, asked before every attempt's permit (retries
       * included): a download keeps the reserve it leaves for sync (files/share.ts).
       */
      holdBack?: HoldBack;
      /**
       * How many times a connection reset before the answer is retried here before it is thrown
       * (`ConnectionResetError`): 0 for a caller that retries the file itself and counts its
       * attempts (a bulk download, the keep-offline fill), 1 for a preview a person waits for.
       * Left out: like any failure without an answer, up to `maxRetries`.
       */
      resetRetries?: number;
      /**
       * How many times any failure that left no usable answer is retried here: no answer, a
       * time-out, a connection reset, a 5xx. Each retry follows the first short pause of the
       * backoff (¼–½ s), and a 5xx whose `Retry-After` asks for longer than `maxServerWaitMs` is
       * not waited for: it is thrown at once. 1 for a preview a person waits for: two attempts
       * in all. A 429 is not such a failure: its wait is honoured as for every request, and
       * counted apart. Left out: `maxRetries`, with up to a minute's `Retry-After` waited for.
       */
      retries?: number;
      /** With `retries`: the longest `Retry-After` of a 5xx waited for before the retry. */
      maxServerWaitMs?: number;
      /**
       * How long each attempt waits for the answer to begin (its status and headers) before it
       * is timed out, never longer than `timeoutMs`; the body keeps `timeoutMs` as its longest
       * silence, so a large file that arrives slowly but steadily is never cut. For a preview a
       * person waits for. Left out: `timeoutMs` for both.
       *
       * `retries`, `maxServerWaitMs` and this bound the token request made for this request
       * too, when the token must be fetched first (its deadline is this wait: a token's answer
       * is small): a person waiting for a file does not wait out the sign-in's full backoff.
       */
      firstByteTimeoutMs?: number;
    },
  ): Promise<RawResponse>;
  readonly governor: RateGovernor;
  /** Requests that reached the server so far (answers of any status). */
  stats(): { requests: number };
  /** One cheap authenticated read: proves the credentials and the address work. */
  verify(signal?: AbortSignal): Promise<void>;
  /** Told whenever a request has to wait for the rate limit, and until when. */
  onWait(listener: (scope: string, until: Date) => void): () => void;
}

/**
 * A 416 to a file request with a `Range`: the bytes asked from lie past the file's end (the
 * `.part` being continued is not the file's start). The caller may fetch the whole file.
 */
export class RangeNotSatisfiableError extends AppError {
  constructor(message: string, field?: string) {
    super('REMOTE_REJECTED', message, field);
  }
}

/**
 * A connection to the API was made and then broken before an answer came, or before the whole
 * of a JSON answer came (reset by the server or a proxy in front of it, closed by the other
 * side), after the retries the request allows. Not `OFFLINE`: the network works; and not
 * `BAD_RESPONSE`: a body cut off midway says nothing of the answer it would have been.
 */
export class ConnectionResetError extends AppError {
  /** What happened, without what to do (a file's reason once it is given up on). */
  readonly problem: string;
  /** `midAnswer`: the answer had begun (its headers came) when the connection broke. */
  constructor(host: string, midAnswer = false) {
    const problem = midAnswer
      ? `The connection to ${host} was reset before the server's answer was complete`
      : `The connection to ${host} was reset before the server answered`;
    super('CONNECTION_RESET', `${problem}. Try again later.`);
    this.problem = problem;
  }
}

/**
 * A 5xx after the retries the request allows (or at once, when the server asked for a longer
 * wait than the request may spend). `host`, `status` and `detail` (the server's own words) let
 * a caller say it its own way: the preview, whose Try again asks again, names the server.
 */
export class ServerFailureError extends AppError {
  constructor(
    readonly host: string,
    readonly status: number,
    readonly detail: string,
  ) {
    super('SERVER_ERROR', `The API failed (${status}): ${detail}. Try again later.`);
  }
}

/**
 * No answer (or no byte of it) within the client's time-out, or within the shorter wait for the
 * answer to begin that the request asked for (`firstByteTimeoutMs`), after the retries allowed.
 * `timeoutMs` is the wait that ran out.
 */
export class NoAnswerInTimeError extends AppError {
  constructor(
    readonly host: string,
    readonly timeoutMs: number,
  ) {
    super('TIMEOUT', `The API did not answer within ${Math.round(timeoutMs / 1000)} s. Try again later.`);
  }

  /** The time-out in words: "30 s", or "800 ms" under a second. */
  get waited(): string {
    return this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`;
  }
}

/** How far a request (and the token request made for it) is retried and waited for; see fetchRaw. */
interface Limits {
  retries?: number | undefined;
  maxServerWaitMs?: number | undefined;
  firstByteTimeoutMs?: number | undefined;
}

/** A JSON answer as `read` leaves it: its body read whole when it is a success, else unread. */
interface ReadAnswer {
  response: Response;
  /** The body of a 2xx answer; null for any other (the failure reads what it needs). */
  text: string | null;
}

/** What `send` reads of an answer: a `Response`, or a `RawResponse` of the file transport. */
type Answer = Pick<RawResponse, 'status' | 'statusText' | 'ok' | 'headers' | 'text'> & {
  readonly body: { cancel(): Promise<void> } | null;
};

/** A raw answer as the request's result: the caller reads its body (SendInit's `read`). */
function rawAnswer<R>(answer: R): Promise<R> {
  return Promise.resolve(answer);
}

/** `text` parsed as JSON; null when it is not JSON (or there is no text). */
function jsonOrNull(text: string | null): unknown {
  try {
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

function readRateHeaders(headers: Answer['headers']): RateLimitHeaders | null {
  const limit = Number(headers.get('x-ratelimit-limit'));
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset'));
  const scope = headers.get('x-ratelimit-scope');
  if (!scope || !Number.isFinite(limit) || !Number.isFinite(remaining) || !Number.isFinite(reset))
    return null;
  return { limit, remaining, reset, scope };
}

/**
 * A server's text as the app may repeat it (in an error shown, kept in the sync history,
 * logged): a server or a gateway that quotes the request back would otherwise hand the token
 * or the client secret on. Removes the `known` secrets as sent (plain and form-encoded) and
 * whatever `redact` recognises.
 */
export function scrubbed(text: string, known: ReadonlyArray<string | undefined>): string {
  let clean = text;
  for (const secret of known) {
    if (!secret) continue;
    const forms = new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ]);
    for (const form of forms) clean = clean.replaceAll(form, '[redacted]');
  }
  return redact(clean);
}

async function errorFrom(
  response: Answer,
  known: ReadonlyArray<string | undefined>,
): Promise<{ message: string; field?: string; code?: string }> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = ApiErrorBody.safeParse(JSON.parse(text));
    const first = parsed.success ? parsed.data.errors[0] : undefined;
    if (first)
      return {
        message: scrubbed(first.message, known),
        code: first.code,
        ...(first.field ? { field: first.field } : {}),
      };
  } catch {
    // Not JSON: fall through to the status line.
  }
  return { message: `${response.status} ${response.statusText}`.trim() };
}

/** A token request in flight that several requests may wait for (createApiClient's `accessToken`). */
interface SharedSignIn {
  token: Promise<string>;
  /** Gives the sign-in up: aborted when the last caller waiting for it is cancelled. */
  controller: AbortController;
  /** The callers waiting with a signal of their own and not cancelled. */
  waiting: number;
}

/**
 * The shared sign-in's token for one caller. A caller cancelled meanwhile stops waiting at once
 * (CANCELLED) and leaves the sign-in to the others; the last one to leave gives it up. A caller
 * without a signal cannot be cancelled, and keeps it going.
 */
function waitForSignIn(shared: SharedSignIn, signal: AbortSignal | undefined): Promise<string> {
  if (!signal) {
    shared.waiting += 1;
    return shared.token;
  }
  const cancelled = () => new AppError('CANCELLED', 'Cancelled.');
  if (signal.aborted) {
    if (shared.waiting === 0) shared.controller.abort();
    return Promise.reject(cancelled());
  }
  shared.waiting += 1;
  return new Promise<string>((resolve, reject) => {
    const leave = () => {
      shared.waiting -= 1;
      if (shared.waiting === 0) shared.controller.abort();
      reject(cancelled());
    };
    signal.addEventListener('abort', leave, { once: true });
    shared.token.then(
      (value) => {
        signal.removeEventListener('abort', leave);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', leave);
        reject(error);
      },
    );
  });
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const rawFetch = options.rawFetch ?? (options.fetch ? fromFetch(options.fetch) : createHttpFetch());
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const waitListeners = new Set<(scope: string, until: Date) => void>();
  const governor =
    options.governor ??
    createRateGovernor({
      now,
      sleep,
      onWait: (scope, until) => waitListeners.forEach((listener) => listener(scope, until)),
    });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = options.maxRetries ?? 5;
  let token: { value: string; expiresAtMs: number } | null = null;
  /**
   * The token requests in flight, by their limits: callers with the same limits share one. A
   * preview's bounded request does not join a sync's (it would wait out that one's backoff),
   * and a sync does not join a preview's (it would give up after its two attempts). A shared
   * one runs under a signal of its own, given up only when every caller waiting for it has
   * been cancelled: a sync stopped while it signs in does not cancel the download beside it.
   */
  const tokenRequests = new Map<string, SharedSignIn>();
  let requests = 0;

  /** The wait for an answer to begin: `timeoutMs`, or a shorter one asked for. */
  const firstByteWait = (asked: number | undefined): number =>
    asked === undefined ? timeoutMs : Math.min(asked, timeoutMs);

  async function fetchToken(signal: AbortSignal | undefined, limits: Limits): Promise<string> {
    const credentials = await options.credentials();
    if (credentials.kind === 'token') return credentials.accessToken;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope: options.scope ?? 'read write',
    });
    const { response, text } = await send('POST /oauth2/token', `${base}/oauth2/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      transport: (url, headers, attemptSignal) =>
        jsonAttempt(
          url,
          { method: 'POST', body: form.toString() },
          headers,
          attemptSignal,
          firstByteWait(limits.firstByteTimeoutMs),
        ),
      read: readJsonAnswer,
      signal,
      idempotent: true,
      authenticated: false,
      retries: limits.retries,
      maxServerWaitMs: limits.maxServerWaitMs,
      firstByteTimeoutMs: limits.firstByteTimeoutMs,
    });
    if (response.status === 400 || response.status === 401) {
      throw new AppError(
        'AUTH_FAILED',
        'The API refused the client id and secret. Enter the API key again in Settings.',
      );
    }
    if (!response.ok) {
      const { message } = await errorFrom(response, [credentials.clientSecret]);
      throw new AppError(
        'SERVER_ERROR',
        response.status >= 500
          ? `The API's sign-in failed (${response.status}): ${message}. The credentials were not the problem; try again later.`
          : `Signing in failed (${response.status}): ${message}`,
        // No sign-in at all at this address (no such path or method): the address is at fault.
        response.status === 404 || response.status === 405 ? 'baseUrl' : undefined,
      );
    }
    const parsed = TokenResponse.safeParse(jsonOrNull(text));
    if (!parsed.success)
      throw new AppError('BAD_RESPONSE', 'The sign-in answer did not match the published interface.');
    token = { value: parsed.data.access_token, expiresAtMs: now() + parsed.data.expires_in * 1000 };
    return token.value;
  }

  /**
   * A valid token, refreshed a minute before it expires; one sign-in at a time for callers with
   * the same `limits` (those of the request it is fetched for).
   */
  async function accessToken(
    signal: AbortSignal | undefined,
    force: boolean,
    limits: Limits,
  ): Promise<string> {
    if (!force && token && now() < token.expiresAtMs - 60_000) return token.value;
    const key = `${limits.retries ?? ''}/${limits.maxServerWaitMs ?? ''}/${limits.firstByteTimeoutMs ?? ''}`;
    let running = tokenRequests.get(key);
    // One given up a moment ago (its last caller cancelled) is not joined: it ends cancelled.
    if (!running || running.controller.signal.aborted) {
      const controller = new AbortController();
      const started: SharedSignIn = {
        controller,
        waiting: 0,
        token: fetchToken(controller.signal, limits).finally(() => {
          if (tokenRequests.get(key) === started) tokenRequests.delete(key);
        }),
      };
      // Each caller gets the outcome through waitForSignIn; one cancelled before it waited
      // leaves none to observe it.
      started.token.catch(() => undefined);
      tokenRequests.set(key, (running = started));
    }
    return waitForSignIn(running, signal);
  }

  interface SendInit<R extends Answer, T> {
    headers: Record<string, string>;
    signal?: AbortSignal | undefined;
    idempotent: boolean;
    authenticated: boolean;
    beforeSend?: (() => void) | undefined;
    /** Asked before each attempt's permit, the first and every retry (RateGovernor.acquire). */
    holdBack?: HoldBack | undefined;
    /** How many resets are retried here (fetchRaw's `resetRetries`); `maxRetries` when left out. */
    resetRetries?: number | undefined;
    /** How many failures of any kind are retried here (fetchRaw's `retries`); `maxRetries` when left out. */
    retries?: number | undefined;
    /** The longest `Retry-After` of a 5xx waited for; `MAX_SERVER_WAIT_MS` when left out. */
    maxServerWaitMs?: number | undefined;
    /**
     * The wait for an answer to begin (fetchRaw's `firstByteTimeoutMs`): what a time-out says it
     * waited, and with `retries` and `maxServerWaitMs` the bounds of a token request made for it.
     */
    firstByteTimeoutMs?: number | undefined;
    /**
     * Sends one attempt. `signal` is the caller's; `timeoutMs` is the transport's to keep: the
     * JSON transport as a deadline for the whole request, the file transport as the longest
     * silence. Throws an error named `TimeoutError` when the time ran out.
     */
    transport: (url: string, headers: Record<string, string>, signal: AbortSignal | undefined) => Promise<R>;
    /**
     * Reads the answer that ends the request, as part of its attempt: a body that breaks off
     * midway is a failed attempt, classified and retried as one that got no answer. A file's
     * caller reads its body itself (files/fetch.ts continues a cut one with a Range request).
     */
    read: (response: R) => Promise<T>;
  }

  /** A JSON answer's body read whole (a success's; a failure's is read by `failure`). */
  async function readJsonAnswer(response: Response): Promise<ReadAnswer> {
    return { response, text: response.ok ? await response.text() : null };
  }

  /** One JSON request through `fetch`, with a deadline for the whole request. */
  async function jsonAttempt(
    url: string,
    init: { method: string; body?: string },
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    deadlineMs = timeoutMs,
  ): Promise<Response> {
    const timeout = AbortSignal.timeout(deadlineMs);
    try {
      return await doFetch(url, {
        method: init.method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw timeout.aborted && !signal?.aborted
        ? new RequestTimeoutError(
            `No answer within ${deadlineMs >= 1000 ? `${Math.round(deadlineMs / 1000)} s` : `${deadlineMs} ms`}.`,
          )
        : error;
    }
  }

  /** What a request's attempts so far count against its retries (see `send`). */
  interface Tally {
    failures: number;
    resets: number;
  }

  /**
   * An attempt that ended without a whole answer: none came (`midAnswer` false), or its body
   * broke off after the headers. Throws what the request ends in, or waits out the backoff
   * before the next attempt. (A function of the client rather than one made by every request:
   * see rawAttempt.)
   */
  async function failedAttempt<R extends Answer, T>(
    operation: string,
    url: string,
    init: SendInit<R, T>,
    tally: Tally,
    error: unknown,
    midAnswer: boolean,
  ): Promise<void> {
    if (init.signal?.aborted) throw new AppError('CANCELLED', 'Cancelled.');
    // The JSON transport's deadline covers the body too: running out while it arrives
    // rejects the read with the deadline's own TimeoutError.
    const timedOut =
      error instanceof RequestTimeoutError ||
      (midAnswer && error instanceof Error && error.name === 'TimeoutError');
    // A connection made and then broken is the server's (or its proxy's) doing, not the
    // network's: said as such, never as offline (transport-failure.ts).
    const reset = !timedOut && transportFailure(error) === 'reset';
    // An answer that began and then failed in some other way (a body that cannot be
    // decoded) was not lost on the way: it is a bad answer, and asking again will not help.
    if (midAnswer && !timedOut && !reset)
      throw new AppError(
        'BAD_RESPONSE',
        `${operation} answered with a body that could not be read: ${scrubbed(error instanceof Error ? error.message : String(error), [token?.value])}.`,
      );
    const retries = init.retries ?? maxRetries;
    if (
      !init.idempotent ||
      tally.failures >= retries ||
      (reset && tally.resets >= (init.resetRetries ?? maxRetries))
    ) {
      if (timedOut) throw new NoAnswerInTimeError(new URL(url).host, firstByteWait(init.firstByteTimeoutMs));
      if (reset) throw new ConnectionResetError(new URL(url).host, midAnswer);
      throw new AppError(
        'OFFLINE',
        `Could not reach ${new URL(url).host}: ${scrubbed(error instanceof Error ? error.message : String(error), [token?.value])}. Check the network; Satchel keeps working offline.`,
      );
    }
    await sleep(backoffMs(tally.failures, options.random), init.signal);
    tally.failures += 1;
    if (reset) tally.resets += 1;
  }

  async function send<R extends Answer, T>(operation: string, url: string, init: SendInit<R, T>): Promise<T> {
    let refreshed = false;
    // Failures (the network, 5xx) and 429s are counted apart: waiting out the rate limit a few
    // times must not use up the retries of a server error that comes after.
    const tally: Tally = { failures: 0, resets: 0 };
    let limited = 0;
    const retries = init.retries ?? maxRetries;
    const limits: Limits = {
      retries: init.retries,
      maxServerWaitMs: init.maxServerWaitMs,
      firstByteTimeoutMs: init.firstByteTimeoutMs,
    };
    for (let attempt = 0; ; attempt += 1) {
      if (init.signal?.aborted) throw new AppError('CANCELLED', 'Cancelled.');
      const permit = await governor.acquire(operation, init.signal, init.holdBack).catch((error: unknown) => {
        throw init.signal?.aborted ? new AppError('CANCELLED', 'Cancelled.') : error;
      });
      const headers = { ...init.headers };
      try {
        if (init.authenticated)
          headers['authorization'] = `Bearer ${await accessToken(init.signal, false, limits)}`;
        init.beforeSend?.();
      } catch (error) {
        // Nothing was sent (no token, the caller's own failure, a cancel meanwhile): the permit
        // goes back, or the governor would count it in flight for good, and every request
        // waiting on it (the first of an operation teaches the others its bucket) would wait
        // for ever. The error stays as it is.
        permit.settle(null);
        throw error;
      }
      let response: R;
      try {
        response = await init.transport(url, headers, init.signal);
      } catch (error) {
        permit.settle(null);
        await failedAttempt(operation, url, init, tally, error, false);
        continue;
      }
      permit.settle(readRateHeaders(response.headers));
      requests += 1;
      options.onResponse?.({ operation, status: response.status, attempt });

      if (response.status === 429) {
        const wait =
          retryAfterMs(response.headers.get('retry-after'), now()) ?? backoffMs(limited, options.random);
        governor.blockUntil(operation, now() + wait);
        await response.body?.cancel();
        if (limited >= maxRetries * 2)
          throw new AppError('SERVER_ERROR', 'The API kept answering "too many requests". Try again later.');
        limited += 1;
        await sleep(wait, init.signal);
        continue;
      }
      if (response.status === 401 && init.authenticated && !refreshed) {
        refreshed = true;
        await response.body?.cancel();
        await accessToken(init.signal, true, limits);
        continue;
      }
      if (RETRYABLE_STATUS.has(response.status) && init.idempotent && tally.failures < retries) {
        const asked = retryAfterMs(response.headers.get('retry-after'), now());
        // A server down for longer (maintenance) is reported now rather than waited for in
        // silence: the next sync tries again, and a person at a preview asks again.
        if (asked === null || asked <= (init.maxServerWaitMs ?? MAX_SERVER_WAIT_MS)) {
          await response.body?.cancel();
          await sleep(asked ?? backoffMs(tally.failures, options.random), init.signal);
          tally.failures += 1;
          continue;
        }
      }
      try {
        return await init.read(response);
      } catch (error) {
        await failedAttempt(operation, url, init, tally, error, true);
      }
    }
  }

  async function failure(response: Answer, url: string): Promise<AppError> {
    const error = await errorFrom(response, [token?.value]);
    switch (response.status) {
      case 401:
        return new AppError(
          'AUTH_FAILED',
          'The API refused these credentials. Enter the API key again in Settings.',
        );
      case 403:
        return new AppError('FORBIDDEN', `The API key lacks the permission for this: ${error.message}`);
      // The API's own code (VALIDATION_ERROR, DIMENSION_DELETED, …) goes with the refusal: the
      // app's code says what kind of trouble it is, the API's which rule refused it.
      case 400:
        return new AppError('REMOTE_REJECTED', error.message, error.field, error.code);
      case 404:
        return new AppError('NOT_FOUND', error.message, undefined, error.code);
      case 416:
        return new RangeNotSatisfiableError(`${response.status}: ${error.message}`, error.field);
      default:
        return response.status >= 500
          ? new ServerFailureError(
              new URL(url).host,
              response.status,
              // The server's message is a sentence of its own, with or without its full stop.
              error.message.replace(/[.\s]+$/, ''),
            )
          : new AppError('REMOTE_REJECTED', `${response.status}: ${error.message}`, error.field, error.code);
    }
  }

  /**
   * One attempt of a file request with the client's time-outs, and its answer as it is (the
   * caller reads the body): made once per client, not per request. Each file of a bulk download
   * is a request, and a function made per request costs more than a microsecond under tsx (the
   * command line), which names each one as it is made.
   */
  function rawAttempt(url: string, headers: Record<string, string>, signal: AbortSignal | undefined) {
    return rawFetch(url, { headers, signal, idleTimeoutMs: timeoutMs });
  }

  function urlOf(path: string, query?: RequestOptions<unknown>['query']): string {
    const url = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  const client: ApiClient = {
    governor,
    stats: () => ({ requests }),
    async verify(signal) {
      await client.request({
        method: 'GET',
        path: '/v1/bank-accounts',
        schema: z.unknown(),
        ...(signal ? { signal } : {}),
      });
    },
    onWait(listener) {
      waitListeners.add(listener);
      return () => waitListeners.delete(listener);
    },
    async request({ method, path, query, body, schema, signal, idempotent, beforeSend }) {
      const operation = `${method} ${path.replace(/\/[0-9a-f-]{36}(?=\/|$)/gi, '/{id}')}`;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const text = body !== undefined ? JSON.stringify(body) : undefined;
      const url = urlOf(path, query);
      const { response, text: answer } = await send(operation, url, {
        headers,
        transport: (url, attemptHeaders, attemptSignal) =>
          jsonAttempt(
            url,
            { method, ...(text !== undefined ? { body: text } : {}) },
            attemptHeaders,
            attemptSignal,
          ),
        read: readJsonAnswer,
        signal,
        idempotent: idempotent ?? (method !== 'POST' || path.endsWith('/search-query')),
        authenticated: true,
        beforeSend,
      });
      if (!response.ok) throw await failure(response, url);
      let json: unknown;
      try {
        json = JSON.parse(answer ?? '');
      } catch {
        throw new AppError('BAD_RESPONSE', `${operation} answered with something that is not JSON.`);
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError(
          'BAD_RESPONSE',
          `${operation} answered in an unexpected shape at ${issue?.path.join('.') || 'the top level'}: ${issue?.message ?? ''}`,
        );
      }
      return parsed.data;
    },
    async fetchRaw(path, init) {
      const operation = `GET ${path.replace(/\/[0-9a-f-]{36}(?=\/|$)/gi, '/{id}')}`;
      // No query: the address is the base and the (already encoded) path, parsed once, by the transport.
      const url = `${base}${path}`;
      const firstByte = init.firstByteTimeoutMs;
      const response = await send(operation, url, {
        headers: init.headers ?? {},
        // A bulk download's requests share one transport function rather than each making its
        // own (see rawAttempt).
        transport:
          firstByte === undefined
            ? rawAttempt
            : (url, headers, signal) =>
                rawFetch(url, {
                  headers,
                  signal,
                  idleTimeoutMs: timeoutMs,
                  firstByteTimeoutMs: firstByteWait(firstByte),
                }),
        signal: init.signal,
        idempotent: true,
        authenticated: true,
        holdBack: init.holdBack,
        resetRetries: init.resetRetries,
        retries: init.retries,
        maxServerWaitMs: init.maxServerWaitMs,
        firstByteTimeoutMs: firstByte,
        read: rawAnswer,
      });
      if (!response.ok && response.status !== 206) throw await failure(response, url);
      return response;
    },
  };
  return client;
}
