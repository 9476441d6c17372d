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
