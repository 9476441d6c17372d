import type { EventPayload } from '../../src-shared/ipc';

export type ExportProgress = EventPayload<'export.progress'>;

/**
 * The exports of an organisation still running, by export id, in the order they started, after
 * one more `export.progress` event. Each leaves when its own export says it ended (`done`), not
 * when its count reaches the total (one that fails midway, or leaves out rows a sync deleted
 * meanwhile, never gets there), and never with another's end: two exports may run at once.
 */
export function followExport(
  running: ReadonlyMap<string, ExportProgress>,
  event: ExportProgress,
): ReadonlyMap<string, ExportProgress> {
  const next = new Map(running);
  if (event.done) next.delete(event.exportId);
  else next.set(event.exportId, event);
  return next;
}
