import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { operations, type Operation, type OperationId } from '../../src-shared/api';
import { tokenForm, type Auth, type Grant } from './auth';
import {
  failure,
  isFailure,
  sendFailure,
  validationFailure,
  writeErrorCode,
  type ApiFailure,
} from './errors';
import type { Corruptions } from './corruptions';
import type { Faults } from './faults';
import { damaged } from './body-faults';
import { accepts, mediaTypeOf } from './negotiate';
import { rateHeaders, type RateDecision, type RateLimiter } from './rate-limit';

/**
 * The HTTP shell: one Fastify route per catalogue operation, each run through the same
 * steps — authenticate, count against the rate limit, check the scope, inject faults,
 * negotiate, parse and validate — before its handler sees typed input. Unknown paths,
 * wrong methods and every framework error end in the standard error body.
 */

export interface HandlerInput {
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  grant: Grant | null;
  request: FastifyRequest;
  reply: FastifyReply;
  /** A fault rule's damage to a file body (truncated, corrupted, slow); JSON answers get it after the handler. */
  bodyFault?: BodyFault;
}
export interface BodyFault {
  truncateAt?: number;
  corrupt?: boolean;
  /** Spread the body over this many milliseconds. */
  slowMs?: number;
  /** With `slowMs`: in this many pieces (ten when left out). */
  slowPieces?: number;
}
/** One API request as it arrived (after authentication), for tests that count requests. */
export interface RequestLogEntry {
  operationId: OperationId;
  method: string;
  path: string;
  /** The Range header, when the request had one. */
  range?: string;
  /** When it arrived, by the sandbox clock (milliseconds). */
  at: number;
}
export type Handler = (input: HandlerInput) => unknown;
export type Handlers = Record<OperationId, Handler>;

export interface ServerParts {
  auth: Auth;
  limiter: RateLimiter;
  faults: Faults;
  /** Malformed records served on purpose (control surface); none by default. */
  corruptions?: Corruptions;
  handlers: Handlers;
  now: () => number;
  /** Told of every authenticated API request (the control surface's request log). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Registers extra, non-API routes (the control surface); their paths join the 405 check. */
  extraRoutes?: (app: FastifyInstance) => { method: string; path: string }[];
}

const JSON_TYPE = 'application/json; charset=utf-8';
const decisions = new WeakMap<FastifyRequest, RateDecision>();
const operationOf = new WeakMap<FastifyRequest, Operation>();

const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');
/** A catalogue or control path as a pattern: each `{id}` or `:id` one segment, the rest literal. */
const pathPattern = (path: string): RegExp =>
  new RegExp(
    `^${path
      .split(/\{\w+\}|:\w+/)
      .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );

export function buildServer(parts: ServerParts): FastifyInstance {
  const app = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    bodyLimit: 1_048_576,
    forceCloseConnections: true,
    // Errors of the router (a path that is not valid percent-encoding, a path id longer than
    // any id) come here, not to the error handler, and skip the hooks: answer them in full.
    frameworkErrors: (error, request, reply) => {
      const path = request.raw.url?.split('?')[0] ?? '';
      const answer =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? failure(404, 'NOT_FOUND', `No record has the id in ${path}.`)
          : error.code === 'FST_ERR_BAD_URL'
            ? failure(400, 'VALIDATION_ERROR', `The path ${path} is not valid percent-encoding.`)
            : failure(500, 'INTERNAL_ERROR', 'The sandbox failed on this request.');
      if (!path.startsWith('/__control'))
        reply.headers(rateHeaders(parts.limiter.peek(parts.auth.clientId, 'read')));
      return sendFailure(reply, answer);
    },
  });
  app.removeAllContentTypeParsers();
  // Bodies arrive raw; each operation decides which media type it accepts (415 otherwise).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const known: { method: string; pattern: RegExp }[] = [];
  for (const [id, operation] of Object.entries(operations) as [OperationId, Operation][]) {
    known.push({ method: operation.method, pattern: pathPattern(operation.path) });
    app.route({
      method: operation.method,
      url: fastifyPath(operation.path),
      // Known before the body is read, so a body refused as too large shows the right bucket.
      onRequest: (request, _reply, done) => {
        operationOf.set(request, operation);
        done();
      },
      handler: async (request, reply) => run(parts, id, operation, request, reply),
    });
  }
  for (const route of parts.extraRoutes?.(app) ?? [])
    known.push({ method: route.method, pattern: pathPattern(route.path) });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = [...new Set(known.filter((k) => k.pattern.test(path)).map((k) => k.method))].sort();
    if (methods.length === 0)
      return sendFailure(reply, failure(404, 'NOT_FOUND', `No operation at ${path}.`));
    return sendFailure(
      reply,
      failure(
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${path}; use ${methods.join(' or ')}.`,
        undefined,
        { allow: methods.join(', ') },
      ),
    );
  });

  app.setErrorHandler((error: unknown, request, reply) => {
    if (isFailure(error)) return sendFailure(reply, error);
    const { statusCode, code } = (error ?? {}) as { statusCode?: number; code?: string };
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendFailure(reply, failure(413, 'PAYLOAD_TOO_LARGE', 'The body is larger than 1 MB.'));
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return sendFailure(reply, failure(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'));
    if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) {
      return sendFailure(
        reply,
        failure(
          statusCode,
          statusCode === 400 ? 'VALIDATION_ERROR' : 'BAD_REQUEST',
          'The request could not be read.',
        ),
      );
    }
    request.log.error(error);
    return sendFailure(reply, failure(500, 'INTERNAL_ERROR', 'The sandbox failed on this request.'));
  });

  // Every answer of the API, errors included, carries the four rate-limit headers.
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/__control') || reply.hasHeader('x-ratelimit-limit')) return;
    const decision =
      decisions.get(request) ??
      parts.limiter.peek(parts.auth.clientId, operationOf.get(request)?.scope ?? 'read');
    reply.headers(rateHeaders(decision));
  });
  return app;
}

async function run(
  parts: ServerParts,
  id: OperationId,
  operation: Operation,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const grant = operation.scope ? parts.auth.verify(request.headers.authorization) : null;
  if (isFailure(grant)) throw grant;
  const scope = operation.scope ?? 'read';
  const decision = grant
    ? parts.limiter.take(grant.clientId, scope)
    : parts.limiter.peek(parts.auth.clientId, scope);
  decisions.set(request, decision);
  if (!decision.allowed) throw rateLimited(decision, parts.now);
  if (grant && operation.scope && !grant.scopes.has(operation.scope)) {
    throw failure(
      403,
      'FORBIDDEN',
      `This operation needs the ${operation.scope} scope; ask for it when getting the token.`,
    );
  }
  const path = request.url.split('?')[0] ?? '';
  if (grant) {
    const range = request.headers.range;
    parts.onRequest?.({
      operationId: id,
      method: request.method,
      path,
      at: parts.now(),
      ...(range ? { range } : {}),
    });
  }
  let dropAfterHandling = false;
  let omitListMeta = false;
  let bodyFault: BodyFault | undefined;
  for (const fault of parts.faults.take(id, request.method, path)) {
    if (fault.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault.truncateBodyAt !== undefined || fault.corruptBody || fault.slowBodyMs) {
      bodyFault = {
        ...bodyFault,
        ...(fault.truncateBodyAt !== undefined ? { truncateAt: fault.truncateBodyAt } : {}),
        ...(fault.corruptBody ? { corrupt: true } : {}),
        ...(fault.slowBodyMs ? { slowMs: fault.slowBodyMs } : {}),
        ...(fault.slowBodyPieces ? { slowPieces: fault.slowBodyPieces } : {}),
      };
      continue;
    }
    if (fault.dropAfterHandling) {
      dropAfterHandling = true;
      continue;
    }
    if (fault.omitListMeta) {
      omitListMeta = true;
      continue;
    }
    if (fault.drop) {
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
    if (fault.rateLimit) {
      if (grant) parts.limiter.exhaust(grant.clientId, scope);
      const empty = { ...decision, remaining: 0, allowed: false };
      decisions.set(request, empty);
      throw rateLimited(empty, parts.now);
    }
    if (fault.status) {
      const retry =
        fault.retryAfterSeconds === undefined
          ? undefined
          : { 'retry-after': String(fault.retryAfterSeconds) };
      throw failure(
        fault.status,
        fault.status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR',
        fault.echoRequest ? `Injected fault. The request was: ${echoOf(request)}` : 'Injected fault.',
        undefined,
        retry,
      );
    }
  }
  if (operation.response === 'gone') {
    throw failure(
      410,
      'GONE',
      `${request.method} ${path} was retired in 1.8.0; update with PATCH on the same path.`,
    );
  }
  if (operation.response !== 'file' && !accepts(request.headers.accept, 'application/json')) {
    throw failure(406, 'NOT_ACCEPTABLE', 'This operation answers application/json; allow it in Accept.');
  }
  const query = parseQuery(operation, request.query);
  const body = parseBody(operation, id, request);
  const result = await parts.handlers[id]({
    params: request.params as Record<string, string>,
    query,
    body,
    grant,
    request,
    reply,
    ...(bodyFault ? { bodyFault } : {}),
  });
  if (reply.sent || result === reply) return reply;
  if (dropAfterHandling) {
    // The write happened; the client never learns it (a connection lost on the way back).
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  }
  const answer = parts.corruptions ? parts.corruptions.apply(id, result) : result;
  const shaped = omitListMeta ? withoutMeta(answer) : answer;
  reply.code(operation.status ?? 200).type(JSON_TYPE);
  if (!bodyFault) return reply.send(shaped);
  // A JSON answer damaged as a file's body is: the whole length promised, then cut or slow.
  const bytes = Buffer.from(JSON.stringify(shaped));
  return reply.header('content-length', bytes.length).send(damaged(bytes, bodyFault));
}

/** A list answer without its `meta`; other answers as they are. */
function withoutMeta(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !('data' in answer)) return answer;
  const { meta: _meta, ...rest } = answer as Record<string, unknown>;
  return rest;
}

/** The request as a careless gateway quotes it back: method, path, every header and the body. */
function echoOf(request: FastifyRequest): string {
  const body = request.body instanceof Buffer ? request.body.toString('utf8') : '';
  return `${request.method} ${request.url} ${JSON.stringify(request.headers)} ${body}`;
}

function rateLimited(decision: RateDecision, now: () => number): ApiFailure {
  const wait = Math.max(1, decision.reset - Math.floor(now() / 1000));
  return failure(
    429,
    'RATE_LIMITED',
    `The ${decision.scope} limit of ${decision.limit} requests is used up; retry in ${wait} s.`,
    undefined,
    { 'retry-after': String(wait) },
  );
}

function parseQuery(operation: Operation, raw: unknown): Record<string, string | undefined> {
  if (!operation.query) return {};
  // The query string parser makes a repeated parameter an array; none of the API's takes a list.
  for (const [key, value] of Object.entries((raw ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value) && key in operation.query.shape)
      throw failure(400, 'VALIDATION_ERROR', `${key} is given more than once.`, key);
  }
  const parsed = operation.query.safeParse(raw ?? {});
  if (!parsed.success) throw validationFailure(parsed.error, raw ?? {});
  return parsed.data as Record<string, string | undefined>;
}

function parseBody(operation: Operation, id: OperationId, request: FastifyRequest): unknown {
  const isToken = id === 'issueToken';
  if (!operation.body && !isToken) return undefined;
  const raw = request.body instanceof Buffer ? request.body : Buffer.alloc(0);
  const type = mediaTypeOf(request.headers['content-type']);
  const expected = isToken ? 'application/x-www-form-urlencoded' : 'application/json';
  if (raw.length > 0 && type !== expected) {
    throw failure(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the body as ${expected}${type ? `, not ${type}` : ''}.`,
    );
  }
  if (isToken) {
    const form = tokenForm(raw.toString('utf8'));
    if ('apiFailure' in form) throw form;
    return form;
  }
  let value: unknown = {};
  if (raw.length > 0) {
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch {
      throw failure(400, 'INVALID_JSON', 'The body is not well-formed JSON.');
    }
  }
  const parsed = operation.body!.safeParse(value);
  if (!parsed.success)
    throw validationFailure(parsed.error, value, operation.scope === 'write' ? writeErrorCode : undefined);
  return parsed.data;
}
