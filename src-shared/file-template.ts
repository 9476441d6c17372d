import { formatAmount } from './money';
import type { DownloadLayout, TemplateToken } from './files';
import { safeExtension, safeSegment } from './file-naming';

/**
 * File names and folders of a bulk download from a naming template and a layout
 * (docs/files.md). The values come from the server and the cache, so every piece goes
 * through the safe-naming rules of naming.ts; the relative path is then made unique by the
 * job's name allocator.
 */

/** What a file's name and folder can be made of (a row of the download scope query). */
export interface FileFacts {
  fileId: string;
  originalName: string | null;
  mimeType: string | null;
  expenseId: string | null;
  transactionId: string | null;
  /** The transaction's booking date, else the expense's date (YYYY-MM-DD). */
  bookingDate: string | null;
  counterparty: string | null;
  /** Integer minor units with their currency; null when unknown. */
  amountMinor: number | null;
  currency: string | null;
  account: string | null;
  supplier: string | null;
}

const MIME_EXTENSIONS: Record<string, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/heic': '.heic',
  'image/tiff': '.tif',
  'text/plain': '.txt',
  'text/xml': '.xml',
  'application/xml': '.xml',
};

/** "Receipt.final.PDF" → { base: "Receipt.final", extension: ".pdf" }; the mime type fills a missing one. */
export function splitName(name: string | null, mimeType: string | null): { base: string; extension: string } {
  const raw = (name ?? '').trim();
  const dot = raw.lastIndexOf('.');
  const hasExtension = dot > 0 && dot < raw.length - 1 && raw.length - dot <= 11;
  const fromName = hasExtension ? safeExtension(raw.slice(dot + 1)) : '';
  const fromMime = MIME_EXTENSIONS[(mimeType ?? '').toLowerCase().split(';')[0]?.trim() ?? ''] ?? '';
  return { base: hasExtension ? raw.slice(0, dot) : raw, extension: fromName || fromMime };
}

/** The file extension a cached copy gets (its preview URL ends in it): from the type, else the name. */
export function cacheExtension(name: string | null, mimeType: string | null): string {
  const fromMime = MIME_EXTENSIONS[(mimeType ?? '').toLowerCase().split(';')[0]?.trim() ?? ''];
  return fromMime ?? (splitName(name, mimeType).extension || '.bin');
}

function tokenValue(token: TemplateToken, facts: FileFacts): string {
  switch (token) {
    case 'bookingDate':
      return facts.bookingDate ?? '';
    case 'counterparty':
      return facts.counterparty ?? '';
    case 'amount':
      return facts.amountMinor !== null && facts.currency
        ? formatAmount(facts.amountMinor, facts.currency)
        : '';
    case 'currency':
      return facts.currency ?? '';
    case 'expenseId':
      return facts.expenseId ?? '';
    case 'originalName':
      return splitName(facts.originalName, facts.mimeType).base;
    case 'transactionId':
      return facts.transactionId ?? '';
    case 'fileId':
      return facts.fileId;
    case 'supplier':
      return facts.supplier ?? '';
    case 'account':
      return facts.account ?? '';
  }
}

/** Stands for a token without a value while the name is tidied. */
const EMPTY = '\u0000';
const SEPARATORS = '[ _\\-.]*';
const TOKEN = /\{([^{}]*)\}/g;
const PATH_SEPARATOR = /[/\\]/g;
// The control characters (Unicode category Cc).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// Either of the two: a value that needs cleaning.
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_VALUE = /[/\\\u0000-\u001f\u007f-\u009f]/;
const EMPTY_RUN = new RegExp(`${EMPTY}(${SEPARATORS}${EMPTY})+`, 'g');
const EMPTY_AT_END = new RegExp(`^${EMPTY}${SEPARATORS}|${SEPARATORS}${EMPTY}$`, 'g');
const EMPTY_INSIDE = new RegExp(`(${SEPARATORS})${EMPTY}(${SEPARATORS})`, 'g');

type TemplatePart = { literal: string; token?: undefined } | { literal?: undefined; token: TemplateToken };

/** The last template taken apart (a job names all its files with one). */
let lastTemplate: { template: string; parts: TemplatePart[] } | null = null;

/** The template as literal text and tokens, in order. */
function compiled(template: string): TemplatePart[] {
  if (lastTemplate?.template === template) return lastTemplate.parts;
  const parts: TemplatePart[] = [];
  let at = 0;
  for (const match of template.matchAll(TOKEN)) {
    if (match.index > at) parts.push({ literal: template.slice(at, match.index) });
    parts.push({ token: match[1] as TemplateToken });
    at = match.index + match[0].length;
  }
  if (at < template.length) parts.push({ literal: template.slice(at) });
  lastTemplate = { template, parts };
  return parts;
}

/**
 * The file name (with extension) the template gives this file. Tokens without a value leave
 * no doubled separator behind ("2026-03-01__EUR" becomes "2026-03-01_EUR"); a name that ends
 * up empty falls back to the file id.
 */
export function renderFileName(template: string, facts: FileFacts): string {
  let filled = '';
  for (const part of compiled(template)) {
    if (part.literal !== undefined) {
      filled += part.literal;
      continue;
    }
    let value = tokenValue(part.token, facts);
    // Path separators and control characters inside a value must never shape the path.
    if (UNSAFE_IN_VALUE.test(value)) value = value.replace(PATH_SEPARATOR, '_').replace(CONTROL, '');
    value = value.trim();
    filled += value === '' ? EMPTY : value;
  }
  // Most names have every token filled: nothing to tidy.
  const tidy = filled.includes(EMPTY)
    ? filled
        .replace(EMPTY_RUN, EMPTY)
        .replace(EMPTY_AT_END, '')
        .replace(EMPTY_INSIDE, (_m, before: string, after: string) => before[0] ?? after[0] ?? '')
    : filled;
  const { extension } = splitName(facts.originalName, facts.mimeType);
  return `${safeSegment(tidy, facts.fileId)}${extension}`;
}

/** The folder (zero or one segment) the layout puts this file in. */
export function layoutFolders(layout: DownloadLayout, facts: FileFacts): string[] {
  switch (layout) {
    case 'flat':
      return [];
    case 'month':
      return [
        facts.bookingDate && /^\d{4}-\d{2}/.test(facts.bookingDate)
          ? facts.bookingDate.slice(0, 7)
          : 'undated',
      ];
    case 'account':
      return [safeSegment(facts.account ?? '', 'no account')];
    case 'supplier':
      return [safeSegment(facts.supplier ?? facts.counterparty ?? '', 'no supplier')];
  }
}
