/**
 * The app's log. Everything written here passes through `redact`, so that even an error
 * message that quotes a request cannot carry a secret or a token into a log file.
 */

const PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [
    /\b(client_secret|access_token|refresh_token|password|secret|token)(["']?\s*[=:]\s*["']?)[^\s"'&,;}]+/gi,
    '$1$2[redacted]',
  ],
  [/\bsk_[A-Za-z0-9_-]+/g, 'sk_[redacted]'],
];

export function redact(text: string): string {
  return PATTERNS.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text);
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
