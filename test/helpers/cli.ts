import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cliEntry = path.join(repoRoot, 'src-main/cli.ts');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string;
  timeoutMs?: number;
  /**
   * Sends the child SIGINT (a Ctrl+C) once this holds; checked every 20 ms, with what the child
   * wrote so far (its progress on stderr, say).
   */
  interruptWhen?: (output: { stdout: string; stderr: string }) => boolean;
  /**
   * Closes the reading end of the child's output at once, as `| head` does once it has what it
   * wants (`both`: `2>&1 | head`): every write the child makes there fails with EPIPE.
   */
  closeOutput?: 'stdout' | 'both';
}

/** Runs the real CLI in a child process, as a user's shell would. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return runScript(cliEntry, args, options);
}

/** Runs a TypeScript entry point of the repository (a path from its root) to its end in a child process. */
export function runScript(entry: string, args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(repoRoot, entry), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = '';
    let stderr = '';
    if (options.closeOutput) child.stdout.destroy();
    else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    if (options.closeOutput === 'both') child.stderr.destroy();
    else child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const watch = options.interruptWhen
      ? setInterval(() => {
          if (!options.interruptWhen?.({ stdout, stderr })) return;
          clearInterval(watch);
          child.kill('SIGINT');
        }, 20)
      : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(watch);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * Ctrl+C as the keyboard sends it, for `type`: `script` passes it to the pseudo-terminal as a
 * key like any other, and the terminal's line discipline echoes "^C" where the cursor stands and
 * sends SIGINT to the command, as at a person's terminal (in raw mode, as at a hidden prompt,
 * the command reads it as a key instead).
 */
export const CTRL_C = '\x03';

export interface TerminalOptions {
  env?: NodeJS.ProcessEnv;
  /**
   * What the person types once the output shows `when` (a hidden prompt, say), Enter included;
   * `CTRL_C` presses Ctrl+C.
   */
  type?: string;
  when?: RegExp;
  /** The most KiB a file the command writes may grow to (`prlimit --fsize`), as on a disk filling up. */
  fileLimitKiB?: number;
  /** The terminal's width in characters (`stty cols`); unset, it tells none. */
  columns?: number;
  timeoutMs?: number;
}

/**
 * Runs the real CLI with a terminal for its input and output (a pseudo-terminal from
 * util-linux's `script`), as a person at a shell would: standard input, output and error are a
 * TTY, and what the terminal was sent (its echo of typed keys included, stdout and stderr
 * together) comes back as `shown`; `terminalScreen` says how it reads on the screen. `type` is
 * typed only once the output shows `when`, as a person waits for a prompt.
 */
export function runCliAtTerminal(
  args: string[],
  options: TerminalOptions = {},
): Promise<{ code: number | null; shown: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  // The limit in bytes through util-linux's prlimit, not the shell's `ulimit -f`: its unit is
  // the shell's to choose (KiB in bash, 512 bytes in dash), and `script` runs the command in
  // the user's $SHELL. The shell is named too, so that the command reads the same everywhere.
  const limit =
    options.fileLimitKiB === undefined ? [] : ['prlimit', `--fsize=${options.fileLimitKiB * 1024}`, '--'];
  const node = [...limit, process.execPath, '--import', 'tsx', cliEntry, ...args].map(quote).join(' ');
  const command = options.columns === undefined ? node : `stty cols ${options.columns} && exec ${node}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
      cwd: repoRoot,
      env: { ...process.env, SHELL: '/bin/sh', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    let shown = '';
    let typed = false;
    const onOutput = (chunk: Buffer) => {
      shown += chunk.toString();
      if (!typed && options.type !== undefined && options.when?.test(shown)) {
        typed = true;
        child.stdin.write(options.type);
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, shown }));
  });
}

/**
 * The lines a terminal shows for what it was sent: a carriage return goes back to the start of
 * the line, a line feed down to the next, "erase in line" (ESC [ K, ESC [ 2K) blanks what it
 * says, and text writes over what stood there. Trailing blanks are dropped from each line.
 */
export function terminalScreen(shown: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let column = 0;
  for (let at = 0; at < shown.length; at += 1) {
    const character = shown[at]!;
    if (character === '\x1b') {
      // A control sequence: ESC, "[", a number or none, a letter.
      const sequence = /^\[(\d*)([A-Za-z])/.exec(shown.slice(at + 1));
      if (!sequence) continue;
      at += sequence[0].length;
      if (sequence[2] !== 'K') continue;
      const line = lines[row]!;
      if (sequence[1] === '2') lines[row] = '';
      else if (sequence[1] === '1') lines[row] = ' '.repeat(column + 1) + line.slice(column + 1);
      else lines[row] = line.slice(0, column);
    } else if (character === '\r') column = 0;
    else if (character === '\n') {
      row += 1;
      lines[row] ??= '';
    } else {
      const line = lines[row]!.padEnd(column);
      lines[row] = line.slice(0, column) + character + line.slice(column + 1);
      column += 1;
    }
  }
  return lines.map((line) => line.trimEnd());
}
