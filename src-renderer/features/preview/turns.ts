import { useCallback, useSyncExternalStore } from 'react';
import type { Turn } from './viewer';

/**
 * Each file's turn in the preview, for the session: by organisation and file id, in the
 * window's memory only. A receipt turned upright stays so when its expense is left and opened
 * again (another expense looked at in between, the pane closed, another area visited), also
 * where the same file shows in another pane; it is upright again after a restart. A view
 * setting only: nothing is written to the file, the offline copy, the settings or the server.
 */
const turns = new Map<string, Turn>();
const listeners = new Set<() => void>();

const keyOf = (profileId: string, fileId: string) => JSON.stringify([profileId, fileId]);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The file's turn and its setter, shared by every preview of the file in the window. */
export function useFileTurn(profileId: string, fileId: string): [Turn, (turn: Turn) => void] {
  const key = keyOf(profileId, fileId);
  const turn = useSyncExternalStore(subscribe, () => turns.get(key) ?? 0);
  const setTurn = useCallback(
    (next: Turn) => {
      if (next === 0) turns.delete(key);
      else turns.set(key, next);
      for (const listener of listeners) listener();
    },
    [key],
  );
  return [turn, setTurn];
}
