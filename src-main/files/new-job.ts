import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DownloadRequest } from '../../src-shared/files';
import type { CacheDb } from '../store';
import { matches } from './fetch';
import { existingFiles } from './folder';
import { MANIFEST_COLUMNS } from './manifest';
import { createNameAllocator, nameKey } from './naming';
import { insertJob, reservedPaths, type JobRow } from './queue';
import type { ScopedFile } from './scope';
import { layoutFolders, renderFileName } from './template';

/**
 * A new download job: a name for each of its files (the template and layout, collisions
 * numbered, never a name a file in the folder or another download holds, unless by this very
 * file) and for its manifest, written to the queue in one transaction (docs/files.md, "Naming
 * template and layouts").
 */

/** Whether the file is a manifest Satchel wrote (its first line is the manifest header). */
function isManifest(file: string): boolean {
  try {
    const head = readFileSync(file, { encoding: 'utf8' }).slice(0, 400);
    return head.startsWith(`\uFEFF${MANIFEST_COLUMNS.join(',')}\r\n`);
  } catch {
    return false;
  }
}

export async function createJob(
  cache: CacheDb,
  request: DownloadRequest,
  files: ScopedFile[],
  nowIso: () => string,
): Promise<JobRow> {
  const destination = request.destination;
  const onDisk = new Set([...(await existingFiles(destination, { folders: true }))].map(nameKey));
  // Names another unfinished download into this folder will write: taken too, except by the
  // very file it will put there (then whichever job runs second finds it in place).
  const reserved = new Map<string, string>();
  for (const entry of reservedPaths(cache, destination))
    reserved.set(nameKey(entry.relativePath), entry.fileId);
  const taken = (relative: string) => onDisk.has(nameKey(relative));
  const promisedElsewhere = (relative: string, fileId: string) => {
    const owner = reserved.get(nameKey(relative));
    return owner !== undefined && owner !== fileId;
  };
  const allocate = createNameAllocator();
  const manifest = (() => {
    for (;;) {
      const name = allocate([], 'manifest.csv');
      // An earlier download's manifest is rewritten; anyone else's file is left alone.
      if (!taken(name) || isManifest(path.join(destination, name))) return name;
    }
  })();
  // A file found in place (checked by its bytes, once) is recorded done, so that the run does
  // not read it again.
  const items: Array<{ file: (typeof files)[number]; relativePath: string; present: boolean }> = [];
  for (const file of files) {
    const folders = layoutFolders(request.layout, file);
    const name = renderFileName(request.template, file);
    for (;;) {
      const relative = allocate(folders, name);
      if (promisedElsewhere(relative, file.fileId)) continue;
      // A file of the same name already there is reused only when it is this very file.
      if (!taken(relative)) {
        items.push({ file, relativePath: relative, present: false });
        break;
      }
      if (
        await matches(path.join(destination, ...relative.split('/')), {
          id: file.fileId,
          size: file.size,
          sha256: file.sha256,
        })
      ) {
        items.push({ file, relativePath: relative, present: true });
        break;
      }
    }
  }
  const row: JobRow = {
    id: randomUUID(),
    destination,
    template: request.template,
    layout: request.layout,
    scope: JSON.stringify(request.scope),
    status: 'pending',
    manifest,
    createdAt: nowIso(),
    updatedAt: nowIso(),
    finishedAt: null,
  };
  insertJob(cache, { ...row, manifest, now: row.createdAt, items });
  return row;
}
