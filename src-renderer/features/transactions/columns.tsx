import { createColumnHelper } from '@tanstack/react-table';
import type { BankAccountSummary } from '../../../src-shared/details';
import type { TransactionRow, TransactionSortField } from '../../../src-shared/search';
import { formatDate, formatMoney, humanize } from '../../lib/format';
import { ReviewMarks } from '../review/ReviewMarks';

export interface GridItem {
  index: number;
  row: TransactionRow;
}

const column = createColumnHelper<GridItem>();

/** Each column's width in the CSS grid each row lays out with, in column order. */
const COLUMN_WIDTHS: Record<string, string> = {
  select: '36px',
  bookingDate: '120px',
  counterparty: 'minmax(140px, 1.2fr)',
  description: 'minmax(160px, 2fr)',
  amount: '140px',
  transactionType: '96px',
  bankAccountId: 'minmax(110px, 1fr)',
  matched: '84px',
  // Reviewed, flagged and noted: "✓", "Flag" and "Note" side by side (about 112 px).
  reviewed: '120px',
};

/**
 * Columns the detail pane repeats (type, account, matched), left out while it is open so that
 * the review marks stay in view beside it; the text columns may then narrow further. Left out
 * too alone in a grid narrower than every column needs (the 'narrow' layout, NARROW_ALONE px),
 * where the text columns narrow, so that the rest fits without scrolling sideways (576 px):
 * Enter opens the pane with the others.
 */
export const WITHOUT_PANE = { transactionType: false, bankAccountId: false, matched: false };

/**
 * Beside a narrow pane (a grid under NARROW_GRID px: an 800-pixel window) the booking date and
 * the description go too, as the pane shows both: the counterparty, the amount and the review
 * marks then fit without scrolling sideways (336 px; the cells' padding is halved there).
 */
export const WITHOUT_NARROW_PANE = { ...WITHOUT_PANE, bookingDate: false, description: false };
export const NARROW_GRID = 512;

/**
 * Beside the pane in a grid under TWO_TEXT_GRID px (windows of about 1,170–1,400 px, the usual
 * 1,280 among them) the counterparty and the description cannot both be read: each got about
 * 100 px, "Card stat…" and "Credit card…", and under 608 px the grid scrolled sideways, the
 * review marks out of view. There the description goes (the pane shows it for the open row) and
 * the counterparty takes its room, with the booking date kept, the amount as wide as beside a
 * wide pane and the cells' padding halved (512 px at least, so from NARROW_GRID on nothing
 * scrolls sideways and the counterparty keeps 120 px). From TWO_TEXT_GRID on both text
 * columns are shown, the counterparty at least as wide as its header.
 */
export const WITHOUT_SLIM_PANE = { ...WITHOUT_PANE, description: false };
export const TWO_TEXT_GRID = 740;

/**
 * How the grid is laid out: alone, alone in a grid too narrow for every column (an 800-pixel
 * window), beside the detail pane, beside it with room for one text column, or beside it in a
 * narrow window.
 */
export type GridLayout = 'alone' | 'narrow' | 'pane' | 'slim-pane' | 'narrow-pane';

const BESIDE_PANE: Record<Exclude<GridLayout, 'alone'>, Record<string, string>> = {
  narrow: {
    select: '32px',
    counterparty: 'minmax(100px, 1.2fr)',
    description: 'minmax(100px, 2fr)',
    amount: '112px',
    reviewed: '112px',
  },
  pane: {
    counterparty: 'minmax(120px, 1.2fr)',
    description: 'minmax(100px, 2fr)',
  },
  'slim-pane': {
    select: '32px',
    counterparty: 'minmax(120px, 1fr)',
    amount: '128px',
    reviewed: '112px',
  },
  'narrow-pane': {
    select: '32px',
    counterparty: 'minmax(80px, 1fr)',
    amount: '112px',
    reviewed: '112px',
  },
};

/** Which columns each layout leaves out. */
export const LEFT_OUT: Record<GridLayout, Record<string, boolean>> = {
  alone: {},
  // Narrow and alone, the grid leaves out what the pane would show of a row: the same columns as
  // beside the pane.
  narrow: WITHOUT_PANE,
  pane: WITHOUT_PANE,
  'slim-pane': WITHOUT_SLIM_PANE,
  'narrow-pane': WITHOUT_NARROW_PANE,
};

/** Layouts whose cells have half the usual padding. */
export const CLOSE_CELLS = new Set<GridLayout>(['narrow', 'slim-pane', 'narrow-pane']);

/** The least width of the grid alone with every column: narrower, it is laid out 'narrow'. */
export const NARROW_ALONE = Object.values(COLUMN_WIDTHS).reduce(
  (sum, width) => sum + Number(/(\d+)px/.exec(width)?.[1] ?? 0),
  0,
);

/**
 * The grid's layout for its width and whether the detail pane is open (null: not measured yet,
 * laid out as if wide).
 */
export function gridLayout(width: number | null, paneOpen: boolean): GridLayout {
  if (!paneOpen) return width !== null && width < NARROW_ALONE ? 'narrow' : 'alone';
  if (width === null || width >= TWO_TEXT_GRID) return 'pane';
  return width < NARROW_GRID ? 'narrow-pane' : 'slim-pane';
}

/**
 * The grid's column template for the columns shown, in order, and the width the rows need at
 * least (the sum of the columns' least widths): narrower, the grid scrolls sideways rather
 * than squeezing the columns.
 */
export function gridColumns(
  ids: readonly string[],
  layout: GridLayout,
): { template: string; minWidth: number } {
  const widths = ids.map(
    (id) => (layout === 'alone' ? undefined : BESIDE_PANE[layout][id]) ?? COLUMN_WIDTHS[id] ?? '0px',
  );
  const least = (width: string) => Number(/(\d+)px/.exec(width)?.[1] ?? 0);
  return { template: widths.join(' '), minWidth: widths.reduce((sum, width) => sum + least(width), 0) };
}

/** An account as the grid names it: its name, or its id when the offline copy has no name. */
function accountName(accounts: Map<string, BankAccountSummary>, id: string): string {
  return accounts.get(id)?.name ?? id;
}

/**
 * A text cell's whole text, its tooltip (the counterparty, the description, the account): a
 * column narrower than its text cuts it short with an ellipsis, as the Expenses list does, and
 * the tooltip shows the rest without opening the pane. Other cells have none.
 */
export function cellTitle(
  columnId: string,
  row: TransactionRow,
  accounts: Map<string, BankAccountSummary>,
): string | undefined {
  const text =
    columnId === 'counterparty'
      ? row.counterparty
      : columnId === 'description'
        ? row.description
        : columnId === 'bankAccountId'
          ? accountName(accounts, row.bankAccountId)
          : null;
  return text || undefined;
}

export function transactionColumns(
  accounts: Map<string, BankAccountSummary>,
  selected: Set<string>,
  toggle: (id: string) => void,
) {
  return [
    column.display({
      id: 'select',
      header: () => <span className="visually-hidden">Selected</span>,
      cell: ({ row }) => (
        <input
          type="checkbox"
          tabIndex={-1}
          aria-label={`Select ${row.original.row.counterparty ?? row.original.row.id}`}
          checked={selected.has(row.original.row.id)}
          onChange={() => toggle(row.original.row.id)}
          onClick={(event) => event.stopPropagation()}
        />
      ),
    }),
    column.accessor((item) => item.row.bookingDate, {
      id: 'bookingDate',
      header: 'Booking date',
      cell: (info) => formatDate(info.getValue()),
    }),
    column.accessor((item) => item.row.counterparty, {
      id: 'counterparty',
      header: 'Counterparty',
      cell: (info) => info.getValue() ?? '—',
    }),
    column.accessor((item) => item.row.description, {
      id: 'description',
      header: 'Description',
      cell: (info) => info.getValue() ?? '—',
    }),
    column.accessor((item) => item.row.amount, {
      id: 'amount',
      header: 'Amount',
      cell: (info) => (
        <span className={info.getValue().minor < 0 ? 'amount negative' : 'amount'}>
          {formatMoney(info.getValue())}
        </span>
      ),
    }),
    column.accessor((item) => item.row.transactionType, {
      id: 'transactionType',
      header: 'Type',
      cell: (info) => humanize(info.getValue()),
    }),
    column.accessor((item) => item.row.bankAccountId, {
      id: 'bankAccountId',
      header: 'Account',
      cell: (info) => accountName(accounts, info.getValue()),
    }),
    column.accessor((item) => item.row.matched, {
      id: 'matched',
      header: 'Matched',
      cell: (info) => (info.getValue() ? 'Yes' : 'No'),
    }),
    column.accessor((item) => item.row.review, {
      id: 'reviewed',
      header: 'Review',
      enableSorting: false,
      cell: (info) => <ReviewMarks review={info.getValue()} />,
    }),
  ];
}

export const SORTABLE = new Set<string>([
  'bookingDate',
  'counterparty',
  'description',
  'amount',
  'transactionType',
  'bankAccountId',
  'matched',
] satisfies TransactionSortField[]);
