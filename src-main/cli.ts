import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { AppError } from '../src-shared/errors';
import { createCore, type Core } from './core';
import { defaultDataDir } from './data-dir';
import { setLogSink, type LogSink } from './log';
import { EXIT, interruptHandled, printError, UsageError, type CliIo } from './cli/io';
import { endStatusLine } from './cli/status-line';
import { commandHelp } from './cli/help';
import { accountCommand, accountUsage } from './cli/account';
import { profileCommand, profileUsage } from './cli/profile';
import { statusCommand, statusUsage } from './cli/status';
import { downloadCommand, downloadUsage } from './cli/download';
import { dimensionCommand, dimensionUsage } from './cli/dimension';
import { editsCommand, editsUsage } from './cli/edits';
import { expenseCommand, expenseUsage } from './cli/expense';
import { exportCommand, exportUsage } from './cli/export';
import { reviewCommand, reviewUsage } from './cli/review';
import { searchCommand, searchUsage } from './cli/search';
import { showCommand, showUsage } from './cli/show';
import { supplierCommand, supplierUsage } from './cli/supplier';
import { syncCommand, syncUsage } from './cli/sync';

/**
 * Satchel without a window: the same core, for people who script and for servers without a
 * screen. Exit codes: 0 success, 1 failure, 2 usage, 3 the offline copy is read-only (a command
 * that would write to it, refused before it did anything), 130 interrupted (Ctrl+C or SIGTERM: a
 * sync, download, push, export or review import stops at its next safe point and says so; a
 * second Ctrl+C quits at once), 141 when the reader of the output went away (`| head`; the
 * same stop, silently).
 */

const usage = `Usage: satchel [--data-dir DIR] COMMAND

${profileUsage}
${syncUsage}
${searchUsage}
${expenseUsage}
${showUsage}
${exportUsage}
${downloadUsage}
${reviewUsage}
${accountUsage}
${supplierUsage}
${dimensionUsage}
${editsUsage}
${statusUsage}

"satchel COMMAND --help" (or "satchel help COMMAND") describes a command's options and defaults.
The data folder is --data-dir, else SATCHEL_DATA_DIR, else the app's own folder.
Exit status: 0 done, 1 failed, 2 a mistake in the command, 3 the offline copy is read-only,
130 interrupted, 141 output closed.
`;

type Command = (core: Core, args: string[], io: CliIo) => Promise<void>;

const commands: Record<string, Command> = {
  profile: profileCommand,
  status: statusCommand,
  sync: syncCommand,
  search: searchCommand,
  expense: expenseCommand,
  show: showCommand,
  export: exportCommand,
  download: downloadCommand,
  review: reviewCommand,
  account: accountCommand,
  supplier: supplierCommand,
  dimension: dimensionCommand,
  edits: editsCommand,
};

/**
 * The core's log, for support, is not the command's to show: standard error is where the
 * command says what it did, and a line such as the rebuild's record beside its own message
 * says it twice. It goes to the file SATCHEL_LOG names, appended; without one, nowhere.
 */
function cliLogSink(env: NodeJS.ProcessEnv): LogSink {
  const file = env['SATCHEL_LOG'];
  return (_level, line) => {
    if (!file) return;
    try {
      appendFileSync(file, `${new Date().toISOString()} ${line}\n`);
    } catch {
      // A log that cannot be written does not stop the command.
    }
  };
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let core: Core | undefined;
  const appLog = setLogSink(cliLogSink(io.env));
  // Once known, a mistake points at this command's own help.
  let known: string | undefined;
  try {
    const { values, tokens } = parseArgs({
      args: argv,
      options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: false,
      tokens: true,
    });
    const positionals = tokens.filter((token) => token.kind === 'positional');
    const first = positionals[0];
    const name = first?.kind === 'positional' ? first.value : undefined;
    // `satchel help search` asks for the same as `satchel search --help`.
    const about = name === 'help' ? positionals[1]?.value : values.help ? name : undefined;
    if (about !== undefined && commandHelp(about) === undefined)
      throw new UsageError(`unknown command "${about}"`);
    if (about !== undefined) {
      io.stdout.write(commandHelp(about)!);
      return EXIT.ok;
    }
    if (values.help || name === 'help') {
      io.stdout.write(usage);
      return EXIT.ok;
    }
    if (name === undefined) {
      // Not asked for: a mistake of usage, said where mistakes are said.
      io.stderr.write(usage);
      return EXIT.usage;
    }
    const command = commands[name];
    if (!command) throw new UsageError(`unknown command "${name}"`);
    known = name;
    // `--data-dir` is the CLI's own, wherever it is written: after the command too
    // (`satchel status --data-dir X`), so the command never sees it.
    const start = (first?.kind === 'positional' ? first.index : 0) + 1;
    const own = new Set<number>();
    for (const token of tokens) {
      if (token.kind !== 'option' || token.name !== 'data-dir' || token.index < start) continue;
      own.add(token.index);
      if (token.inlineValue === false) own.add(token.index + 1);
    }
    const args = argv.slice(start).filter((_arg, i) => !own.has(start + i));
    const given = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
    if (values['data-dir'] === true || (given !== undefined && given.trim() === ''))
      throw new UsageError('--data-dir takes a folder');
    const dataDir = given ?? io.env['SATCHEL_DATA_DIR'] ?? defaultDataDir(io.env);
    core = openDataFolder(dataDir);
    await command(core, args, io);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      return printError(io, new UsageError(parseArgsMessage(String(error.code), error.message)), known);
    }
    const code = printError(io, error, known);
    return io.signal?.aborted ? EXIT.interrupted : code;
  } finally {
    await core?.close();
    setLogSink(appLog);
  }
}

/** Node's words for an option mistake, said shortly and in the CLI's own way. */
function parseArgsMessage(code: string, message: string): string {
  const quoted = /'([^' ]+)/.exec(message)?.[1];
  if (quoted === undefined) return message;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${quoted}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument "${quoted}"`;
  if (message.includes('argument missing')) return `${quoted} takes a value`;
  // `--max-amount -100`: a value that starts with a dash is glued on with "=".
  if (message.includes('is ambiguous'))
    return `a value of ${quoted} that starts with "-" is written ${quoted}=-…`;
  if (message.includes('does not take an argument')) return `${quoted} takes no value`;
  return message;
}

/** The core on a data folder, or a failure that says why the folder cannot be used. */
function openDataFolder(dataDir: string): Core {
  try {
    // Made here first: the system's reason then reaches the messages below, which name
    // --data-dir; the core's own says only what the window can say.
    mkdirSync(dataDir, { recursive: true });
    // A sync here is not followed by a fill of the offline files: the command exits as soon as
    // its sync is done, which would stop the fill there and then. The app fills.
    return createCore({ dataDir, afterSync: 'sweep' });
  } catch (error) {
    const { code, syscall } = error as NodeJS.ErrnoException;
    const where = path.resolve(dataDir);
    if (code === 'EEXIST')
      throw new AppError('VALIDATION_ERROR', `The data folder ${where} is a file, not a folder.`);
    // A file where a folder of the path should be: no folder can be made below it.
    if (code === 'ENOTDIR' && syscall === 'mkdir')
      throw new AppError(
        'VALIDATION_ERROR',
        `The data folder ${where} cannot be created: part of its path is a file, not a folder. Give another with --data-dir.`,
      );
    // A folder of the path that cannot be made: on a read-only file system a recursive mkdir
    // may say ENOENT rather than EROFS; so does a link on the path that leads nowhere.
    if (code === 'ENOENT' && syscall === 'mkdir')
      throw new AppError(
        'VALIDATION_ERROR',
        `The data folder ${where} cannot be created (a read-only disk, or a link on its path that leads nowhere). Give another with --data-dir.`,
      );
    if (code === 'ELOOP' && syscall === 'mkdir')
      throw new AppError(
        'VALIDATION_ERROR',
        `The data folder ${where} cannot be created: links on its path lead back to each other. Give another with --data-dir.`,
      );
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new AppError('VALIDATION_ERROR', `Satchel may not write in the data folder ${where}.`);
    throw error;
  }
}

const isEntry =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isEntry) {
  const interrupt = new AbortController();
  // The reason every wait of the command rejects with: a cancellation, never an unexpected error.
  const INTERRUPTED = new AppError('CANCELLED', 'Interrupted.');
  const onSignal = (signal: NodeJS.Signals) => {
    // Nothing to stop gracefully (or asked twice): end now, as a shell expects (128 + signal).
    if (interrupt.signal.aborted || !interruptHandled()) process.exit(signal === 'SIGTERM' ? 143 : 130);
    // Below the progress line, and on a terminal below the "^C" it shows where the cursor was.
    endStatusLine(process.stderr, { always: signal === 'SIGINT' && process.stderr.isTTY });
    process.stderr.write('satchel: stopping at the next safe point (Ctrl+C again quits at once)\n');
    interrupt.abort(INTERRUPTED);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The reader of the output went away (`satchel search | head -1`, or `2>&1 | head` for the
  // progress and messages on stderr): no one reads what follows, so the command stops as on
  // Ctrl+C, and the exit status is a broken pipe's (128 + SIGPIPE), never a stack trace.
  let readerGone = false;
  const onWriteError = (error: NodeJS.ErrnoException) => {
    if (readerGone) return; // what was written after it, refused the same way
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
    if (!interruptHandled()) process.exit(EXIT.brokenPipe);
    interrupt.abort(INTERRUPTED);
  };
  process.stdout.on('error', onWriteError);
  process.stderr.on('error', onWriteError);
  void runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupt.signal,
  }).then((code) => {
    process.exitCode = readerGone ? EXIT.brokenPipe : code;
  });
}
