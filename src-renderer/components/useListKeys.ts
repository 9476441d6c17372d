import { useState, type KeyboardEvent } from 'react';

/**
 * Keyboard for a short list shown as a grid (one page of rows): arrows and j/k move the
 * active row, Home/End jump, Enter opens it. The grid keeps focus; the active row is its
 * aria-activedescendant.
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
    const moves: Record<string, number> = {
      ArrowDown: clamped + 1,
      j: clamped + 1,
      ArrowUp: clamped - 1,
      k: clamped - 1,
      Home: 0,
      End: count - 1,
    };
    if (event.key in moves) {
      event.preventDefault();
      setActive(Math.max(0, Math.min(count - 1, moves[event.key] ?? 0)));
    } else if (event.key === 'Enter' && count > 0) {
      event.preventDefault();
      onOpen(clamped);
    } else onOther?.(event, clamped);
  };
  return { active: clamped, setActive, onKeyDown };
}
