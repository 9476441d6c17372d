import { AppError } from '../../src-shared/errors';

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

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
