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
// Text that is the same in every Unicode normal form.
// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

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

/**
 * Printable ASCII without FORBIDDEN's characters (" * / : < > ? \ |), not starting with a dot
 * or a space and not ending with either. Such text is its own safe segment (less the
 * reserved-name check): no Unicode form to normalise, nothing to replace, trim or strip. Most
 * names are like this, and a bulk download names thousands at once.
 */
const INSIDE = String.raw`\x20\x21\x23-\x29\x2b-\x2e\x30-\x39\x3b\x3d\x40-\x5b\x5d-\x7b\x7d\x7e`;
const AT_END = String.raw`\x21\x23-\x29\x2b-\x2d\x30-\x39\x3b\x3d\x40-\x5b\x5d-\x7b\x7d\x7e`;
const PLAIN = new RegExp(`^[${AT_END}]([${INSIDE}]*[${AT_END}])?$`);

/**
 * The whole of the rules for one segment (safeSegment applies them to anything PLAIN does not
 * cover; exported so that tests can hold the two to the same answers).
 */
export function segmentByRules(raw: string, fallback = 'file', maxBytes = MAX_NAME_BYTES): string {
  let name = raw.normalize('NFC').replace(FORBIDDEN, '_').replace(/\s+/g, ' ').trim();
  name = name.replace(/^\.+/, '').replace(/[. ]+$/, '');
  name = truncateBytes(name, maxBytes).replace(/[. ]+$/, '');
  if (name === '') name = fallback;
  if (RESERVED_WINDOWS.test(name.split('.')[0] ?? '')) name = `_${name}`;
  return name;
}

/** One path segment (a folder or a file name without its extension). */
export function safeSegment(raw: string, fallback = 'file', maxBytes = MAX_NAME_BYTES): string {
  if (raw.length > maxBytes || raw.includes('  ') || !PLAIN.test(raw))
    return segmentByRules(raw, fallback, maxBytes);
  return RESERVED_WINDOWS.test(raw.split('.')[0] ?? '') ? `_${raw}` : raw;
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

/** What two names that are the same file on macOS and Windows have in common: case and Unicode form ignored. */
export function nameKey(relativePath: string): string {
  return (ASCII.test(relativePath) ? relativePath : relativePath.normalize('NFC')).toLowerCase();
}

/**
 * Hands out unique relative paths: a second "receipt.pdf" in the same folder becomes
 * "receipt (2).pdf". Comparison ignores case and Unicode form, as macOS and Windows do.
 */
export function createNameAllocator(taken: Iterable<string> = []) {
  const used = new Set<string>();
  for (const name of taken) used.add(nameKey(name));
  return (folders: string[], fileName: string): string => {
    const folder = folders.map((segment) => safeSegment(segment, 'folder')).join('/');
    const dot = fileName.lastIndexOf('.');
    const base = dot > 0 ? fileName.slice(0, dot) : fileName;
    const extension = dot > 0 ? fileName.slice(dot) : '';
    for (let n = 1; ; n += 1) {
      const candidate = `${folder ? `${folder}/` : ''}${n === 1 ? base : `${base} (${n})`}${extension}`;
      const key = nameKey(candidate);
      if (!used.has(key)) {
        used.add(key);
        return candidate;
      }
    }
  };
}
