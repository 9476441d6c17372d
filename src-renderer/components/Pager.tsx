import { useEffect, useRef, useState } from 'react';
import { formatCount } from '../lib/format';

/**
 * The total a pager shows: the last one counted, kept while the next page (or a new search) is
 * read, so that the pager, and the button that has the focus in it, stays on screen meanwhile.
 */
export function useKeptTotal(total: number | undefined): number | undefined {
  const [kept, setKept] = useState(total);
  if (total !== undefined && total !== kept) setKept(total);
  return total ?? kept;
}

export function Pager({
  page,
  pageSize,
  total,
  onPage,
  label,
  one,
  many,
}: {
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
  /** What the rows are ("Expenses"): the navigation's name. */
  label: string;
  /** The count's noun for a single row ("expense", "item of Cost center"). */
  one: string;
  /** The count's noun for any other number of rows ("expenses", "items of Cost center"). */
  many: string;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const previous = useRef<HTMLButtonElement>(null);
  const next = useRef<HTMLButtonElement>(null);
  const pressed = useRef<'previous' | 'next' | null>(null);
  // Next on the last page (or Previous on the first) is disabled with the focus on it, which
  // drops the focus on the page: the other button takes it.
  useEffect(() => {
    const used = pressed.current;
    if (!used) return;
    pressed.current = null;
    const [button, other] = used === 'next' ? [next, previous] : [previous, next];
    const focused = document.activeElement;
    const lost = !focused || focused === document.body || focused === button.current;
    if (button.current?.disabled && lost) other.current?.focus();
  });
  const go = (to: number, used: 'previous' | 'next') => {
    pressed.current = used;
    onPage(to);
  };
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" ref={previous} disabled={page <= 1} onClick={() => go(page - 1, 'previous')}>
        Previous
      </button>
      <span>
        Page {formatCount(page)} of {formatCount(pages)} · {formatCount(total)} {total === 1 ? one : many}
      </span>
      <button type="button" ref={next} disabled={page >= pages} onClick={() => go(page + 1, 'next')}>
        Next
      </button>
    </nav>
  );
}
