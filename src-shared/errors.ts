import { z } from 'zod';

/**
 * Errors are values a person can act on. Every failure that crosses IPC is one of these codes
 * with a message that says what happened and what to do, and, where a field is at fault, its name.
 */
export const ErrorCode = z.enum([
  'VALIDATION_ERROR',
  'UNKNOWN_COMMAND',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'KEYCHAIN_UNAVAILABLE',
  'KEYCHAIN_LOCKED',
  'KEYCHAIN_ERROR',
  /** The API refused the credentials: they must be entered again. */
  'AUTH_FAILED',
  /** The credentials work but lack the scope the operation needs. */
  'FORBIDDEN',
  /** The API answered 400 for our request; `field` names the public field at fault. */
  'REMOTE_REJECTED',
  /** No answer from the API (no network, DNS, refused connection) after retries. */
  'OFFLINE',
  /**
   * A file's download broke off midway (the connection reset, the body cut short): the API
   * was reached, so this is no sign of being offline. What arrived is kept and the download
   * continues where it stopped when it is retried.
   */
  'BROKEN_OFF',
  /**
   * A connection to the API was made and then broken before any answer (reset by the server or
   * a proxy in front of it, closed by the other side) after retries: the network works, so
   * this is no sign of being offline either.
   */
  'CONNECTION_RESET',
  'TIMEOUT',
  /** The API kept failing with 5xx after retries. */
  'SERVER_ERROR',
  /** The API answered something that does not match the published interface. */
  'BAD_RESPONSE',
  'CANCELLED',
  /**
   * The organisation's offline copy cannot be written (a read-only disk or share, changed
   * permissions): it is open for reading, and what would write to it is refused at once.
   */
  'READ_ONLY',
  /** Another Satchel process is syncing the organisation (or pushing its edits) now. */
  'BUSY',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The keychain could not give the credentials: no request of the organisation can go out. */
export const KEYCHAIN_CODES: readonly ErrorCode[] = [
  'KEYCHAIN_UNAVAILABLE',
  'KEYCHAIN_LOCKED',
  'KEYCHAIN_ERROR',
];

export const AppErrorShape = z.object({
  code: ErrorCode,
  message: z.string(),
  field: z.string().optional(),
  /**
   * The API's own code when the API refused the request (its error body's `code`, such as
   * `VALIDATION_ERROR` or `DIMENSION_DELETED`): detail beside `code`, which keeps its meaning.
   */
  remoteCode: z.string().optional(),
});
export type AppErrorShape = z.infer<typeof AppErrorShape>;

/** An error the core raises on purpose; its message is safe to show to the user. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  /** The API's own code, when the API refused the request (AppErrorShape.remoteCode). */
  readonly remoteCode: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string, remoteCode?: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.field = field;
    this.remoteCode = remoteCode;
  }

  toShape(): AppErrorShape {
    return {
      code: this.code,
      message: this.message,
      ...(this.field === undefined ? {} : { field: this.field }),
      ...(this.remoteCode === undefined ? {} : { remoteCode: this.remoteCode }),
    };
  }
}

/**
 * Turns a zod failure into the first issue's message and field path. The message does not
 * repeat the field: the UI shows it beside the field, the CLI names the field after it.
 */
export function validationError(error: z.ZodError): AppError {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
  return new AppError('VALIDATION_ERROR', issue?.message ?? 'Invalid value.', field);
}
