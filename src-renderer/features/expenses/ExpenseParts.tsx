import { Fragment, useId, useState } from 'react';
import {
  accountText,
  dimensionText,
  type ExpenseDetail,
  type ExpenseFileSummary,
  type ExpenseLineSummary,
  type LinkedTransaction,
} from '../../../src-shared/details';
import {
  formatBytes,
  formatDate,
  formatMoney,
  formatShortDate,
  humanize,
  lineTypeLabel,
} from '../../lib/format';
import { FilePreview } from '../preview/FilePreview';
import { useFileTurn } from '../preview/turns';

/**
 * An expense's description or supplier in the list, on one line (expenses.css): cut short with an
 * ellipsis where its column is too narrow, its whole text the cell's tooltip. The text stays
 * whole in the page, so a screen reader reads all of it. A missing one is a dash.
 */
export function OneLineCell({ text, className }: { text: string | null; className: string }) {
  if (!text) return <td className={className}>—</td>;
  return (
    <td className={className} title={text}>
      <span className="clip">{text}</span>
    </td>
  );
}

/**
 * An expense's date in the list, on one line: the medium date ("Oct 23, 2026" in en-US), or the
 * locale's short one ("10/23/26") beside the detail pane in the smallest windows, where the
 * medium one would wrap and leave the description a few letters a line (styles.css). The cell
 * holds both and CSS shows one: the other is `display: none`, so a screen reader reads only the
 * one shown. The medium date is the cell's tooltip. A missing date is a dash.
 */
export function DateCell({ iso }: { iso: string | null }) {
  const medium = formatDate(iso);
  if (!iso || medium === iso) return <td className="nowrap date">{medium}</td>;
  const day = iso.slice(0, 10);
  return (
    <td className="nowrap date" title={medium}>
      <time className="date-medium" dateTime={day}>
        {medium}
      </time>
      <time className="date-short" dateTime={day}>
        {formatShortDate(iso)}
      </time>
    </td>
  );
}

/**
 * Where a line is booked, in one line of text: "Account 4930 Office supplies · VAT 19 % ·
 * Cost center: 1000 Management". A record the offline copy does not know shows its id.
 */
export function bookingOf(line: ExpenseLineSummary): string {
  const parts: string[] = [];
  if (line.expenseAccount) parts.push(`Account ${accountText(line.expenseAccount)}`);
  const rate = line.taxRate;
  if (rate) parts.push(rate.name ?? (rate.rate !== null ? `Tax ${rate.rate} %` : `Tax rate ${rate.id}`));
  for (const dimension of line.dimensions) {
    const text = dimensionText(dimension);
    if (text) parts.push(text);
  }
  return parts.join(' · ');
}

/**
 * The bank transaction an expense documents: its date, counterparty and amount, and a button
 * that opens it in Transactions. One the offline copy lacks (not synced yet, or outside the
 * synced period) shows its id; none shows a dash.
 */
export function LinkedTransactionFact({
  id,
  transaction,
  onShow,
}: {
  id: string | null;
  transaction: LinkedTransaction | null;
  onShow(transaction: LinkedTransaction): void;
}) {
  if (id === null) return <>—</>;
  if (!transaction)
    return (
      <>
        <span className="mono">{id}</span> <span className="muted">(not in the offline copy)</span>
      </>
    );
  const parts = [
    formatDate(transaction.bookingDate),
    transaction.counterparty ?? '—',
    formatMoney(transaction.amount),
  ];
  return (
    <span className="linked-transaction">
      <span>
        {parts.join(' · ')}
        {transaction.deletedAt !== null && <span className="muted"> (deleted upstream)</span>}
      </span>{' '}
      <button type="button" onClick={() => onShow(transaction)}>
        Show in Transactions
      </button>
    </span>
  );
}

export function ExpenseLines({ lines }: { lines: ExpenseLineSummary[] }) {
  if (lines.length === 0) return <p className="muted">No lines.</p>;
  return (
    <table className="plain">
      <caption className="visually-hidden">Lines</caption>
      <thead>
        <tr>
          <th scope="col">Line</th>
          <th scope="col" className="wide-pane-only">
            Type
          </th>
          <th scope="col" className="number wide-pane-only">
            Net
          </th>
          <th scope="col" className="number">
            VAT
          </th>
          <th scope="col" className="number">
            Gross
          </th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line) => {
          const booked = bookingOf(line);
          return (
            <Fragment key={line.id}>
              <tr className={booked ? 'booked-line' : undefined}>
                <td>{line.description || '—'}</td>
                <td className="line-type wide-pane-only">{lineTypeLabel(line.type)}</td>
                <td className="number wide-pane-only">{formatMoney(line.net)}</td>
                <td className="number">{formatMoney(line.vat)}</td>
                <td className="number">{formatMoney(line.gross)}</td>
              </tr>
              {booked && (
                <tr className="line-booking">
                  <td colSpan={5}>{booked}</td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

export function ExpenseFiles({ profileId, files }: { profileId: string; files: ExpenseFileSummary[] }) {
  if (files.length === 0) return <p className="muted">No receipt or invoice.</p>;
  return (
    <ul className="files" aria-label="Receipts and invoices">
      {files.map((file) => (
        <ExpenseFile key={file.id} profileId={profileId} file={file} />
      ))}
    </ul>
  );
}

/**
 * One file; its preview opens by itself when the copy is on disk, else when asked (it downloads).
 * The file's turn in the preview is kept for the session, by organisation and file id
 * (`preview/turns.ts`): hiding the preview, looking at other files or expenses, closing the
 * pane and coming back all keep it. A view setting only: nothing is saved anywhere.
 */
function ExpenseFile({ profileId, file }: { profileId: string; file: ExpenseFileSummary }) {
  const [shown, setShown] = useState(file.downloaded);
  const [turn, setTurn] = useFileTurn(profileId, file.id);
  const previewId = useId();
  const name = file.name ?? file.id;
  return (
    <li className="file">
      <span className="file-name">{name}</span>
      <span className="muted">
        {file.mimeType ?? 'unknown type'} · {formatBytes(file.size)}
      </span>
      <span className={file.downloaded ? 'badge badge-ok' : 'badge'}>
        {file.downloaded ? 'Kept offline' : 'Not downloaded yet'}
      </span>
      <button
        type="button"
        className="file-preview-toggle"
        aria-expanded={shown}
        aria-controls={previewId}
        aria-label={`${shown ? 'Hide' : 'Show'} preview of ${name}`}
        onClick={() => setShown((value) => !value)}
      >
        {shown ? 'Hide preview' : 'Preview'}
      </button>
      <div id={previewId} className="file-preview-slot">
        {shown && <FilePreview profileId={profileId} file={file} turn={turn} onTurn={setTurn} />}
      </div>
    </li>
  );
}

/** An expense as the transaction pane shows it: headline facts, lines and files. */
export function ExpenseSummary({ profileId, detail }: { profileId: string; detail: ExpenseDetail }) {
  const { expense } = detail;
  return (
    <article className="linked-expense" aria-label={`Expense ${expense.description ?? expense.id}`}>
      <dl className="facts">
        <dt>Expense</dt>
        <dd>{expense.description || expense.merchantName || expense.id}</dd>
        <dt>Status</dt>
        <dd>{humanize(expense.status)}</dd>
        <dt>Supplier</dt>
        <dd>{expense.supplierName ?? '—'}</dd>
        <dt>Amount</dt>
        <dd className="amount">{formatMoney(expense.amount)}</dd>
      </dl>
      <ExpenseLines lines={detail.lines} />
      <ExpenseFiles profileId={profileId} files={detail.files} />
    </article>
  );
}
