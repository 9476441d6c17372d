import { useEffect, useLayoutEffect, useState, type RefObject } from 'react';

/** An element's content width as laid out now: its inner width less its padding. */
function contentWidth(element: HTMLElement): number {
  const style = getComputedStyle(element);
  return element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
}

/**
 * The element's content width as laid out, followed as it changes (the window, a pane opening).
 *
 * A resize observer reports only at the next frame, so when the caller's own change moves the
 * element (`arrangement`: the pane opening or closing beside it), the width is measured again at
 * once, before the browser paints. Otherwise one frame, and whatever reads the page meanwhile,
 * would see a layout chosen from the width the element had before.
 */
export function useWidth(ref: RefObject<HTMLElement | null>, arrangement?: unknown): number | null {
  const [width, setWidth] = useState<number | null>(null);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element) setWidth(contentWidth(element));
  }, [ref, arrangement]);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(entry.contentRect.width);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
