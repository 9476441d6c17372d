import { formatCount } from '../lib/format';

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
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {formatCount(page)} of {formatCount(pages)} · {formatCount(total)} {total === 1 ? one : many}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
