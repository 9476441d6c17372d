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

/** Where the log's lines go: the process's standard error by default (the app's stream). */
export type LogSink = (level: 'error' | 'warn', line: string) => void;

const toConsole: LogSink = (level, line) => (level === 'error' ? console.error(line) : console.warn(line));
let sink: LogSink = toConsole;

/**
 * Sends the log elsewhere, or back to the console with no argument; returns the sink before.
 * The command line does: its standard error is the user's, where a command says what it did,
 * and the core's lines for support would stand beside its own message there.
 */
export function setLogSink(next?: LogSink): LogSink {
  const before = sink;
  sink = next ?? toConsole;
  return before;
}

function line(message: string, detail: unknown): string {
  return redact(`[satchel] ${message}${detail === undefined ? '' : ` ${describe(detail)}`}`);
}

export const log = {
  error(message: string, detail?: unknown): void {
    sink('error', line(message, detail));
  },
  warn(message: string, detail?: unknown): void {
    sink('warn', line(message, detail));
  },
};
