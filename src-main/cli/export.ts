import path from 'node:path';
import { parseArgs } from 'node:util';
import { ExpenseCsvExport, TransactionCsvExport, type CsvFormatInput } from '../../src-shared/export';
import { ExpenseSortField, TransactionSortField } from '../../src-shared/search';
import { counted } from '../../src-shared/counted';
import type { Core } from '../core';
import {
  csvFormat,
  exportExpenses,
  exportTransactions,
  streamExpensesCsv,
  streamTransactionsCsv,
  type CsvSink,
} from '../export';
import type { CsvStreamOptions } from '../export/csv';
import {
  chooseProfile,
  expenseFilterOptions,
  expenseFilters,
  expenseFilterUsage,
  transactionFilterOptions,
  transactionFilters,
  transactionFilterUsage,
} from './filters';
import { type CliIo, namingOption, onInterrupt, optionError, UsageError } from './io';
import { statusLine, type StatusLine } from './status-line';

export const exportUsage = `satchel export --out FILE.csv|- [--profile NAME_OR_ID] ${transactionFilterUsage}
               [--sort FIELD] [--asc] [--locale de-DE] [--delimiter ,|;|tab] [--decimal .|,] [--force]
satchel export expenses --out FILE.csv|- [--profile NAME_OR_ID] ${expenseFilterUsage}
               [--sort expenseTime|updateTime|amount|id]
               [--asc] [--locale de-DE] [--delimiter ,|;|tab] [--decimal .|,] [--force]`;

/** Options every CSV export takes: where, in which order, which separators, replace or not. */
const commonOptions = {
  profile: { type: 'string' },
  out: { type: 'string' },
  asc: { type: 'boolean', default: false },
  locale: { type: 'string' },
  delimiter: { type: 'string' },
  decimal: { type: 'string' },
  force: { type: 'boolean', default: false },
} as const;

interface CommonValues {
  out?: string | undefined;
  locale?: string | undefined;
  delimiter?: string | undefined;
  decimal?: string | undefined;
  force: boolean;
}

const TRANSACTIONS = { one: 'transaction', other: 'transactions' };
const EXPENSES = { one: 'expense', other: 'expenses' };

/** `--out -`: the CSV on standard output, for a pipe; the summary then goes to stderr. */
const STDOUT = '-';

/** The file, separators and overwrite choice as the export schemas take them. */
function target(values: CommonValues) {
  if (!values.out) throw new UsageError('--out FILE.csv (or - for standard output) is required');
  if (values.out === STDOUT && values.force)
    throw new UsageError('--force replaces a file; "--out -" writes to standard output');
  if (values.delimiter !== undefined && ![',', ';', 'tab'].includes(values.delimiter))
    throw new UsageError(`--delimiter takes , or ; or tab, not "${values.delimiter}"`);
  if (values.decimal !== undefined && !['.', ','].includes(values.decimal))
    throw new UsageError(`--decimal takes . or , not "${values.decimal}"`);
  const delimiter = values.delimiter === 'tab' ? '\t' : values.delimiter;
  return {
    file: path.resolve(values.out),
    format: {
      ...(values.locale !== undefined ? { locale: values.locale } : {}),
      ...(delimiter !== undefined ? { delimiter } : {}),
      ...(values.decimal !== undefined ? { decimalSeparator: values.decimal } : {}),
    },
    overwrite: values.force,
  };
}

/**
 * Hands the CSV to standard output a piece at a time, waiting while the reader is behind; a
 * reader gone (`| head`) aborts the signal (cli.ts), and the export stops at its next batch.
 * Onto a terminal, the progress line is cleared before each piece, so that the rows never
 * follow its text; it is shown again below them.
 */
function stdoutSink(io: CliIo, status: StatusLine): CsvSink {
  return (text) =>
    new Promise((resolve) => {
      if (io.stdout.isTTY === true) status.clear();
      if (io.signal?.aborted || io.stdout.write(text)) return resolve();
      const done = () => {
        io.stdout.off('drain', done);
        io.stdout.off('close', done);
        io.signal?.removeEventListener('abort', done);
        resolve();
      };
      io.stdout.on('drain', done);
      io.stdout.on('close', done);
      io.signal?.addEventListener('abort', done, { once: true });
    });
}

/** The options of an export into standard output. */
function streamOptions(io: CliIo, format: CsvFormatInput, progress: Progress): CsvStreamOptions {
  const { onProgress, signal, status } = progress;
  return {
    format: csvFormat(format),
    sink: stdoutSink(io, status),
    onProgress,
    ...(signal ? { signal } : {}),
  };
}

/** What `run` hands an export: where its progress goes, and its Ctrl+C. */
interface Progress {
  onProgress: (written: number, total: number) => void;
  signal: AbortSignal | undefined;
  status: StatusLine;
}

/** Progress on an interactive terminal (a status line), then the summary line. */
async function run(
  io: CliIo,
  what: { one: string; other: string },
  exporting: (progress: Progress) => Promise<{ file?: string; rows: number; bytes: number }>,
): Promise<void> {
  const status = statusLine(io);
  // Ctrl+C stops the export between two batches and removes its temporary file: no file, no
  // half file. Into standard output, what was written is written; the exit status says 130.
  const release = onInterrupt(io, () => undefined);
  // Ended however the export ends: its last state stays readable above the summary or error.
  const result = await exporting({
    onProgress: (written, total) => status.show(`exporting ${written} of ${total} ${what.other}`),
    signal: io.signal,
    status,
  })
    .catch((error: unknown) => {
      throw namingOption(error, { file: 'out' });
    })
    .finally(() => {
      release();
      status.end();
    });
  const rows = counted(result.rows, what.one, what.other);
  if (result.file === undefined)
    io.stderr.write(`${rows} written to standard output (${result.bytes} bytes)\n`);
  else io.stdout.write(`${rows} written to ${result.file} (${result.bytes} bytes)\n`);
}

/** The whole result of a transaction (or, with `expenses`, an expense) search as CSV. */
export async function exportCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  if (args[0] === 'expenses') return exportExpensesCommand(core, args.slice(1), io);
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...commonOptions,
      ...transactionFilterOptions,
      sort: { type: 'string', default: 'bookingDate' },
    },
  });
  const field = TransactionSortField.safeParse(values.sort);
  if (!field.success) throw new UsageError(`--sort takes one of ${TransactionSortField.options.join(', ')}`);
  const profile = chooseProfile(core, values.profile);
  const request = {
    profileId: profile.id,
    search: {
      filters: transactionFilters(core, profile.id, values),
      sorting: { field: field.data, direction: values.asc ? 'ASC' : 'DESC' },
    },
    ...target(values),
  };
  if (values.out === STDOUT) {
    const { file: _file, overwrite: _overwrite, ...rest } = request;
    const piped = TransactionCsvExport.omit({ file: true, overwrite: true }).safeParse(rest);
    if (!piped.success) throw optionError(piped.error);
    return run(io, TRANSACTIONS, (progress) =>
      streamTransactionsCsv(
        core.cacheOf(profile.id),
        piped.data.search,
        streamOptions(io, piped.data.format, progress),
      ),
    );
  }
  const parsed = TransactionCsvExport.safeParse(request);
  if (!parsed.success) throw optionError(parsed.error, { file: 'out' });
  const { profileId: _profileId, ...input } = parsed.data;
  await run(io, TRANSACTIONS, ({ onProgress, signal }) =>
    exportTransactions(core.cacheOf(profile.id), input, onProgress, signal),
  );
}

async function exportExpensesCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...commonOptions,
      ...expenseFilterOptions,
      sort: { type: 'string', default: 'expenseTime' },
    },
  });
  const field = ExpenseSortField.safeParse(values.sort);
  if (!field.success) throw new UsageError(`--sort takes one of ${ExpenseSortField.options.join(', ')}`);
  const profile = chooseProfile(core, values.profile);
  const request = {
    profileId: profile.id,
    search: {
      filters: expenseFilters(core, profile.id, values),
      sorting: { field: field.data, direction: values.asc ? 'ASC' : 'DESC' },
    },
    ...target(values),
  };
  if (values.out === STDOUT) {
    const { file: _file, overwrite: _overwrite, ...rest } = request;
    const piped = ExpenseCsvExport.omit({ file: true, overwrite: true }).safeParse(rest);
    if (!piped.success) throw optionError(piped.error);
    return run(io, EXPENSES, (progress) =>
      streamExpensesCsv(
        core.cacheOf(profile.id),
        piped.data.search,
        streamOptions(io, piped.data.format, progress),
      ),
    );
  }
  const parsed = ExpenseCsvExport.safeParse(request);
  if (!parsed.success) throw optionError(parsed.error, { file: 'out' });
  const { profileId: _profileId, ...input } = parsed.data;
  await run(io, EXPENSES, ({ onProgress, signal }) =>
    exportExpenses(core.cacheOf(profile.id), input, onProgress, signal),
  );
}
