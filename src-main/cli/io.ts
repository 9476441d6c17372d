import { AppError } from '../../src-shared/errors';

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /**
   * Aborted by the first Ctrl+C (or SIGTERM): a long command (sync, download, edits push) stops
   * at its next safe point, says where it stopped, and the process exits with 130.
   */
  signal?: AbortSignal;
}

export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/** Calls `stop` once if the command is interrupted (at once if it already was); returns the unsubscribe. */
export function onInterrupt(io: CliIo, stop: () => void): () => void {
  const signal = io.signal;
  if (!signal) return () => undefined;
  if (signal.aborted) {
    stop();
    return () => undefined;
  }
  signal.addEventListener('abort', stop, { once: true });
  return () => signal.removeEventListener('abort', stop);
}

/** A mistake in how the command was called: exit code 2 and the usage line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function printError(io: CliIo, error: unknown): number {
  if (error instanceof UsageError) {
    io.stderr.write(`satchel: ${error.message}\nRun "satchel help" for usage.\n`);
    return EXIT.usage;
  }
  if (error instanceof AppError) {
    io.stderr.write(`satchel: ${error.message}${error.field ? ` (field: ${error.field})` : ''}\n`);
    return EXIT.failure;
  }
  io.stderr.write(`satchel: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.failure;
}

/** Aligned plain-text table for terminals and pipes alike. */
export function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return (
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
