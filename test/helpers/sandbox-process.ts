import { spawn } from 'node:child_process';
import path from 'node:path';
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from '../../src-sandbox';
import { runScript, type CliResult } from './cli';
import type { SandboxPeer } from './sandbox-sync';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/**
 * The sandbox's own command line (`src-sandbox/cli.ts`) in a process of its own, on a free
 * port: a server that shares no thread with the client measured or tested against it.
 */
export async function sandboxProcess(args: string[]): Promise<SandboxPeer & { stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src-sandbox/cli.ts', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
  });
  return {
    url,
    clientId: DEMO_CLIENT_ID,
    clientSecret: DEMO_CLIENT_SECRET,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The sandbox's command line run to its end: what it printed and how it exited. */
export function sandboxCommand(args: string[]): Promise<CliResult> {
  return runScript('src-sandbox/cli.ts', args);
}
