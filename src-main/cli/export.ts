import path from 'node:path';
import { parseArgs } from 'node:util';
import { TransactionCsvExport } from '../../src-shared/export';
import { validationError } from '../../src-shared/errors';
import { TransactionSortField } from '../../src-shared/search';
import type { Core } from '../core';
import { exportTransactions } from '../export';
import {
  chooseProfile,
  transactionFilterOptions,
  transactionFilters,
  transactionFilterUsage,
} from './filters';
import { UsageError, type CliIo } from './io';

export const exportUsage = `satchel export --out FILE.csv [--profile NAME_OR_ID] ${transactionFilterUsage}
               [--sort FIELD] [--asc] [--locale de-DE] [--delimiter ,|;|tab] [--decimal .|,] [--force]`;

/** The whole result of a transaction search as CSV, with the review columns. */
export async function exportCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: 'string' },
      out: { type: 'string' },
      ...transactionFilterOptions,
      sort: { type: 'string', default: 'bookingDate' },
      asc: { type: 'boolean', default: false },
      locale: { type: 'string' },
      delimiter: { type: 'string' },
      decimal: { type: 'string' },
      force: { type: 'boolean', default: false },
    },
  });
  if (!values.out) throw new UsageError('--out FILE.csv is required');
  const field = TransactionSortField.safeParse(values.sort);
  if (!field.success) throw new UsageError(`--sort takes one of ${TransactionSortField.options.join(', ')}`);
  const profile = chooseProfile(core, values.profile);
  const delimiter = values.delimiter === 'tab' ? '\t' : values.delimiter;
  const parsed = TransactionCsvExport.safeParse({
    profileId: profile.id,
    search: {
      filters: transactionFilters(values),
      sorting: { field: field.data, direction: values.asc ? 'ASC' : 'DESC' },
    },
    file: path.resolve(values.out),
    format: {
      ...(values.locale !== undefined ? { locale: values.locale } : {}),
      ...(delimiter !== undefined ? { delimiter } : {}),
      ...(values.decimal !== undefined ? { decimalSeparator: values.decimal } : {}),
    },
    overwrite: values.force,
  });
  if (!parsed.success) throw validationError(parsed.error);
  const { profileId: _profileId, ...input } = parsed.data;
  const interactive = 'isTTY' in io.stderr && io.stderr.isTTY === true;
  const result = await exportTransactions(core.cacheOf(profile.id), input, (written, total) => {
    if (interactive) io.stderr.write(`\rexporting ${written} of ${total} transactions`);
  });
  if (interactive) io.stderr.write('\n');
  io.stdout.write(`${result.rows} transactions written to ${result.file} (${result.bytes} bytes)\n`);
}
