import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { revealActiveRow, revealRow } from '../lib/list-focus';

/**
 * How many rows of the grid one screen shows: the height left to it by the window and every
 * scrolling box around it, less its header, in rows, one kept in view.
 */
function screenRows(grid: HTMLElement): number {
  let top = 0;
  let bottom = window.innerHeight;
  for (let box = grid.parentElement; box; box = box.parentElement) {
    if (!/(auto|scroll|hidden)/.test(getComputedStyle(box).overflowY)) continue;
    const rect = box.getBoundingClientRect();
    top = Math.max(top, rect.top);
    bottom = Math.min(bottom, rect.bottom);
  }
  const head = grid.querySelector('thead')?.getBoundingClientRect().height ?? 0;
  const row = grid.querySelector('tbody tr')?.getBoundingClientRect().height || 32;
  return Math.max(1, Math.floor((bottom - top - head) / row) - 1);
}

/** Brings the grid's active row into view, once it has been drawn as active. */
function revealActive(grid: HTMLElement): void {
  requestAnimationFrame(() => revealActiveRow(grid));
}

/**
 * Keyboard for a short list shown as a grid (one page of rows): arrows and j/k move the
 * active row, Page Up/Down by a screen of rows, Home/End jump, Enter opens it. The grid keeps
 * focus; the active row is its aria-activedescendant, kept in view.
 */
export function useListKeys(
  count: number,
  onOpen: (index: number) => void,
  onOther?: (event: KeyboardEvent<HTMLElement>, index: number) => void,
) {
  const [active, setActive] = useState(0);
  const clamped = Math.min(active, Math.max(0, count - 1));
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.target !== event.currentTarget || event.ctrlKey || event.metaKey || event.altKey) return;
    const grid = event.currentTarget;
    const moves: Record<string, () => number> = {
      ArrowDown: () => clamped + 1,
      j: () => clamped + 1,
      ArrowUp: () => clamped - 1,
      k: () => clamped - 1,
      PageDown: () => clamped + screenRows(grid),
      PageUp: () => clamped - screenRows(grid),
      Home: () => 0,
      End: () => count - 1,
    };
    const move = Object.hasOwn(moves, event.key) ? moves[event.key] : undefined;
    if (move) {
      event.preventDefault();
      setActive(Math.max(0, Math.min(count - 1, move())));
      revealActive(grid);
    } else if (event.key === 'Enter' && count > 0) {
      event.preventDefault();
      onOpen(clamped);
    } else onOther?.(event, clamped);
  };
  return { active: clamped, setActive, onKeyDown };
}

/**
 * A new page of a list starts at its top: once its rows are on screen (`shown`, the page's own
 * answer and not the last page's rows kept meanwhile), the first row is highlighted and brought
 * into view. The pager under the list stays in view (it sticks to the bottom of what is seen),
 * so Next keeps the focus; reaching it had scrolled the list to its end, and the new page was
 * shown from its last rows. `keep`: the highlighted row is someone else's to place (an open
 * pane stays on its record wherever the new result has it).
 */
export function useNewPageAtTop(
  grid: RefObject<HTMLElement | null>,
  page: number,
  shown: boolean,
  setActive: (index: number) => void,
  keep = false,
): void {
  const started = useRef(page);
  useEffect(() => {
    if (!shown || started.current === page) return;
    started.current = page;
    if (keep) return;
    setActive(0);
    const list = grid.current;
    if (!list) return;
    // The first row by itself: the highlight may not have moved to it yet when the frame comes.
    const frame = requestAnimationFrame(() => {
      const first = list.querySelector<HTMLElement>('tbody tr');
      if (first) revealRow(list, first);
    });
    return () => cancelAnimationFrame(frame);
  }, [grid, page, shown, setActive, keep]);
}
