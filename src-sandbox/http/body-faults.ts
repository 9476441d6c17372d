import { Readable } from 'node:stream';
import type { BodyFault } from './server';

/**
 * The damage a fault rule does to an answer's body (`truncateBodyAt`, `corruptBody`,
 * `slowBodyMs`), for file content and JSON answers alike: the headers promise the whole body,
 * then the body arrives damaged, cut off (the connection destroyed) or slowly.
 */

/**
 * The body as a fault rule wants it: one byte flipped in the middle (same length), and/or cut
 * after `truncateAt` bytes — a stream that then fails, so the server destroys the connection
 * with the full Content-Length already promised — and/or sent slowly, in ten pieces (or
 * `slowPieces`) spread over `slowMs`.
 */
export function damaged(body: Buffer, fault: BodyFault | undefined): Buffer | Readable {
  if (!fault) return body;
  let bytes = body;
  if (fault.corrupt && bytes.length > 0) {
    bytes = Buffer.from(bytes);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
  }
  if (fault.slowMs) return slowly(bytes, fault.slowMs, fault.slowPieces ?? 10, fault.truncateAt);
  if (fault.truncateAt === undefined || fault.truncateAt >= bytes.length) return bytes;
  const head = bytes.subarray(0, fault.truncateAt);
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      if (head.length > 0) this.push(head);
      setTimeout(() => this.destroy(new Error('Injected fault: body cut short.')), 10);
    },
  });
}

/**
 * `bytes` in `pieces` pieces: the first at once (the headers go with it), then one every
 * `pieces`-th of `ms`; cut (the stream fails) after `truncateAt`.
 */
function slowly(bytes: Buffer, ms: number, pieces: number, truncateAt: number | undefined): Readable {
  const end = truncateAt === undefined ? bytes.length : Math.min(truncateAt, bytes.length);
  const piece = Math.max(1, Math.ceil(bytes.length / pieces));
  let at = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new Readable({
    read() {
      if (timer) return;
      timer = setTimeout(
        () => {
          timer = undefined;
          if (at >= end) {
            if (end < bytes.length) this.destroy(new Error('Injected fault: body cut short.'));
            else this.push(null);
            return;
          }
          const next = Math.min(end, at + piece);
          this.push(bytes.subarray(at, next));
          at = next;
        },
        at === 0 ? 0 : ms / pieces,
      );
    },
    destroy(error, callback) {
      clearTimeout(timer);
      callback(error);
    },
  });
}
