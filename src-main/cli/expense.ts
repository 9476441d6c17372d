import { parseArgs } from 'node:util';
import { formatAmount } from '../../src-shared/money';
import { ExpenseSearch, ExpenseSortField, type ExpenseSearchInput } from '../../src-shared/search';
import type { Core } from '../core';
import { searchExpenses } from '../search';
import {
  chooseProfile,
  countOption,
  expenseFilterOptions,
  expenseFilters,
  expenseFilterUsage,
} from './filters';
import { type CliIo, optionError, table, UsageError } from './io';
import { cell, jsonText } from './json';

export const expenseUsage = `satchel expense list [--profile NAME_OR_ID] ${expenseFilterUsage}
               [--all] [--sort FIELD] [--asc] [--page N] [--page-size N] [--json]`;

/**
 * The expenses of the offline copy, a page at a time, with the filters of the Expenses list
 * and of `export expenses`; nothing is asked of the network.
 */
export async function expenseCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'list') throw new UsageError(`expense takes list${action ? `, not "${action}"` : ''}`);
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      profile: { type: 'string' },
      ...expenseFilterOptions,
      all: { type: 'boolean', default: false },
      sort: { type: 'string', default: 'expenseTime' },
      asc: { type: 'boolean', default: false },
      page: { type: 'string', default: '1' },
      'page-size': { type: 'string', default: '50' },
      json: { type: 'boolean', default: false },
    },
  });
  const field = ExpenseSortField.safeParse(values.sort);
  if (!field.success) throw new UsageError(`--sort takes one of ${ExpenseSortField.options.join(', ')}`);
  const profile = chooseProfile(core, values.profile);
  const input: ExpenseSearchInput = {
    filters: {
      ...expenseFilters(core, profile.id, values),
      ...(values.all ? { includeDeleted: true } : {}),
    },
    sorting: { field: field.data, direction: values.asc ? 'ASC' : 'DESC' },
    pagination: {
      page: countOption('page', values.page, { min: 1, max: 1_000_000 }),
      pageSize: countOption('page-size', values['page-size'], { min: 1, max: 500 }),
    },
  };
  const parsed = ExpenseSearch.safeParse(input);
  if (!parsed.success) throw optionError(parsed.error);
  const result = searchExpenses(core.cacheOf(profile.id), parsed.data);

  if (values.json) {
    io.stdout.write(jsonText(result));
    return;
  }
  // Only the rows on stdout, so that `| wc -l` counts them; the count is for the reader.
  if (result.rows.length > 0)
    io.stdout.write(
      table([
        ['DATE', 'AMOUNT', 'SUPPLIER', 'STATUS', 'FILES', 'ID'],
        ...result.rows.map((row) => [
          row.expenseTime?.slice(0, 10) ?? '',
          row.amount ? `${formatAmount(row.amount.minor, row.amount.currency)} ${row.amount.currency}` : '',
          cell(row.supplierName ?? row.merchantName),
          `${row.status ?? ''}${row.deletedAt ? ' (deleted)' : ''}`,
          String(row.fileCount),
          row.id,
        ]),
      ]),
    );
  io.stderr.write(`${result.total} ${result.total === 1 ? 'expense' : 'expenses'} · page ${result.page}\n`);
}
