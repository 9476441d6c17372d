import type { ExpenseFilters } from '../../../src-shared/search';
import { useCommand } from '../../lib/query';

type BookedOn = NonNullable<ExpenseFilters['bookedOn']>;

/** The choices are read in one page; an organisation with more items still finds them by id. */
const CHOICES = 500;

const valueOf = (booked: BookedOn | undefined) => (booked ? `${booked.dimensionId}\n${booked.itemId}` : '');

/**
 * "Booked on": expenses with a line booked on one item of a dimension (a cost center, a
 * project), the items grouped by dimension in the dimensions' order.
 */
export function BookedOnFilter({
  id,
  profileId,
  value,
  onChange,
}: {
  id: string;
  profileId: string;
  value: BookedOn | undefined;
  onChange(value: BookedOn | undefined): void;
}) {
  const dimensions = useCommand('dimensions.list', { profileId, search: {} }).data?.dimensions ?? [];
  const items =
    useCommand('dimensionItems.search', { profileId, search: { pagination: { page: 1, pageSize: CHOICES } } })
      .data?.rows ?? [];
  const chosenListed = !value || items.some((item) => item.id === value.itemId);
  return (
    <div className="field compact">
      <label htmlFor={id}>Booked on</label>
      <select
        id={id}
        value={valueOf(value)}
        onChange={(event) => {
          const [dimensionId, itemId] = event.target.value.split('\n');
          onChange(dimensionId && itemId ? { dimensionId, itemId } : undefined);
        }}
      >
        <option value="">Any cost center, project, …</option>
        {!chosenListed && value && <option value={valueOf(value)}>Item {value.itemId}</option>}
        {dimensions.map((dimension) => {
          const own = items.filter((item) => item.dimensionId === dimension.id);
          if (own.length === 0) return null;
          return (
            <optgroup key={dimension.id} label={dimension.name ?? dimension.code ?? dimension.id}>
              {own.map((item) => (
                <option key={item.id} value={valueOf({ dimensionId: dimension.id, itemId: item.id })}>
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
