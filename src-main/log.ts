/**
 * The app's log. Everything written here passes through `redact`, so that even an error
 * message that quotes a request cannot carry a secret or a token into a log file.
 */

/**
 * A name whose value is a secret (a form or query field, a JSON key, a header, in any casing),
 * then its separator. The name starts where no name character precedes it, which also keeps
 * the scan linear on long runs of name characters.
 */
const SECRET_FIELD = new RegExp(
  '(?<![A-Za-z0-9_-])([A-Za-z0-9_-]*?(?:secret|token|password|passwd|api[_-]?key|signature|credential)|sig)' +
    `(["']?\\s*[=:]\\s*["']?)[^\\s"'&,;}]+`,
  'gi',
);

type Replacement = string | ((match: string, ...groups: string[]) => string);

const PATTERNS: Array<[RegExp, Replacement]> = [
  // Credentials inside an address: https://user:secret@host/.
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"']+@/gi, '$1[redacted]@'],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  // An Authorization header of any scheme (Basic, Token, Digest …), the scheme kept.
  [
    /\b((?:proxy-)?authorization)(["']?\s*[=:]\s*["']?)(?:([A-Za-z]+)\s+)?[^\s"',;}]+/gi,
    (_match, name = '', separator = '', scheme) =>
      `${name}${separator}${scheme ? `${scheme} ` : ''}[redacted]`,
  ],
  [SECRET_FIELD, '$1$2[redacted]'],
  [/\bsk_[A-Za-z0-9_-]+/g, 'sk_[redacted]'],
  // A JSON Web Token, wherever it stands.
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted]'],
];

export function redact(text: string): string {
  return PATTERNS.reduce(
    (current, [pattern, replacement]) =>
      // The same call twice: String.replace has one overload per kind of replacement.
      typeof replacement === 'string'
        ? current.replace(pattern, replacement)
        : current.replace(pattern, replacement),
    text,
  );
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export const log = {
  error(message: string, detail?: unknown): void {
    console.error(redact(`[satchel] ${message}${detail === undefined ? '' : ` ${describe(detail)}`}`));
  },
  warn(message: string, detail?: unknown): void {
    console.warn(redact(`[satchel] ${message}${detail === undefined ? '' : ` ${describe(detail)}`}`));
  },
};
