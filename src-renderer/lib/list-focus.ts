/** The box the element scrolls in: its nearest ancestor that scrolls. */
function scrollBox(element: HTMLElement): HTMLElement | null {
  for (let box = element.parentElement; box; box = box.parentElement)
    if (/(auto|scroll)/.test(getComputedStyle(box).overflowY)) return box;
  return null;
}

/**
 * Brings a short list's active row (its `aria-activedescendant`) into view whole. The header
 * cells stay at the top of the scrolling box (sticky), so the box's scroll padding is their
 * height: a row brought in from above lands below them, not under them (the header takes two
 * lines in a narrow list). The same below for the pager, which sticks to the bottom.
 */
export function revealActiveRow(grid: HTMLElement): void {
  const id = grid.getAttribute('aria-activedescendant');
  const row = id ? document.getElementById(id) : null;
  if (row) revealRow(grid, row);
}

/** Brings one row of the list into view whole, clear of its header and its pager. */
export function revealRow(grid: HTMLElement, row: HTMLElement): void {
  const box = scrollBox(grid);
  const head = grid.querySelector('thead')?.getBoundingClientRect().height ?? 0;
  // The pager under the list sticks to the bottom of what is seen: a row coming in from below
  // lands above it.
  const pager = grid.parentElement?.querySelector(':scope > .pager')?.getBoundingClientRect().height ?? 0;
  if (box) {
    box.style.scrollPaddingTop = `${head}px`;
    box.style.scrollPaddingBottom = `${pager}px`;
  }
  row.scrollIntoView({ block: 'nearest' });
}

/**
 * Gives a list the focus where the keys act on its rows (an area opened, Esc in its search
 * field, its editor closed). A plain `focus()` scrolls the list into view, and a list taller
 * than the window, in an area that scrolls as a page (Suppliers, Dimensions), was scrolled to
 * its top edge even when that edge was in view: the area's heading, search field and buttons
 * went out of view. So the page does not move for the list, only for the active row of a short
 * list (a table), which is brought into view as the keys bring it (a row edited far down stays
 * in view once its editor closes). The Transactions grid scrolls its own rows.
 */
export function focusList(list: HTMLElement): void {
  list.focus({ preventScroll: true });
  if (list instanceof HTMLTableElement) revealActiveRow(list);
}

/**
 * A list taken by Tab brings its active row into view, as the keys would: the page itself does
 * not move for the list (in an area that scrolls as a page, the list's `scroll-margin-top` keeps
 * the browser from scrolling a list taller than the window to its top edge, which took the
 * heading and the search field out of view). A list taken by a click is left as it is: the
 * click's own row becomes the active one, and a scroll between the press and the release would
 * move the row from under the pointer.
 */
export function revealOnKeyboardFocus(list: HTMLElement): void {
  if (!(list instanceof HTMLTableElement) || !list.matches(':focus-visible')) return;
  requestAnimationFrame(() => revealActiveRow(list));
}
