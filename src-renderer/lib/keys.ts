import type { KeyboardEvent as ReactKeyboardEvent, RefObject } from 'react';
import { focusList } from './list-focus';

/** Whether a key press belongs to a text field (shortcuts must not steal typing). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(type);
}

/** Whether a shortcut may act: no modifier but Shift, not typing, not inside an open dialog. */
export function isPlainKey(event: KeyboardEvent | ReactKeyboardEvent): boolean {
  return !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target);
}

/** Focuses the search field of the screen shown (the one marked data-search-input). */
export function focusSearch(): void {
  const input = document.querySelector<HTMLInputElement>('[data-search-input]');
  input?.focus();
  input?.select();
}

/**
 * Esc in a list's search field hands the focus to the list, where the keys act on its rows;
 * the text stays, and so does the search (docs/screens.md). Its default is prevented, as
 * Chromium's own answer to Esc in a search field is to clear it.
 */
export function escapeToList(
  event: ReactKeyboardEvent<HTMLElement>,
  list: RefObject<HTMLElement | null> | undefined,
): void {
  if (event.key !== 'Escape' || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
  const target = list?.current;
  if (!target) return;
  event.preventDefault();
  focusList(target);
}

/**
 * A shortcut with the modifier as this computer's menus write it: "⌘1" on macOS (`platform`
 * from `app.info`, Node's name for it), "Ctrl+1" elsewhere and while the platform is not known.
 * The page takes either key on every platform (Ctrl or Cmd).
 */
export function modifierShortcut(key: string, platform: string | null | undefined): string {
  return platform === 'darwin' ? `⌘${key}` : `Ctrl+${key}`;
}
