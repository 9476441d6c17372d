import { useEffect, useId, useMemo, useRef, useState, type RefObject } from 'react';
import { TransactionType } from '../../../src-shared/api/bank';
import type { BankAccountSummary } from '../../../src-shared/details';
import { TransactionFilters } from '../../../src-shared/search';
import { Field, TriState } from '../../components/fields';
import { humanize } from '../../lib/format';
import { escapeToList } from '../../lib/keys';

/** What the form holds: strings as typed, lists as checked. Parsed into TransactionFilters. */
export interface FilterDraft {
  freeText: string;
  bookingDateFrom: string;
  bookingDateTo: string;
  accountIds: string[];
  matched: boolean | undefined;
  reviewed: boolean | undefined;
  flagged: boolean | undefined;
  hasNote: boolean | undefined;
  tag: string;
  amountCurrency: string;
  amountMin: string;
  amountMax: string;
  ignoreSign: boolean;
  transactionTypes: string[];
  currencies: string[];
  ids: string;
  includeDeleted: boolean;
}

export const EMPTY_DRAFT: FilterDraft = {
  freeText: '',
  bookingDateFrom: '',
  bookingDateTo: '',
  accountIds: [],
  matched: undefined,
  reviewed: undefined,
  flagged: undefined,
  hasNote: undefined,
  tag: '',
  amountCurrency: '',
  amountMin: '',
  amountMax: '',
  ignoreSign: false,
  transactionTypes: [],
  currencies: [],
  ids: '',
  includeDeleted: false,
};

type Parsed = { ok: true; filters: TransactionFilters } | { ok: false; errors: Record<string, string> };

/** Empty inputs mean "no filter"; an empty checkbox list too (the contract's [] matches nothing). */
export function parseDraft(draft: FilterDraft): Parsed {
  const candidate: Record<string, unknown> = {};
  const text = (key: keyof FilterDraft, value: string) => {
    if (value.trim() !== '') candidate[key] = value.trim();
  };
  text('freeText', draft.freeText);
  text('bookingDateFrom', draft.bookingDateFrom);
  text('bookingDateTo', draft.bookingDateTo);
  text('tag', draft.tag);
  for (const key of ['matched', 'reviewed', 'flagged', 'hasNote'] as const)
    if (draft[key] !== undefined) candidate[key] = draft[key];
  for (const key of ['accountIds', 'transactionTypes', 'currencies'] as const)
    if (draft[key].length > 0) candidate[key] = draft[key];
  const ids = draft.ids.split(/[\s,;]+/).filter(Boolean);
  if (ids.length > 0) candidate['ids'] = ids;
  if (draft.includeDeleted) candidate['includeDeleted'] = true;
  if (draft.amountMin.trim() || draft.amountMax.trim() || draft.amountCurrency) {
    candidate['amount'] = {
      currency: draft.amountCurrency,
      ...(draft.amountMin.trim() ? { min: draft.amountMin.trim() } : {}),
      ...(draft.amountMax.trim() ? { max: draft.amountMax.trim() } : {}),
      ...(draft.ignoreSign ? { ignoreSign: true } : {}),
    };
  }
  const parsed = TransactionFilters.safeParse(candidate);
  if (parsed.success) return { ok: true, filters: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key =
      issue.path[0] === 'amount' ? `amount.${String(issue.path[1] ?? 'currency')}` : String(issue.path[0]);
    errors[key] ??= issue.message;
  }
  return { ok: false, errors };
}

/** The form showing some filters (a list opened from "Needs attention"); parseDraft reverses it. */
export function draftFromFilters(filters: TransactionFilters): FilterDraft {
  const { amount } = filters;
  return {
    ...EMPTY_DRAFT,
    freeText: filters.freeText ?? '',
    bookingDateFrom: filters.bookingDateFrom ?? '',
    bookingDateTo: filters.bookingDateTo ?? '',
    accountIds: filters.accountIds ?? [],
    matched: filters.matched,
    reviewed: filters.reviewed,
    flagged: filters.flagged,
    hasNote: filters.hasNote,
    tag: filters.tag ?? '',
    amountCurrency: amount?.currency ?? '',
    amountMin: amount?.min ?? '',
    amountMax: amount?.max ?? '',
    ignoreSign: amount?.ignoreSign ?? false,
    transactionTypes: filters.transactionTypes ?? [],
    currencies: filters.currencies ?? [],
    ids: (filters.ids ?? []).join(' '),
    includeDeleted: filters.includeDeleted ?? false,
  };
}

export function activeFilterCount(draft: FilterDraft): number {
  return Object.entries(draft).filter(([key, value]) => {
    const empty = EMPTY_DRAFT[key as keyof FilterDraft];
    return JSON.stringify(value) !== JSON.stringify(empty);
  }).length;
}

/**
 * Every filter of the transaction search. The common ones are always shown; the rest fold
 * out. Text waits for a pause in typing; an invalid value is marked on its field and the last
 * valid filters stay applied.
 */
export function FilterBar({
  accounts,
  onChange,
  onPending,
  initial,
  list,
}: {
  accounts: BankAccountSummary[];
  onChange(filters: TransactionFilters): void;
  /** True from a change of a filter until it is applied (after the pause), false then. */
  onPending?(pending: boolean): void;
  initial?: TransactionFilters | undefined;
  /** The grid it filters: Esc in the search field gives it the focus, the text kept. */
  list: RefObject<HTMLElement | null>;
}) {
  const id = useId();
  const [draft, setDraft] = useState<FilterDraft>(() => (initial ? draftFromFilters(initial) : EMPTY_DRAFT));
  const [more, setMore] = useState(false);
  const parsed = useMemo(() => parseDraft(draft), [draft]);
  const errors = parsed.ok ? {} : parsed.errors;
  const currencies = useMemo(
    () => [...new Set(accounts.map((account) => account.currency).filter((c): c is string => !!c))].sort(),
    [accounts],
  );

  // The filters the list shows, first those it opened with: the form as opened waits for
  // nothing and is not pending (the result's buttons stay enabled) until a filter changes.
  const applied = useRef(JSON.stringify(initial ?? {}));
  useEffect(() => {
    if (parsed.ok && JSON.stringify(parsed.filters) === applied.current) {
      onPending?.(false);
      return;
    }
    onPending?.(parsed.ok);
    if (!parsed.ok) return;
    const timer = setTimeout(() => {
      applied.current = JSON.stringify(parsed.filters);
      onChange(parsed.filters);
      onPending?.(false);
    }, 200);
    return () => clearTimeout(timer);
  }, [parsed, onChange, onPending]);

  const set = <K extends keyof FilterDraft>(key: K, value: FilterDraft[K]) =>
    setDraft((current) => ({ ...current, [key]: value }));
  const toggle = (key: 'accountIds' | 'transactionTypes' | 'currencies', value: string) =>
    setDraft((current) => ({
      ...current,
      [key]: current[key].includes(value)
        ? current[key].filter((item) => item !== value)
        : [...current[key], value],
    }));
  const count = activeFilterCount(draft);

  return (
    <form
      role="search"
      aria-label="Filter transactions"
      className="filter-bar"
      onSubmit={(event) => event.preventDefault()}
    >
      <div className="filter-row">
        <Field id={`${id}-text`} label="Search" error={errors['freeText']} className="field compact grow">
          {(props) => (
            <input
              {...props}
              type="search"
              data-search-input
              placeholder="Counterparty, account or id  (/)"
              title="Searches the counterparty and its account number, the transaction's id and its group's id. Press / to come here."
              value={draft.freeText}
              onChange={(event) => set('freeText', event.target.value)}
              onKeyDown={(event) => escapeToList(event, list)}
            />
          )}
        </Field>
        <Field id={`${id}-from`} label="Booked from" error={errors['bookingDateFrom']}>
          {(props) => (
            <input
              {...props}
              type="date"
              value={draft.bookingDateFrom}
              onChange={(event) => set('bookingDateFrom', event.target.value)}
            />
          )}
        </Field>
        <Field id={`${id}-to`} label="Booked to" error={errors['bookingDateTo']}>
          {(props) => (
            <input
              {...props}
              type="date"
              value={draft.bookingDateTo}
              onChange={(event) => set('bookingDateTo', event.target.value)}
            />
          )}
        </Field>
        <TriState
          id={`${id}-matched`}
          label="Matched"
          value={draft.matched}
          onChange={(v) => set('matched', v)}
        />
        <TriState
          id={`${id}-reviewed`}
          label="Reviewed"
          value={draft.reviewed}
          onChange={(v) => set('reviewed', v)}
        />
        <TriState
          id={`${id}-flagged`}
          label="Flagged"
          value={draft.flagged}
          onChange={(v) => set('flagged', v)}
        />
        <div className="filter-buttons">
          <button
            type="button"
            aria-expanded={more}
            aria-controls={`${id}-more`}
            onClick={() => setMore(!more)}
          >
            {more ? 'Fewer filters' : 'More filters'}
          </button>
          <button type="button" disabled={count === 0} onClick={() => setDraft(EMPTY_DRAFT)}>
            Clear{count > 0 ? ` (${count})` : ''}
          </button>
        </div>
      </div>
      <div id={`${id}-more`} className="filter-more" hidden={!more}>
        <TriState
          id={`${id}-note`}
          label="Has a note"
          value={draft.hasNote}
          onChange={(v) => set('hasNote', v)}
        />
        <Field id={`${id}-tag`} label="Tag" error={errors['tag']}>
          {(props) => (
            <input {...props} value={draft.tag} onChange={(event) => set('tag', event.target.value)} />
          )}
        </Field>
        <fieldset className="amount-range">
          <legend>Amount</legend>
          <Field id={`${id}-amount-currency`} label="Currency" error={errors['amount.currency']}>
            {(props) => (
              <select
                {...props}
                value={draft.amountCurrency}
                onChange={(event) => set('amountCurrency', event.target.value)}
              >
                <option value="">Choose…</option>
                {currencies.map((currency) => (
                  <option key={currency}>{currency}</option>
                ))}
              </select>
            )}
          </Field>
          <Field id={`${id}-amount-min`} label="From" error={errors['amount.min']}>
            {(props) => (
              <input
                {...props}
                inputMode="decimal"
                size={8}
                value={draft.amountMin}
                onChange={(event) => set('amountMin', event.target.value)}
              />
            )}
          </Field>
          <Field id={`${id}-amount-max`} label="To" error={errors['amount.max']}>
            {(props) => (
              <input
                {...props}
                inputMode="decimal"
                size={8}
                value={draft.amountMax}
                onChange={(event) => set('amountMax', event.target.value)}
              />
            )}
          </Field>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.ignoreSign}
              onChange={(event) => set('ignoreSign', event.target.checked)}
            />{' '}
            Ignore sign
          </label>
        </fieldset>
        <fieldset className="checks">
          <legend>Type</legend>
          {TransactionType.options.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={draft.transactionTypes.includes(type)}
                onChange={() => toggle('transactionTypes', type)}
              />{' '}
              {humanize(type)}
            </label>
          ))}
        </fieldset>
        <fieldset className="checks">
          <legend>Currency</legend>
          {currencies.map((currency) => (
            <label key={currency} className="check">
              <input
                type="checkbox"
                checked={draft.currencies.includes(currency)}
                onChange={() => toggle('currencies', currency)}
              />{' '}
              {currency}
            </label>
          ))}
        </fieldset>
        <fieldset className="checks">
          <legend>Account</legend>
          {accounts.map((account) => (
            <label key={account.id} className="check">
              <input
                type="checkbox"
                checked={draft.accountIds.includes(account.id)}
                onChange={() => toggle('accountIds', account.id)}
              />{' '}
              {account.name ?? account.id} {account.currency ? `(${account.currency})` : ''}
            </label>
          ))}
        </fieldset>
        <Field id={`${id}-ids`} label="Ids" error={errors['ids']} hint="Separate ids with spaces or commas.">
          {(props) => (
            <input {...props} value={draft.ids} onChange={(event) => set('ids', event.target.value)} />
          )}
        </Field>
        <label className="check">
          <input
            type="checkbox"
            checked={draft.includeDeleted}
            onChange={(event) => set('includeDeleted', event.target.checked)}
          />{' '}
          Include deleted
        </label>
      </div>
    </form>
  );
}
