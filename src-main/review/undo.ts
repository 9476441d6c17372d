import type { CacheDb } from '../store';
import {
  deleteMarkRow,
  readMarkRow,
  readTagRows,
  writeMarkRow,
  writeTagRows,
  type MarkRow,
  type TagRow,
} from './mark-rows';

/**
 * Undoing an import of a colleague's review file. The import took the newer facets of the
 * file, so importing one's own earlier export cannot take them back (its changes are older);
 * instead the import lists every record it changed, as the record was before and after, and
 * undoing puts back the "before" of each record that is still as the import left it. A record
 * changed since (marked, tagged, another import) keeps that later change: undoing an import
 * never undoes the user's own work done after it.
 */

export interface ImportUndo {
  entries: Array<{
    kind: 'transaction' | 'expense';
    id: string;
    /** The mark before the import; null when the record had none. */
    before: MarkRow | null;
    beforeTags: TagRow[];
    after: MarkRow;
    afterTags: TagRow[];
  }>;
}

export interface UndoResult {
  /** Records whose marks are as before the import again. */
  restored: number;
  /** Records changed after the import, left as they are. */
  changedSince: number;
}

const sameRow = (a: MarkRow | undefined, b: MarkRow) =>
  a !== undefined && (Object.keys(b) as Array<keyof MarkRow>).every((key) => a[key] === b[key]);

const sameTags = (a: readonly TagRow[], b: readonly TagRow[]) =>
  a.length === b.length && a.every((tag, i) => tag.tag === b[i]!.tag && tag.added_at === b[i]!.added_at);

/** Puts back what `undo` lists, in one transaction, where nothing changed since. */
export function undoImport(cache: CacheDb, undo: ImportUndo): UndoResult {
  return cache.sqlite.transaction(() => {
    const result: UndoResult = { restored: 0, changedSince: 0 };
    for (const entry of undo.entries) {
      const now = readMarkRow(cache, entry.kind, entry.id);
      if (
        !sameRow(now, entry.after) ||
        !sameTags(readTagRows(cache, entry.kind, entry.id), entry.afterTags)
      ) {
        result.changedSince += 1;
        continue;
      }
      if (entry.before === null) deleteMarkRow(cache, entry.kind, entry.id);
      else {
        writeMarkRow(cache, entry.before);
        writeTagRows(cache, entry.kind, entry.id, entry.beforeTags);
      }
      result.restored += 1;
    }
    return result;
  })();
}
