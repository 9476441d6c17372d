import type { ExpenseFilters } from '../../../src-shared/search';
import { useCommand } from '../../lib/query';

/** What a line is booked to: an expense account, or an item of a dimension. */
export type Booking = Pick<ExpenseFilters, 'bookedOn' | 'expenseAccountId'>;

/** The items are read in one page; an organisation with more still opens one from Dimensions. */
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

/**
 * "Booked on": expenses with a line booked to one expense account, or on one item of a
 * dimension (a cost center, a project): the accounts by number, then each dimension's items
 * in the dimensions' order.
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
  const accounts = useCommand('expenseAccounts.list', { profileId }).data?.accounts ?? [];
  const dimensions = useCommand('dimensions.list', { profileId, search: {} }).data?.dimensions ?? [];
  const items =
    useCommand('dimensionItems.search', { profileId, search: { pagination: { page: 1, pageSize: CHOICES } } })
      .data?.rows ?? [];
  const chosen = valueOf(value);
  const listed =
    chosen === '' ||
    accounts.some((account) => account.id === value.expenseAccountId) ||
    items.some((item) => item.id === value.bookedOn?.itemId);
  return (
    <div className="field compact">
      <label htmlFor={id}>Booked on</label>
      <select id={id} value={chosen} onChange={(event) => onChange(bookingOf(event.target.value))}>
        <option value="">Any account, cost center, project, …</option>
        {!listed && <option value={chosen}>The one chosen ({chosen.split('\n').at(-1)})</option>}
        {accounts.length > 0 && (
          <optgroup label="Expense account">
            {accounts.map((account) => (
              <option key={account.id} value={valueOf({ expenseAccountId: account.id })}>
                {[account.number, account.name].filter(Boolean).join(' ') || account.id}
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
                  {item.name ?? item.code ?? item.id}
                </option>
              ))}
            </optgroup>
          );
        })}
      </select>
    </div>
  );
}
