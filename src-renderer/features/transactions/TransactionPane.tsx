import { forwardRef, type KeyboardEvent } from 'react';
import type { BankAccountSummary } from '../../../src-shared/details';
import { useCommand } from '../../lib/query';
import { formatDate, formatMoney, humanize } from '../../lib/format';
import { ExpenseSummary } from '../expenses/ExpenseParts';
import { ReviewControls, type ReviewFocus } from '../review/ReviewControls';

interface PaneProps {
  profileId: string;
  id: string;
  accounts: Map<string, BankAccountSummary>;
  focus: ReviewFocus;
  onFocused(): void;
  onClose(): void;
  onKeyDown(event: KeyboardEvent<HTMLElement>): void;
}

/** The detail pane: everything about one transaction, and its review controls. */
export const TransactionPane = forwardRef<HTMLHeadingElement, PaneProps>(function TransactionPane(
  { profileId, id, accounts, focus, onFocused, onClose, onKeyDown },
  headingRef,
) {
  const detail = useCommand('transactions.get', { profileId, id });
  const data = detail.data;
  const t = data?.transaction;
  const account = data?.account ?? (t ? accounts.get(t.bankAccountId) : undefined);
  return (
    <aside className="pane" aria-labelledby="pane-title" onKeyDown={onKeyDown} data-testid="transaction-pane">
      <header className="pane-header">
        <button type="button" onClick={onClose} aria-label="Close details (Esc)">
          ×
        </button>
        <h2 id="pane-title" tabIndex={-1} ref={headingRef}>
          {t ? t.counterparty || t.description || 'Transaction' : 'Transaction'}
        </h2>
      </header>
      {detail.error && (
        <p className="form-error" role="alert">
          {detail.error.message}
        </p>
      )}
      {!t ? (
        !detail.error && <p className="muted">Loading…</p>
      ) : (
        <>
          <p className={`pane-amount amount${t.amount.minor < 0 ? ' negative' : ''}`}>
            {formatMoney(t.amount)}
          </p>
          <dl className="facts">
            <dt>Booking date</dt>
            <dd>{formatDate(t.bookingDate)}</dd>
            <dt>Value date</dt>
            <dd>{formatDate(t.valueDate)}</dd>
            <dt>Type</dt>
            <dd>{humanize(t.transactionType)}</dd>
            <dt>Description</dt>
            <dd>{t.description || '—'}</dd>
            <dt>Account</dt>
            <dd>
              {account?.name ?? t.bankAccountId}
              {account?.accountNumber ? <span className="muted mono"> {account.accountNumber}</span> : null}
            </dd>
            <dt>Counterparty account</dt>
            <dd className="mono">{t.bankAccountNumber || '—'}</dd>
            <dt>Matched</dt>
            <dd>{t.matched ? 'Yes' : 'No'}</dd>
            <dt>Id</dt>
            <dd className="mono">{t.id}</dd>
            {t.deletedAt && (
              <>
                <dt>Deleted</dt>
                <dd>{formatDate(t.deletedAt)}</dd>
              </>
            )}
          </dl>

          <h3>Fees</h3>
          {data.fees.length === 0 ? (
            <p className="muted">No fees.</p>
          ) : (
            <table className="plain">
              <caption className="visually-hidden">Fees by type</caption>
              <tbody>
                {data.fees.map((fee, index) => (
                  <tr key={index}>
                    <th scope="row">{humanize(fee.feeType)}</th>
                    <td className="number">{formatMoney(fee.amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h3>Group</h3>
          {t.groupId ? (
            <>
              <p className="muted mono">{t.groupId}</p>
              {data.group.length === 0 ? (
                <p className="muted">No other transaction in this group.</p>
              ) : (
                <ul className="group-list">
                  {data.group.map((member) => (
                    <li key={member.id}>
                      {formatDate(member.bookingDate)} ·{' '}
                      {member.counterparty || member.description || member.id}{' '}
                      <span className="amount">{formatMoney(member.amount)}</span>
                    </li>
                  ))}
                </ul>
              )}
            </>
          ) : (
            <p className="muted">Not in a group.</p>
          )}

          <h3>Expense and receipts</h3>
          {data.expenses.length === 0 ? (
            <p className="muted">No expense documents this transaction.</p>
          ) : (
            data.expenses.map((expense) => (
              <ExpenseSummary key={expense.expense.id} profileId={profileId} detail={expense} />
            ))
          )}

          <ReviewControls
            profileId={profileId}
            kind="transaction"
            id={t.id}
            review={t.review}
            focus={focus}
            onFocused={onFocused}
          />
        </>
      )}
    </aside>
  );
});
