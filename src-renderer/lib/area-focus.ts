import { focusList } from './list-focus';

/**
 * Where the keys go on in an area: its main list (its first grid), else its heading. Only one
 * shown counts: while the next area loads, React keeps the old one in the page, hidden.
 */
function landing(root: ParentNode): HTMLElement | null {
  const shown = (selector: string) =>
    [...root.querySelectorAll<HTMLElement>(selector)].find((element) => element.getClientRects().length > 0);
  return shown('[role="grid"]') ?? shown('#area-title[tabindex]') ?? null;
}

/**
 * After an area is changed by key (Ctrl+1…8, the menu, 1…4 in Needs attention) the control
 * that had the focus went with the old area, and the focus fell to <body>, where the next key
 * (Space, j/k) does nothing. This puts it on the new area's main list, or on its heading when it
 * has none, as soon as the area is shown: an area is loaded on first use, so it may come a
 * moment later. Focus the user moved meanwhile is left alone. Returns the cancel.
 */
export function focusAreaWhenShown(root: HTMLElement, timeoutMs = 5000): () => void {
  const land = (): boolean => {
    const target = landing(root);
    if (!target) return false;
    const current = document.activeElement;
    if (current === null || current === document.body) focusList(target);
    return true;
  };
  if (land()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (land()) stop();
  });
  const timer = setTimeout(() => stop(), timeoutMs);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(root, { childList: true, subtree: true });
  return stop;
}
