import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { AppError } from '../../../src-shared/errors';
import type { CsvFormatInput } from '../../../src-shared/export';
import type {
  ExpenseFilters,
  ExpenseSorting,
  TransactionFilters,
  TransactionSorting,
} from '../../../src-shared/search';
import { PathField, RadioGroup } from '../../components/fields';
import { trapTab, useModal } from '../../components/modal';
import { formatCount, formatCounted } from '../../lib/format';
import { newId } from '../../lib/new-id';
import { call } from '../../lib/satchel';
import '../files/files.css';

type Separators = 'locale' | 'comma' | 'semicolon';

const REMEMBERED = 'satchel.export.separators';

/** -1234.50 as a language writes it without grouping: what the amounts in the file look like. */
function sampleAmount(locale: string): string {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, useGrouping: false }).format(-1234.5);
}

function formatOf(separators: Separators, locale: string): CsvFormatInput {
  if (separators === 'comma') return { delimiter: ',', decimalSeparator: '.' };
  if (separators === 'semicolon') return { delimiter: ';', decimalSeparator: ',' };
  return { locale };
}

/** "Transactions 2026-11-24.csv": the name the system's save dialog suggests. */
function suggestedName(what: string): string {
  const day = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const title = what.charAt(0).toUpperCase() + what.slice(1);
  return `${title} ${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}.csv`;
}

/** The search whose whole result is exported: transactions or expenses, filters and order. */
export type ExportedSearch =
  | { kind: 'transaction'; filters: TransactionFilters; sorting: TransactionSorting }
  | { kind: 'expense'; filters: ExpenseFilters; sorting: ExpenseSorting };

/**
 * Exports the whole result of the current search as CSV (the core's `transactions.exportCsv`
 * or `expenses.exportCsv`): the file, chosen with the system's save dialog (the core writes
 * only a file picked there, once); the separators, by default as this computer's language
 * writes numbers (`;` and `,` for German Excel). The export's progress is
 * shown while it runs, and "Stop export" ends it with nothing written (`export.cancel`); a file
 * already there is replaced only when the user said so, in the system dialog or here.
 */
export function ExportDialog({
  profileId,
  search,
  total,
  onClose,
  onDone,
  onFailed,
}: {
  profileId: string;
  search: ExportedSearch;
  total: number;
  onClose(): void;
  onDone(message: string): void;
  /** An export that failed after the dialog was closed ("Close" while it ran): the opener says so. */
  onFailed(message: string): void;
}) {
  const id = useId();
  const noun =
    search.kind === 'transaction'
      ? { one: 'transaction', other: 'transactions' }
      : { one: 'expense', other: 'expenses' };
  const dialog = useRef<HTMLDialogElement>(null);
  const locale = navigator.language || 'en-US';
  const [file, setFile] = useState('');
  const [replace, setReplace] = useState(false);
  const [separators, setSeparators] = useState<Separators>(() => {
    const stored = localStorage.getItem(REMEMBERED);
    return stored === 'comma' || stored === 'semicolon' ? stored : 'locale';
  });
  const [error, setError] = useState<{ field: 'file' | 'form'; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ written: number; total: number } | null>(null);
  const [stopping, setStopping] = useState(false);
  // Said once an export was stopped here: no file was written, the dialog stays to try again.
  const [stopped, setStopped] = useState<string | null>(null);
  // The id of the export this dialog started, sent with the command: another export of the
  // organisation (one this dialog started and was closed on) may run at the same time.
  const running = useRef<string | null>(null);

  useModal(dialog);
  // Closed while the export runs, the dialog is gone when the answer comes: its outcome is then
  // the opener's to tell, or a failure would go unsaid.
  const shown = useRef(true);
  useEffect(
    () => () => {
      shown.current = false;
    },
    [],
  );

  useEffect(
    () =>
      window.satchel.on('export.progress', (event) => {
        if (event.profileId === profileId && event.exportId === running.current)
          setProgress({ written: event.written, total: event.total });
      }),
    [profileId],
  );

  const choose = async () => {
    try {
      const picked = await call('dialog.pickFile', {
        purpose: search.kind === 'transaction' ? 'transactionsCsv' : 'expensesCsv',
        suggestedName: suggestedName(noun.other),
      });
      if (picked.file) {
        setFile(picked.file);
        // The system's save dialog has asked before replacing a file.
        setReplace(true);
        setError(null);
      }
    } catch (problem) {
      setError({ field: 'file', message: (problem as Error).message });
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (file === '') {
      setError({ field: 'file', message: 'Choose the file to write.' });
      dialog.current?.querySelector<HTMLElement>('[data-field="file"]')?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    setStopped(null);
    setProgress(null);
    try {
      const exportId = newId();
      running.current = exportId;
      const target = { file, format: formatOf(separators, locale), overwrite: replace, exportId };
      const result =
        search.kind === 'transaction'
          ? await call('transactions.exportCsv', {
              profileId,
              search: { filters: search.filters, sorting: search.sorting },
              ...target,
            })
          : await call('expenses.exportCsv', {
              profileId,
              search: { filters: search.filters, sorting: search.sorting },
              ...target,
            });
      localStorage.setItem(REMEMBERED, separators);
      onDone(`${formatCounted(result.rows, noun)} written to ${result.file}.`);
      dialog.current?.close();
    } catch (problem) {
      if (problem instanceof AppError && problem.code === 'CANCELLED') {
        if (shown.current) setStopped(problem.message);
        return;
      }
      if (!shown.current) {
        onFailed(`The export of ${noun.other} failed: ${(problem as Error).message}`);
        return;
      }
      const field = problem instanceof AppError && problem.field === 'file' ? 'file' : 'form';
      setError({ field, message: (problem as Error).message });
      if (field === 'file') dialog.current?.querySelector<HTMLElement>('[data-field="file"]')?.focus();
    } finally {
      running.current = null;
      if (shown.current) {
        setBusy(false);
        setStopping(false);
      }
    }
  };

  /** Stops this dialog's export between two batches of rows (`export.cancel`). */
  const stop = async () => {
    const exportId = running.current;
    if (!exportId || stopping) return;
    setStopping(true);
    try {
      await call('export.cancel', { profileId, exportId });
    } catch (problem) {
      setStopping(false);
      setError({ field: 'form', message: (problem as Error).message });
    }
  };

  const localeSample = sampleAmount(locale);
  const options: Array<{ value: Separators; label: string }> = [
    {
      value: 'locale',
      label: `As this computer’s language writes numbers (${localeSample}, separated by ${
        localeSample.includes(',') ? 'semicolons' : 'commas'
      })`,
    },
    { value: 'comma', label: 'Commas, with a decimal point (-1234.50)' },
    { value: 'semicolon', label: 'Semicolons, with a decimal comma (-1234,50): Excel in German, French, …' },
  ];

  return (
    <dialog
      ref={dialog}
      className="dialog download-dialog"
      aria-labelledby={`${id}-title`}
      onClose={onClose}
      onKeyDown={trapTab}
      data-testid="export-dialog"
    >
      <form onSubmit={(event) => void submit(event)} noValidate>
        <h2 id={`${id}-title`}>Export as CSV</h2>
        <p className="muted">
          {total === 1
            ? `The 1 ${noun.one} of this search, with its review marks.`
            : `All ${formatCounted(total, noun)} of this search, in its order, with their review marks.`}{' '}
          UTF-8, ISO dates, exact amounts.
        </p>
        <PathField
          id={`${id}-file`}
          label="File"
          field="file"
          value={file}
          placeholder="No file chosen yet"
          error={error?.field === 'file' ? error.message : undefined}
          onChoose={() => void choose()}
        />
        <label className="check">
          <input type="checkbox" checked={replace} onChange={(event) => setReplace(event.target.checked)} />
          Replace the file if it is already there
        </label>
        <RadioGroup<Separators>
          legend="Separators"
          name={`${id}-separators`}
          options={options}
          value={separators}
          onChange={setSeparators}
        />
        {busy && (
          <p className="muted" role="status" data-testid="export-progress">
            {progress
              ? `Exporting ${formatCount(progress.written)} of ${formatCount(progress.total)}…`
              : 'Exporting…'}
          </p>
        )}
        {stopped && (
          <p className="muted" role="status" data-testid="export-stopped">
            {stopped}
          </p>
        )}
        {error?.field === 'form' && (
          <p className="form-error" role="alert">
            {error.message}
          </p>
        )}
        <div className="actions end">
          {busy && (
            <button
              type="button"
              aria-disabled={stopping || undefined}
              onClick={() => void stop()}
              data-testid="export-stop"
            >
              {stopping ? 'Stopping…' : 'Stop export'}
            </button>
          )}
          <button type="button" onClick={() => dialog.current?.close()}>
            {busy ? 'Close' : 'Cancel'}
          </button>
          <button type="submit" className="primary" aria-disabled={busy || undefined}>
            {busy ? 'Exporting…' : 'Export'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
