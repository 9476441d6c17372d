/**
 * File and folder names for exported receipts that are safe on Windows, macOS and Linux,
 * whatever the server sends: no path separators or traversal, no control or reserved
 * characters, no reserved Windows device names, no trailing dots or spaces, bounded length
 * (in UTF-8 bytes, since that is what file systems limit), and collisions numbered.
 */

const RESERVED_WINDOWS = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
// Control characters, the characters Windows forbids, and path separators.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f<>:"/\\|?*]/g;
/** Keeps room for " (9999)" and the extension within common 255-byte limits. */
export const MAX_NAME_BYTES = 200;

/** UTF-8 length of text (counted here: src-shared has no TextEncoder); a lone surrogate is U+FFFD, 3 bytes. */
function bytes(text: string): number {
  let count = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    count += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return count;
}

/** Cuts text to at most `max` UTF-8 bytes without splitting a character. */
function truncateBytes(text: string, max: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most names need no count at all.
  if (text.length * 3 <= max || bytes(text) <= max) return text;
  let out = '';
  for (const char of text) {
    if (bytes(out + char) > max) break;
    out += char;
  }
  return out;
}

/** One path segment (a folder or a file name without its extension). */
export function safeSegment(raw: string, fallback = 'file', maxBytes = MAX_NAME_BYTES): string {
  let name = raw.normalize('NFC').replace(FORBIDDEN, '_').replace(/\s+/g, ' ').trim();
  name = name.replace(/^\.+/, '').replace(/[. ]+$/, '');
  name = truncateBytes(name, maxBytes).replace(/[. ]+$/, '');
  if (name === '') name = fallback;
  if (RESERVED_WINDOWS.test(name.split('.')[0] ?? '')) name = `_${name}`;
  return name;
}

/** A short, lower-case extension of letters and digits, or none. */
export function safeExtension(raw: string): string {
  const cleaned = raw
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 10);
  return cleaned === '' ? '' : `.${cleaned}`;
}

/** Splits "Receipt.final.PDF" into a safe base and extension. */
export function safeFileName(raw: string, fallback = 'file'): string {
  const dot = raw.lastIndexOf('.');
  const hasExtension = dot > 0 && dot < raw.length - 1 && raw.length - dot <= 11;
  const base = hasExtension ? raw.slice(0, dot) : raw;
  const extension = hasExtension ? safeExtension(raw.slice(dot + 1)) : '';
  return `${safeSegment(base, fallback)}${extension}`;
}

/**
 * Hands out unique relative paths: a second "receipt.pdf" in the same folder becomes
 * "receipt (2).pdf". Comparison ignores case and Unicode form, as macOS and Windows do.
 */
export function createNameAllocator(taken: Iterable<string> = []) {
  const used = new Set<string>();
  const key = (relativePath: string) => relativePath.normalize('NFC').toLowerCase();
  for (const name of taken) used.add(key(name));
  return (folders: string[], fileName: string): string => {
    const folder = folders.map((segment) => safeSegment(segment, 'folder')).join('/');
    const dot = fileName.lastIndexOf('.');
    const base = dot > 0 ? fileName.slice(0, dot) : fileName;
    const extension = dot > 0 ? fileName.slice(dot) : '';
    for (let n = 1; ; n += 1) {
      const candidate = `${folder ? `${folder}/` : ''}${n === 1 ? base : `${base} (${n})`}${extension}`;
      if (!used.has(key(candidate))) {
        used.add(key(candidate));
        return candidate;
      }
    }
  };
}
