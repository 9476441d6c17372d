import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sandbox } from './sync-fixture';
import { parseCsv } from './csv';

/** The manifest of a download as objects keyed by column name. */
export function readManifest(file: string): Array<Record<string, string>> {
  const text = readFileSync(file, 'utf8');
  if (!text.startsWith('\uFEFF')) throw new Error('The manifest has no byte-order mark.');
  const [header, ...rows] = parseCsv(text.slice(1), ',');
  return rows.map((row) => Object.fromEntries((header ?? []).map((name, i) => [name, row[i] ?? ''])));
}

export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Every file under `dir` (relative, slash-separated), hidden ones included. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const relative = `${prefix}${entry.name}`;
      if (entry.isDirectory()) walk(path.join(folder, entry.name), `${relative}/`);
      else out.push(relative);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** How many times each file's content was requested from the sandbox. */
export function contentRequests(sandbox: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of sandbox.control?.requests('getFileContent') ?? []) {
    const id = /\/v1\/files\/([^/]+)\/content/.exec(entry.path)?.[1] ?? '';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** The sandbox's own record of a file (what the downloaded bytes must hash to). */
export function sandboxFile(sandbox: Sandbox, fileId: string) {
  const spec = sandbox.state.files.find((file) => file.id === fileId);
  if (!spec) throw new Error(`No file ${fileId} in the sandbox.`);
  return sandbox.state.fileRecord(spec);
}
