import { useEffect, type KeyboardEvent, type RefObject } from 'react';

/** The controls Tab stops at, in order: of a radio group only its checked radio. */
function tabStops(root: HTMLElement): HTMLElement[] {
  return [
    ...root.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, [tabindex]'),
  ].filter(
    (element) =>
      element.tabIndex >= 0 &&
      !element.matches(':disabled') &&
      element.getClientRects().length > 0 &&
      !(element instanceof HTMLInputElement && element.type === 'radio' && !element.checked),
  );
}

/**
 * Keeps Tab inside the dialog. A modal <dialog> makes the page inert, but Tab past its last
 * control would still leave for the window's frame; here it wraps to the first, and back.
 */
export function trapTab(event: KeyboardEvent<HTMLElement>): void {
  if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
  const stops = tabStops(event.currentTarget);
  const first = stops[0];
  const last = stops.at(-1);
  if (!first || !last) return;
  if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  } else if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  }
}

/**
 * Shows the dialog as a modal while the component is mounted (the page behind is inert, Esc
 * closes it) and gives the focus back to the control that opened it afterwards.
 */
export function useModal(dialog: RefObject<HTMLDialogElement | null>): void {
  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (element && !element.open) element.showModal();
    return () => opener?.focus();
  }, [dialog]);
}
