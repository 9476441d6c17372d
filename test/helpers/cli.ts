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
  /** Sends the child SIGINT (a Ctrl+C) once this holds; checked every 20 ms. */
  interruptWhen?: () => boolean;
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
          if (!options.interruptWhen?.()) return;
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

export interface TerminalOptions {
  env?: NodeJS.ProcessEnv;
  /** What the person types once the output shows `when` (a hidden prompt, say), Enter included. */
  type: string;
  when: RegExp;
  timeoutMs?: number;
}

/**
 * Runs the real CLI with a terminal for its input and output (a pseudo-terminal from
 * util-linux's `script`), as a person at a shell would: standard input is a TTY, and what the
 * terminal shows (its echo of typed keys included) comes back as `shown`. `type` is typed only
 * once the output shows `when`, as a person waits for a prompt.
 */
export function runCliAtTerminal(
  args: string[],
  options: TerminalOptions,
): Promise<{ code: number | null; shown: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, '--import', 'tsx', cliEntry, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    let shown = '';
    let typed = false;
    const onOutput = (chunk: Buffer) => {
      shown += chunk.toString();
      if (!typed && options.when.test(shown)) {
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
