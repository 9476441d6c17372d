import path from 'node:path';

/**
 * The `satchel-file:` route that serves cached expense files to the preview (pdf.js, <img>).
 * `satchel-file://<profileId>/<fileId>.<ext>` maps to `<filesRoot(profileId)>/<fileId>.<ext>`
 * and to nothing else: the host must be a connected organisation's id (allowed by the shell),
 * the path exactly one file name made of an id and a short extension. Anything else — dot
 * segments, encoded slashes or dots, a second segment, a query, credentials, another
 * organisation's folder — is refused before a path is ever built. Pure: no file system.
 */

export const FILE_SCHEME = 'satchel-file';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FILE_NAME = /^\/([0-9A-Za-z][0-9A-Za-z-]{0,99})\.([a-z0-9]{1,10})$/;

export type FileRoute =
  | { ok: true; profileId: string; fileId: string; path: string }
  | { ok: false; status: 400 | 403 | 404; reason: string };

export interface FileRouteOptions {
  /** The organisation's folder of cached files (absolute). */
  filesRoot(profileId: string): string;
  /** Whether this organisation may be served now (connected, and shown in the window). */
  allowed(profileId: string): boolean;
}

const refuse = (status: 400 | 403 | 404, reason: string): FileRoute => ({ ok: false, status, reason });

export function resolveFileRoute(url: string, options: FileRouteOptions): FileRoute {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(400, 'not a URL');
  }
  if (parsed.protocol !== `${FILE_SCHEME}:`) return refuse(400, 'wrong scheme');
  if (parsed.username || parsed.password || parsed.port || parsed.search || parsed.hash)
    return refuse(400, 'unexpected URL parts');
  const profileId = parsed.hostname;
  if (!UUID.test(profileId)) return refuse(400, 'not an organisation id');
  const match = FILE_NAME.exec(parsed.pathname);
  if (!match) return refuse(400, 'not a file name');
  if (!options.allowed(profileId)) return refuse(403, 'organisation not allowed');
  const root = path.resolve(options.filesRoot(profileId));
  const file = path.resolve(root, `${match[1]}.${match[2]}`);
  // Defence in depth: the pattern already rules out separators and dot segments.
  if (path.dirname(file) !== root) return refuse(403, 'outside the organisation folder');
  return { ok: true, profileId, fileId: match[1] ?? '', path: file };
}
