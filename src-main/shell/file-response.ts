import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { resolveFileRoute, type FileRouteOptions } from './file-route';

/**
 * How the shell answers a `satchel-file:` request (docs/shell.md, "Files preview route"). The
 * decision is pure (`fileAnswer`); `answerFileRequest` adds the one file read. The Electron
 * shell turns the result into a `Response`; the end-to-end harness answers its stand-in route
 * with the very same function, so both serve by the same rules.
 */

/**
 * Privileges of the scheme (`protocol.registerSchemesAsPrivileged`). `corsEnabled` because the
 * app page (a `file:` page, origin "null") reads PDFs with `fetch()` for pdf.js, which is a
 * cross-origin read; without it Electron refuses such reads of a custom scheme. What may read
 * is then decided here, by the request's `Origin` (`fileAnswer`).
 */
export const FILE_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  stream: true,
  corsEnabled: true,
} as const;

/**
 * The only types served, by the cache file's extension (the cache names each copy from the
 * record's media type: files/template.ts `cacheExtension`). Anything else is not previewed.
 */
export const PREVIEW_CONTENT_TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

export interface FileRequest {
  url: string;
  method: string;
  /** The request's `Origin` header; null when it has none (an `<img>` load). */
  origin: string | null;
}

export interface FileAnswerOptions extends FileRouteOptions {
  /** The app page's origin (`appOrigin`): the only origin allowed to read a file by fetch. */
  appOrigin: string;
}

export interface FileAnswer {
  status: number;
  headers: Record<string, string>;
  /** The file to send with a 200 (none for a HEAD or a refusal). */
  path: string | null;
}

/** The origin of the app page as a request from it names it: "null" for a `file:` page. */
export function appOriginOf(appUrl: string): string {
  const url = new URL(appUrl);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : 'null';
}

/** Headers every answer carries: never sniffed, never cached, inert if opened on its own. */
const BASE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Referrer-Policy': 'no-referrer',
};

function refusal(status: number, reason: string): FileAnswer {
  return {
    status,
    headers: { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'X-Satchel-Refusal': reason },
    path: null,
  };
}

export function fileAnswer(request: FileRequest, options: FileAnswerOptions): FileAnswer {
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return refusal(405, 'method not allowed');
  if (request.origin !== null && request.origin !== options.appOrigin) return refusal(403, 'foreign origin');
  const route = resolveFileRoute(request.url, options);
  if (!route.ok) return refusal(route.status, route.reason);
  const extension = route.path.slice(route.path.lastIndexOf('.') + 1);
  const contentType = Object.hasOwn(PREVIEW_CONTENT_TYPES, extension)
    ? PREVIEW_CONTENT_TYPES[extension]
    : undefined;
  if (!contentType) return refusal(415, 'not a previewable type');
  const headers: Record<string, string> = { ...BASE_HEADERS, 'Content-Type': contentType };
  if (request.origin !== null) {
    headers['Access-Control-Allow-Origin'] = request.origin;
    headers['Vary'] = 'Origin';
  }
  return { status: 200, headers, path: method === 'GET' ? route.path : null };
}

export interface FileReply {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | null;
}

/** Opening a link fails (ELOOP) instead of following it, where the system can say so. */
const NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);
const NOT_CACHED = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR']);

/**
 * `fileAnswer`, then the file's bytes. Only a plain file is served: a link placed in the cache
 * folder would lead out of it, so it is not followed, and like a folder or a missing file it
 * is a 404.
 */
export async function answerFileRequest(
  request: FileRequest,
  options: FileAnswerOptions,
): Promise<FileReply> {
  const answer = fileAnswer(request, options);
  if (answer.status !== 200 || answer.path === null)
    return { status: answer.status, headers: answer.headers, body: null };
  const notCached = (): FileReply => ({ ...refusal(404, 'not cached'), body: null });
  try {
    // Where O_NOFOLLOW is missing (Windows), the name is looked at first.
    if (!constants.O_NOFOLLOW && (await lstat(answer.path)).isSymbolicLink()) return notCached();
    const handle = await open(answer.path, NO_FOLLOW);
    try {
      if (!(await handle.stat()).isFile()) return notCached();
      const body = new Uint8Array(await handle.readFile());
      return { status: 200, headers: { ...answer.headers, 'Content-Length': String(body.length) }, body };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (NOT_CACHED.has((error as NodeJS.ErrnoException).code ?? '')) return notCached();
    throw error;
  }
}
