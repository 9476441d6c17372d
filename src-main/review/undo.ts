import type { CacheDb } from '../store';
import {
  deleteMarkRow,
  readMarkRow,
  writeMarkRow,
  writeTagRows,
  type MarkRow,
  type TagRow,
} from './mark-rows';

/**
 * Undoing an import of a colleague's review file. The import took the newer facets of the
 * file, so importing one's own earlier export cannot take them back (its changes are older);
 * instead the import lists every record it changed, as the record was before and the change
 * times it left, and undoing puts back the "before" of each record that is still as the import
 * left it. A record changed since (marked, tagged, another import) keeps that later change:
 * undoing an import never undoes the user's own work done after it.
 */

export interface ImportUndo {
  entries: Array<{
    kind: 'transaction' | 'expense';
    id: string;
    /** The mark before the import; null when the record had none. */
    before: MarkRow | null;
    beforeTags: TagRow[];
    /** The change times the import left (changeStamps): any later change moves one of them. */
    after: string;
  }>;
}

export interface UndoResult {
  /** Records whose marks are as before the import again. */
  restored: number;
  /** Records changed after the import, left as they are. */
  changedSince: number;
}

/**
 * A mark's change times as one string. Every change of a facet sets its time, tags included,
 * so a record still as an import left it still has these. Kept instead of the whole row and
 * its tags, as the app holds the last import's list while it runs: 120,000 whole rows and
 * their tags took 125 MB.
 */
export function changeStamps(row: MarkRow): string {
  return [
    row.reviewed_changed_at,
    row.flag_changed_at,
    row.note_changed_at,
    row.tags_changed_at,
    row.updated_at,
  ].join('|');
}

/** Puts back what `undo` lists, in one transaction, where nothing changed since. */
export function undoImport(cache: CacheDb, undo: ImportUndo): UndoResult {
  const result: UndoResult = { restored: 0, changedSince: 0 };
  cache.sqlite.transaction(() => undoEntries(cache, undo.entries, result))();
  return result;
}

/**
 * The same a slice of records per transaction, with the event loop free between slices, as the
 * import was made (120,000 records took 8 s in one transaction). Killed part-way, the records
 * of the slices before are put back and the rest keep the import's marks.
 */
export async function undoImportInSlices(
  cache: CacheDb,
  undo: ImportUndo,
  {
    sliceSize = 250,
    onProgress,
  }: { sliceSize?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<UndoResult> {
  const result: UndoResult = { restored: 0, changedSince: 0 };
  const slice = cache.sqlite.transaction((entries: ImportUndo['entries']) =>
    undoEntries(cache, entries, result),
  );
  const total = undo.entries.length;
  for (let from = 0; from < total; from += sliceSize) {
    const to = Math.min(total, from + sliceSize);
    slice(undo.entries.slice(from, to));
    onProgress?.(to, total);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return result;
}

function undoEntries(cache: CacheDb, entries: ImportUndo['entries'], result: UndoResult): void {
  for (const entry of entries) {
    const now = readMarkRow(cache, entry.kind, entry.id);
    if (now === undefined || changeStamps(now) !== entry.after) {
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
}
