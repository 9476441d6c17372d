import { z } from 'zod';
import { AppError, validationError } from '../../src-shared/errors';
import { cacheWriteProblem, isCorruption, isSqliteError } from '../store/errors';
import { endStatusLine } from './status-line';

export interface CliIo {
  /**
   * The command's result only (rows, JSON, CSV, a summary line, the ids of what it created), so
   * that it pipes.
   */
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /**
   * Everything else: progress, what the command is doing, notes for the reader (a page's totals,
   * "No … " for an empty list), confirmations of a change that gives nothing back ("Renamed to
   * …", "Discarded: …"), warnings and errors.
   */
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /**
   * Aborted by the first Ctrl+C (or SIGTERM): a long command (sync, download, edits push) stops
   * at its next safe point, says where it stopped, and the process exits with 130.
   */
  signal?: AbortSignal;
}

/**
 * `readOnly`: the organisation's offline copy cannot be written (a read-only disk, changed
 * permissions), so a command that would write to it was refused before it did anything.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, readOnly: 3, interrupted: 130, brokenPipe: 141 } as const;

/** How many commands now stop by themselves on Ctrl+C (see `interruptHandled`). */
let handlers = 0;

/**
 * Whether the running command stops by itself at a safe point on Ctrl+C. When none does (a
 * search, a prompt waiting for its input), Ctrl+C ends the process at once, as it always has.
 */
export function interruptHandled(): boolean {
  return handlers > 0;
}

/**
 * Calls `stop` once if the command is interrupted (at once if it already was), and makes Ctrl+C
 * wait for the command meanwhile; returns the release.
 */
export function onInterrupt(io: CliIo, stop: () => void): () => void {
  const signal = io.signal;
  if (!signal) return () => undefined;
  if (signal.aborted) {
    stop();
    return () => undefined;
  }
  handlers += 1;
  signal.addEventListener('abort', stop, { once: true });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    handlers -= 1;
    signal.removeEventListener('abort', stop);
  };
}

/** A mistake in how the command was called: exit code 2 and the usage line. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Ctrl+C typed at a prompt: exit 130, as Ctrl+C anywhere else. */
export class PromptInterrupted extends Error {
  override name = 'PromptInterrupted';
}

/** The command-line option of each field of the shared schemas, where the names differ. */
const OPTION_OF_FIELD: Record<string, string> = {
  freeText: 'text',
  bookingDateFrom: 'from',
  bookingDateTo: 'to',
  accountIds: 'account',
  transactionTypes: 'type',
  currencies: 'currency',
  decimalSeparator: 'decimal',
  vatIdNo: 'vat-id',
  pageSize: 'page-size',
  ids: 'id',
  reason: 'flag',
  tags: 'tag',
  min: 'min-amount',
  max: 'max-amount',
  ignoreSign: 'ignore-sign',
};

/**
 * A value the shared schema refuses, built from command-line options: a mistake of usage
 * (exit 2) naming the option, e.g. `--currency: "gb" is not a currency code like EUR.`.
 * `names` maps fields whose option a command spells its own way (`download` says `--until`).
 */
export function optionError(error: z.ZodError, names: Record<string, string> = {}): UsageError {
  const issue = error.issues[0];
  const field = [...(issue?.path ?? [])].reverse().find((part): part is string => typeof part === 'string');
  const option = field === undefined ? undefined : (names[field] ?? OPTION_OF_FIELD[field] ?? kebab(field));
  const message = (issue?.message ?? 'Invalid value.').replaceAll('\t', '\\t');
  return new UsageError(option ? `--${option}: ${message}` : message);
}

/**
 * A refusal of the core about a field the command took from an option, said with the option
 * (`--out: The folder /x does not exist.`) instead of the field's internal name; `null` drops
 * the field where it came from an argument the message already names (a file to import).
 */
export function namingOption(error: unknown, options: Record<string, string | null>): unknown {
  if (!(error instanceof AppError) || !error.field || !(error.field in options)) return error;
  const option = options[error.field];
  return new AppError(error.code, option ? `--${option}: ${error.message}` : error.message);
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether a person types at standard input (a terminal), not a pipe or a file. */
export function typedAt(io: CliIo): boolean {
  return (io.stdin as NodeJS.ReadStream).isTTY === true;
}

/**
 * One line typed at the terminal without showing it (a secret): the terminal's echo is off
 * while it is typed, Backspace works, Enter ends it. Ctrl+C ends the command (exit 130) and
 * Ctrl+D gives an empty answer.
 */
export function promptHidden(io: CliIo, prompt: string): Promise<string> {
  const input = io.stdin as NodeJS.ReadStream;
  // Echo off before the prompt shows, so nothing typed after it can be shown.
  input.setRawMode(true);
  io.stderr.write(prompt);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed: string[] = [];
    const end = (cancelled: boolean) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      io.stderr.write('\n');
      // With the echo off the terminal sends Ctrl+C as a key, not a signal: the command still
      // ends as Ctrl+C ends it anywhere else (exit 130).
      if (cancelled) reject(new PromptInterrupted('stopped at the prompt; nothing was changed'));
      else resolve(typed.join(''));
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') return end(false);
        if (character === '\u0003') return end(true);
        if (character === '\u0004') {
          typed = [];
          return end(false);
        }
        if (character === '\u007f' || character === '\b') typed.pop();
        else if (character >= ' ') typed.push(character);
      }
    };
    input.on('data', onData);
  });
}

/** A word for the shell: quoted unless it is plain (`Acme`, `'Acme GmbH'`, `'O'\''Neil'`). */
export function shellWord(word: string): string {
  return /^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A message of the core as the command line says it: the app's Settings are a command here, and
 * so is the window's "Set aside and rebuild" of a damaged offline copy, named with the
 * organisation (`profile`, else the one the message names) when it is known.
 */
export function cliMessage(message: string, profile?: string): string {
  const name = profile ?? /offline copy of "([^"]+)"/.exec(message)?.[1];
  const rebuild = `satchel profile rebuild${name === undefined ? '' : ` --profile ${shellWord(name)}`}`;
  return message
    .replace('in Settings.', 'with "satchel profile set-key".')
    .replace('then choose Check again, or start Satchel again.', 'then run the command again.')
    .replace(/\b([Ss]et (?:it|the copy) aside and rebuild it)\b/, `$1 with "${rebuild}"`);
}

/** Says the error on stderr and gives the exit status; `command` is the one run, once known. */
export function printError(io: CliIo, error: unknown, command?: string): number {
  // Below the progress line a command may have left open, never glued onto it.
  endStatusLine(io.stderr);
  if (error instanceof UsageError) {
    const help = command
      ? `Run "satchel ${command} --help" for its options.`
      : 'Run "satchel help" for usage.';
    io.stderr.write(`satchel: ${error.message}\n${help}\n`);
    return EXIT.usage;
  }
  if (error instanceof PromptInterrupted) {
    io.stderr.write(`satchel: ${error.message}\n`);
    return EXIT.interrupted;
  }
  if (error instanceof z.ZodError) return printError(io, validationError(error), command);
  if (error instanceof AppError) {
    io.stderr.write(
      `satchel: ${cliMessage(error.message)}${error.field ? ` (field: ${error.field})` : ''}\n`,
    );
    return error.code === 'READ_ONLY' ? EXIT.readOnly : EXIT.failure;
  }
  // A copy SQLite found damaged while reading or writing it: not a failed write.
  if (isSqliteError(error) && isCorruption(error)) {
    io.stderr.write(
      `satchel: The offline copy of this organisation is damaged (${error.message}). Set it aside and rebuild it with "satchel profile rebuild --profile NAME", which keeps the unsent edits and review marks it can still read.\n`,
    );
    return EXIT.failure;
  }
  // The offline copy refused a write (a full disk, a read-only folder): what to do, not a bug.
  if (isSqliteError(error)) {
    io.stderr.write(
      `satchel: Satchel could not write to the offline copy of this organisation (${cacheWriteProblem(error)}).\n`,
    );
    return error.code.startsWith('SQLITE_READONLY') ? EXIT.readOnly : EXIT.failure;
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
