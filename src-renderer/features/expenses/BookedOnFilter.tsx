import { useEffect, useState } from 'react';
import type { ExpenseFilters } from '../../../src-shared/search';
import { formatCount } from '../../lib/format';
import { useCommand } from '../../lib/query';

/** What a line is booked to: an expense account, or an item of a dimension. */
export type Booking = Pick<ExpenseFilters, 'bookedOn' | 'expenseAccountId'>;

/**
 * The items listed at most (one page). An organisation with more gets a box to find the others
 * by name or code (and can open any item's expenses from Dimensions).
 */
const CHOICES = 500;

function valueOf(booking: Booking): string {
  if (booking.expenseAccountId !== undefined) return `account\n${booking.expenseAccountId}`;
  if (booking.bookedOn) return `item\n${booking.bookedOn.dimensionId}\n${booking.bookedOn.itemId}`;
  return '';
}

function bookingOf(value: string): Booking {
  const [kind, first, second] = value.split('\n');
  if (kind === 'account' && first) return { expenseAccountId: first };
  if (kind === 'item' && first && second) return { bookedOn: { dimensionId: first, itemId: second } };
  return {};
}

const accountLabel = (account: { id: string; number: string | null; name: string | null }) =>
  [account.number, account.name].filter(Boolean).join(' ') || account.id;
const itemLabel = (item: { id: string; name: string | null; code: string | null }) =>
  item.name ?? item.code ?? item.id;

/**
 * "Booked on": expenses with a line booked to one expense account, or on one item of a
 * dimension (a cost center, a project): the accounts by number, then each dimension's items
 * in the dimensions' order. With more items than it lists, a search box next to it narrows
 * the accounts and items to those whose name, number or code contain the text.
 */
export function BookedOnFilter({
  id,
  profileId,
  value,
  onChange,
}: {
  id: string;
  profileId: string;
  value: Booking;
  onChange(value: Booking): void;
}) {
  const [find, setFind] = useState('');
  // The text searched for follows what is typed after a pause.
  const [text, setText] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setText(find.trim()), 200);
    return () => clearTimeout(timer);
  }, [find]);
  const allAccounts = useCommand('expenseAccounts.list', { profileId }).data?.accounts ?? [];
  const dimensions = useCommand('dimensions.list', { profileId, search: {} }).data?.dimensions ?? [];
  const found = useCommand('dimensionItems.search', {
    profileId,
    search: { ...(text ? { text } : {}), pagination: { page: 1, pageSize: CHOICES } },
  }).data;
  const items = found?.rows ?? [];
  const needle = text.toLowerCase();
  const accounts = needle
    ? allAccounts.filter((account) =>
        [account.number, account.name].some((part) => part?.toLowerCase().includes(needle)),
      )
    : allAccounts;
  // Shown once the list cannot hold every item, and kept from then on (state adjusted while
  // rendering, as React advises for state that follows other values).
  const [searchable, setSearchable] = useState(false);
  if (!searchable && !text && found !== undefined && found.total > items.length) setSearchable(true);
  const chosen = valueOf(value);
  const listed =
    chosen === '' ||
    accounts.some((account) => account.id === value.expenseAccountId) ||
    items.some((item) => item.id === value.bookedOn?.itemId);
  // A chosen item the list does not hold (opened from Dimensions, or found by text since
  // cleared) is still named; an account always is (accounts are few, all listed until typed).
  const itemId = value.bookedOn?.itemId;
  const named = useCommand(
    'dimensionItems.search',
    {
      profileId,
      search: {
        ...(itemId ? { id: itemId } : {}),
        includeDeleted: true,
        pagination: { page: 1, pageSize: 1 },
      },
    },
    { enabled: !listed && itemId !== undefined },
  ).data?.rows[0];
  const chosenAccount = allAccounts.find((account) => account.id === value.expenseAccountId);
  const unlistedName = chosenAccount
    ? accountLabel(chosenAccount)
    : named && named.id === itemId
      ? itemLabel(named)
      : chosen.split('\n').at(-1);
  return (
    <div className="field compact">
      <label htmlFor={id}>Booked on</label>
      {searchable && (
        <input
          type="search"
          aria-label="Find in Booked on"
          aria-describedby={`${id}-found`}
          placeholder="Find an account or item…"
          value={find}
          onChange={(event) => setFind(event.target.value)}
        />
      )}
      <select
        id={id}
        value={chosen}
        aria-describedby={searchable ? `${id}-found` : undefined}
        onChange={(event) => onChange(bookingOf(event.target.value))}
      >
        <option value="">Any account, cost center, project, …</option>
        {!listed && <option value={chosen}>{unlistedName}</option>}
        {accounts.length > 0 && (
          <optgroup label="Expense account">
            {accounts.map((account) => (
              <option key={account.id} value={valueOf({ expenseAccountId: account.id })}>
                {accountLabel(account)}
              </option>
            ))}
          </optgroup>
        )}
        {dimensions.map((dimension) => {
          const own = items.filter((item) => item.dimensionId === dimension.id);
          if (own.length === 0) return null;
          return (
            <optgroup key={dimension.id} label={dimension.name ?? dimension.code ?? dimension.id}>
              {own.map((item) => (
                <option
                  key={item.id}
                  value={valueOf({ bookedOn: { dimensionId: dimension.id, itemId: item.id } })}
                >
                  {itemLabel(item)}
                </option>
              ))}
            </optgroup>
          );
        })}
      </select>
      {searchable && found && (
        <span className="hint" id={`${id}-found`} role="status">
          {found.total > items.length
            ? `${formatCount(items.length)} of ${formatCount(found.total)} items listed: type to find the others`
            : `${formatCount(found.total)} ${found.total === 1 ? 'item' : 'items'}${text ? ` with “${text}”` : ''}`}
        </span>
      )}
    </div>
  );
}
