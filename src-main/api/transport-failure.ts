/**
 * What a request that got no answer says of the network. `fetch` (undici) throws a bare
 * "fetch failed" with the system's or undici's error in `cause`; the file transport throws the
 * latter itself; a happy-eyeballs connect gathers several in an `AggregateError`.
 *
 * - `unreachable`: no connection was made at all (refused, no route, no such host, the
 *   network down, the connect timed out): as far as Satchel can tell it is offline.
 * - `reset`: a connection was made and then broken before the answer came (reset by the peer,
 *   closed by the other side, a write into a closed socket, aborted by the system). The network works; the server or
 *   a proxy in front of it broke the connection.
 * - `unknown`: anything else, treated as before: as no answer (offline).
 */
export type TransportFailure = 'unreachable' | 'reset' | 'unknown';

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  // The system broke a connection that was made (Windows' WSAECONNABORTED above all: the
  // local stack gave up on it). The connection was made, so it is not "unreachable"; if the
  // network did go, the retry's connect says so (refused, no route) and the app goes offline
  // then, while a network that works is not called offline for one broken connection.
  'ECONNABORTED',
  // undici: "other side closed", the socket closed before the answer was complete.
  'UND_ERR_SOCKET',
]);

/** The error and every error behind it (`cause`, an `AggregateError`'s `errors`). */
function* causes(error: unknown, depth = 0): Generator<unknown> {
  if (error === null || error === undefined || depth > 8) return;
  yield error;
  if (typeof error !== 'object') return;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (Array.isArray(errors)) for (const inner of errors) yield* causes(inner, depth + 1);
  if (cause !== undefined && cause !== error) yield* causes(cause, depth + 1);
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Which kind of failure `error` is. A connection never made outweighs one broken (a
 * happy-eyeballs connect may report both); a "socket hang up" without a code (node:http) is a
 * reset.
 */
export function transportFailure(error: unknown): TransportFailure {
  let reset = false;
  for (const found of causes(error)) {
    const code = codeOf(found);
    if (code && UNREACHABLE_CODES.has(code)) return 'unreachable';
    if ((code && RESET_CODES.has(code)) || (found instanceof Error && found.message === 'socket hang up'))
      reset = true;
  }
  return reset ? 'reset' : 'unknown';
}
