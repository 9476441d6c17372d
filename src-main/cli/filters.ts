import type { ParseArgsConfig } from 'node:util';
import type { ProfileSummary } from '../../src-shared/profiles';
import { TransactionType } from '../../src-shared/api/bank';
import { IsoDate, type TransactionSearchInput } from '../../src-shared/search';
import { AppError } from '../../src-shared/errors';
import type { Core } from '../core';
import { UsageError } from './io';

/** The organisation a command works on: the one named, or the only one connected. */
export function chooseProfile(core: Core, nameOrId: string | undefined): ProfileSummary {
  if (nameOrId) return profileOption(core, nameOrId);
  const profiles = core.profiles.list();
  const [profile] = profiles;
  if (!profile) throw new UsageError('no organisation is connected; add one with "satchel profile add"');
  if (profiles.length > 1)
    throw new UsageError('several organisations are connected; choose one with --profile');
  return profile;
}

/** The organisation `--profile` names: one that is not connected is a mistake of usage. */
export function profileOption(core: Core, nameOrId: string): ProfileSummary {
  try {
    return core.profiles.get(nameOrId);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND')
      throw new UsageError(
        `--profile: no organisation called "${nameOrId}" is connected ("satchel profile list" shows them)`,
      );
    throw error;
  }
}

const RECORD_TABLES = {
  transaction: 'bank_transactions',
  expense: 'expenses',
  file: 'expense_files',
} as const;

/**
 * Ids given on the command line that are no record of that kind in the offline copy (mistyped,
 * or not yet synced) stop the command before it does anything: left out, they went unnoticed
 * (`review mark` said "0 records changed", `download` fetched the others' files). Ids are
 * matched in any case, as the commands match them.
 */
export function checkKnownIds(
  core: Core,
  profileId: string,
  kind: keyof typeof RECORD_TABLES,
  ids: string[],
  { option, outcome }: { option: string; outcome: string },
): void {
  const known = new Set(
    (
      core
        .cacheOf(profileId)
        .sqlite.prepare(
          `SELECT lower(id) AS id FROM ${RECORD_TABLES[kind]} WHERE lower(id) IN (SELECT lower(value) FROM json_each(?))`,
        )
        .all(JSON.stringify(ids)) as Array<{ id: string }>
    ).map((row) => row.id),
  );
  const unknown = [...new Set(ids)].filter((id) => !known.has(id.toLowerCase()));
  if (unknown.length === 0) return;
  const shown = unknown.slice(0, 3).join(', ') + (unknown.length > 3 ? ', …' : '');
  throw new AppError(
    'NOT_FOUND',
    `--${option}: No ${kind} with ${unknown.length === 1 ? 'the id' : `${unknown.length} of the ids`} ${shown} in the offline copy; ${outcome}`,
  );
}

/** Transaction search filters as command-line options, shared by `search` and `export`. */
export const transactionFilterOptions = {
  text: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  account: { type: 'string', multiple: true },
  matched: { type: 'string' },
  reviewed: { type: 'string' },
  flagged: { type: 'string' },
  tag: { type: 'string' },
  type: { type: 'string', multiple: true },
  currency: { type: 'string', multiple: true },
  'min-amount': { type: 'string' },
  'max-amount': { type: 'string' },
  'ignore-sign': { type: 'boolean' },
  'has-note': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export const transactionFilterUsage = `[--text T] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--account ID]...
               [--matched true|false] [--reviewed true|false] [--flagged true|false] [--tag T]
               [--type TYPE]... [--currency CUR]... [--min-amount D] [--max-amount D] [--ignore-sign]
               [--has-note true|false]`;

export function yesNo(option: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError(`--${option} takes true or false`);
  return value === 'true';
}

/** A date option, checked here so that a mistake names the option rather than a filter. */
function dateOption(option: string, value: string | undefined): string | undefined {
  if (value === undefined || IsoDate.safeParse(value).success) return value;
  throw new UsageError(`--${option} takes a calendar date as YYYY-MM-DD, not "${value}"`);
}

/** A whole-number option such as `--page`, checked here so that a mistake is a usage error. */
export function countOption(
  option: string,
  value: string,
  { min, max }: { min: number; max: number },
): number {
  const count = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < min || count > max)
    throw new UsageError(`--${option} takes a whole number from ${min} to ${max}, not "${value}"`);
  return count;
}

interface FilterValues {
  text?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  account?: string[] | undefined;
  matched?: string | undefined;
  reviewed?: string | undefined;
  flagged?: string | undefined;
  tag?: string | undefined;
  type?: string[] | undefined;
  currency?: string[] | undefined;
  'min-amount'?: string | undefined;
  'max-amount'?: string | undefined;
  'ignore-sign'?: boolean | undefined;
  'has-note'?: string | undefined;
}

/**
 * The amount range: decimal bounds read in the one currency given with `--currency` (the
 * app's filter bar asks for that currency the same way), optionally regardless of sign.
 */
function amountRange(values: FilterValues): { amount: Record<string, unknown> } | object {
  const min = values['min-amount'];
  const max = values['max-amount'];
  if (min === undefined && max === undefined) {
    if (values['ignore-sign']) throw new UsageError('--ignore-sign goes with --min-amount or --max-amount');
    return {};
  }
  const currencies = values.currency ?? [];
  if (currencies.length !== 1)
    throw new UsageError(
      `--${min !== undefined ? 'min' : 'max'}-amount needs exactly one --currency to read the amount in`,
    );
  return {
    amount: {
      currency: currencies[0]!.toUpperCase(),
      ...(min !== undefined ? { min } : {}),
      ...(max !== undefined ? { max } : {}),
      ...(values['ignore-sign'] ? { ignoreSign: true } : {}),
    },
  };
}

/** The transaction types `--type` takes, in any case. */
function transactionTypes(values: string[] | undefined): string[] | undefined {
  return values?.map((value) => {
    const type = TransactionType.safeParse(value.toUpperCase());
    if (!type.success)
      throw new UsageError(`--type takes one of ${TransactionType.options.join(', ')}, not "${value}"`);
    return type.data;
  });
}

/**
 * Bank accounts named with `--account`, each one the offline copy holds: an id mistyped or not
 * yet synced found nothing, as if the account had no transactions.
 */
function bankAccountIds(core: Core, profileId: string, ids: string[] | undefined): string[] | undefined {
  if (ids === undefined) return undefined;
  // In any case, as the search matches them.
  const known = core
    .cacheOf(profileId)
    .sqlite.prepare('SELECT 1 FROM bank_accounts WHERE lower(id) = lower(?)')
    .pluck();
  const unknown = ids.find((id) => known.get(id) === undefined);
  if (unknown !== undefined)
    throw new UsageError(
      `--account: no bank account ${unknown} in the offline copy ("satchel account list" shows them; sync if it is new)`,
    );
  return ids;
}

/**
 * Options to filters; the shared schema checks the values themselves, but for the dates, which
 * are checked here to name the option, the types, read in any case, and the bank accounts,
 * looked up in the organisation's offline copy. `toOption` is the end date's name (`download`
 * says `--until`, its `--to` being the folder).
 */
export function transactionFilters(
  core: Core,
  profileId: string,
  values: FilterValues,
  toOption = 'to',
): NonNullable<TransactionSearchInput['filters']> {
  dateOption('from', values.from);
  dateOption(toOption, values.to);
  const types = transactionTypes(values.type);
  const accountIds = bankAccountIds(core, profileId, values.account);
  const flags = {
    matched: yesNo('matched', values.matched),
    reviewed: yesNo('reviewed', values.reviewed),
    flagged: yesNo('flagged', values.flagged),
    hasNote: yesNo('has-note', values['has-note']),
  };
  return {
    ...(values.text !== undefined ? { freeText: values.text } : {}),
    ...(values.from !== undefined ? { bookingDateFrom: values.from } : {}),
    ...(values.to !== undefined ? { bookingDateTo: values.to } : {}),
    ...(accountIds ? { accountIds } : {}),
    ...(flags.matched !== undefined ? { matched: flags.matched } : {}),
    ...(flags.reviewed !== undefined ? { reviewed: flags.reviewed } : {}),
    ...(flags.flagged !== undefined ? { flagged: flags.flagged } : {}),
    ...(flags.hasNote !== undefined ? { hasNote: flags.hasNote } : {}),
    ...amountRange(values),
    ...(values.tag !== undefined ? { tag: values.tag } : {}),
    ...(types ? { transactionTypes: types } : {}),
    ...(values.currency ? { currencies: values.currency.map((code) => code.toUpperCase()) } : {}),
  } as NonNullable<TransactionSearchInput['filters']>;
}

/** Expense search filters as command-line options, shared by `expense list` and `export expenses`. */
export const expenseFilterOptions = {
  text: { type: 'string' },
  reviewed: { type: 'string' },
  flagged: { type: 'string' },
  tag: { type: 'string' },
  'has-note': { type: 'string' },
  'has-file': { type: 'string' },
  'booked-on': { type: 'string' },
  account: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export const expenseFilterUsage = `[--text T] [--reviewed true|false] [--flagged true|false] [--tag T]
               [--has-note true|false] [--has-file true|false] [--booked-on DIMENSION_ITEM_ID]
               [--account NUMBER]`;

interface ExpenseFilterValues {
  text?: string | undefined;
  reviewed?: string | undefined;
  flagged?: string | undefined;
  tag?: string | undefined;
  'has-note'?: string | undefined;
  'has-file'?: string | undefined;
  'booked-on'?: string | undefined;
  account?: string | undefined;
}

/**
 * Options to expense filters; the dimension item and the expense account are looked up in the
 * offline copy (the filter needs the item's dimension and the account's id). The shared schema
 * checks the rest.
 */
export function expenseFilters(
  core: Core,
  profileId: string,
  values: ExpenseFilterValues,
): Record<string, unknown> {
  const flags = {
    reviewed: yesNo('reviewed', values.reviewed),
    flagged: yesNo('flagged', values.flagged),
    hasNote: yesNo('has-note', values['has-note']),
    hasFile: yesNo('has-file', values['has-file']),
  };
  return {
    ...(values.text !== undefined ? { text: values.text } : {}),
    ...(values.tag !== undefined ? { tag: values.tag } : {}),
    ...Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined)),
    ...(values['booked-on'] !== undefined
      ? { bookedOn: bookedOn(core, profileId, values['booked-on']) }
      : {}),
    ...(values.account !== undefined
      ? { expenseAccountId: expenseAccountId(core, profileId, values.account) }
      : {}),
  };
}

/** The dimension of an item named on the command line, from the offline copy. */
function bookedOn(core: Core, profileId: string, itemId: string): { dimensionId: string; itemId: string } {
  const row = core
    .cacheOf(profileId)
    .sqlite.prepare('SELECT dimension_id AS dimensionId, id AS itemId FROM dimension_items WHERE id = ?')
    .get(itemId) as { dimensionId: string; itemId: string } | undefined;
  if (!row)
    throw new UsageError(
      `--booked-on: no dimension item ${itemId} in the offline copy (satchel dimension list --items DIMENSION_ID)`,
    );
  return row;
}

/** An expense account named on the command line by its number (or id), from the offline copy. */
function expenseAccountId(core: Core, profileId: string, account: string): string {
  const id = core
    .cacheOf(profileId)
    .sqlite.prepare(
      'SELECT id FROM expense_accounts WHERE deleted_at IS NULL AND (code = ? OR id = ?) ORDER BY code = ? DESC LIMIT 1',
    )
    .pluck()
    .get(account, account, account) as string | undefined;
  if (id === undefined) throw new UsageError(`--account: no expense account ${account} in the offline copy`);
  return id;
}
