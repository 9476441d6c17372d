import { parseArgs } from 'node:util';
import { formatAmount, type MinorMoney } from '../../src-shared/money';
import {
  TransactionSearch,
  TransactionSortField,
  type TransactionSearchInput,
  type TransactionSearchResult,
} from '../../src-shared/search';
import { counted } from '../../src-shared/counted';
import type { Core } from '../core';
import { searchTransactions } from '../search';
import {
  chooseProfile,
  countOption,
  transactionFilterOptions,
  transactionFilters,
  transactionFilterUsage,
} from './filters';
import { type CliIo, optionError, table, UsageError } from './io';

export const searchUsage = `satchel search [--profile NAME_OR_ID] ${transactionFilterUsage}
               [--sort FIELD] [--asc] [--page N] [--page-size N] [--json]`;

/** Bank transactions of the cache, offline, with the same filters as the app. */
export async function searchCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: 'string' },
      ...transactionFilterOptions,
      sort: { type: 'string', default: 'bookingDate' },
      asc: { type: 'boolean', default: false },
      page: { type: 'string', default: '1' },
      'page-size': { type: 'string', default: '50' },
      json: { type: 'boolean', default: false },
    },
  });
  const field = TransactionSortField.safeParse(values.sort);
  if (!field.success) throw new UsageError(`--sort takes one of ${TransactionSortField.options.join(', ')}`);
  const profile = chooseProfile(core, values.profile);
  const input: TransactionSearchInput = {
    filters: transactionFilters(core, profile.id, values),
    sorting: { field: field.data, direction: values.asc ? 'ASC' : 'DESC' },
    pagination: {
      page: countOption('page', values.page, { min: 1, max: 1_000_000 }),
      pageSize: countOption('page-size', values['page-size'], { min: 1, max: 500 }),
    },
  };
  const parsed = TransactionSearch.safeParse(input);
  if (!parsed.success) throw optionError(parsed.error);
  const result = searchTransactions(core.cacheOf(profile.id), parsed.data);

  if (values.json) {
    io.stdout.write(`${JSON.stringify(withDecimals(result), null, 2)}\n`);
    return;
  }
  const rows = result.rows.map((row) => [
    row.bookingDate,
    `${formatAmount(row.amount.minor, row.amount.currency)} ${row.amount.currency}`,
    row.counterparty ?? '',
    row.matched ? 'matched' : 'unmatched',
    row.id,
  ]);
  // Only the rows on stdout, so that `| wc -l` counts them; the totals are for the reader.
  if (rows.length > 0)
    io.stdout.write(table([['BOOKED', 'AMOUNT', 'COUNTERPARTY', 'MATCHED', 'ID'], ...rows]));
  if (result.totals) {
    const sums = result.totals.sums
      .map((sum) => `${formatAmount(sum.minor, sum.currency)} ${sum.currency}`)
      .join(', ');
    const { count } = result.totals;
    io.stderr.write(
      `${counted(count, 'transaction', 'transactions')}${sums ? ` · ${sums}` : ''} · page ${result.page}\n`,
    );
  }
}

/**
 * Each amount of the page and its totals also as the wire writes it, a decimal string in major
 * units (`"amount": "-1234.56"`), beside its integer minor units and currency: a script needs
 * no table of currency decimals to read it, and no float ever comes near it.
 */
function withDecimals(result: TransactionSearchResult) {
  const decimal = <T extends MinorMoney>(money: T) => ({
    ...money,
    amount: formatAmount(money.minor, money.currency),
  });
  return {
    ...result,
    rows: result.rows.map((row) => ({ ...row, amount: decimal(row.amount) })),
    ...(result.totals ? { totals: { ...result.totals, sums: result.totals.sums.map(decimal) } } : {}),
  };
}
