import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { AppError } from '../../../src-shared/errors';
import { FILLING_ELSEWHERE_MESSAGE, type OfflineUsage } from '../../../src-shared/files';
import { Field } from '../../components/fields';
import { formatCount } from '../../lib/format';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { useCommand } from '../../lib/query';
import { call } from '../../lib/satchel';
import { filesOf, formatByteSize } from './format';
import { parseOfflineForm } from './offline-form';

const GIB = 1024 ** 3;

type Mode = OfflineUsage['scope']['mode'];

/** The budget as the field shows it: gigabytes, at most two decimals. */
const budgetText = (bytes: number) => String(Math.round((bytes / GIB) * 100) / 100);

/**
 * What this organisation keeps offline without being opened (none, the last N days, all),
 * within a disk budget, and how full that cache is. Saving starts a fill in the background.
 * The usage is read when the section is shown, and again on the core's word, never on a
 * timer: the fill says when it starts, as files land (a few times a second at most) and when it
 * ends (`files.offline`), a sync when it finishes, the app when it is online again (lib/live.ts).
 */
export function OfflineSection({ profileId }: { profileId: string }) {
  const usage = useCommand('files.offlineScope.get', { profileId });
  const data = usage.data;
  return (
    <section className="offline" aria-labelledby="offline-title">
      <h2 id="offline-title">Kept offline</h2>
      <p className="muted">
        Receipts kept on this computer open without a network. Files opened in Transactions or Expenses are
        kept too; the oldest make room when the budget is full.
      </p>
      {usage.error && (
        <p className="form-error" role="alert">
          {usage.error.message}
        </p>
      )}
      {data && (
        <>
          <OfflineForm profileId={profileId} usage={data} />
          <OfflineUsageFacts usage={data} />
        </>
      )}
    </section>
  );
}

function OfflineForm({ profileId, usage }: { profileId: string; usage: OfflineUsage }) {
  const id = useId();
  const client = useQueryClient();
  const [mode, setMode] = useState<Mode>(usage.scope.mode);
  const [days, setDays] = useState(String(usage.scope.days));
  const [budget, setBudget] = useState(budgetText(usage.scope.budgetBytes));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  // The setting is kept in the offline copy, and filling writes beside it: off while read-only.
  const readOnly = useReadOnly();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const parsed = parseOfflineForm({ mode, days, budget }, usage.scope.days);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const next = await call('files.offlineScope.set', { profileId, scope: parsed.scope });
      client.setQueryData(['files.offlineScope.get', { profileId }], next);
      setSaved(true);
    } catch (error) {
      const field = error instanceof AppError && error.field ? error.field.split('.').at(-1) : undefined;
      setErrors({
        [field && ['days', 'budgetBytes'].includes(field) ? field : 'form']: (error as Error).message,
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="offline-form"
      aria-labelledby="offline-title"
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <fieldset className="download-group" disabled={readOnly !== null}>
        <legend>Keep offline</legend>
        <label className="check">
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === 'none'}
            onChange={() => setMode('none')}
          />
          Only the files I open
        </label>
        <label className="check">
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === 'recent'}
            onChange={() => setMode('recent')}
          />
          Files of the last days
        </label>
        <label className="check">
          <input type="radio" name={`${id}-mode`} checked={mode === 'all'} onChange={() => setMode('all')} />
          Every file
        </label>
      </fieldset>
      <div className="offline-numbers">
        <Field id={`${id}-days`} label="Days" error={errors['days']} hint="Counted back from today.">
          {(props) => (
            <input
              {...props}
              inputMode="numeric"
              disabled={mode !== 'recent' || readOnly !== null}
              value={days}
              onChange={(event) => setDays(event.target.value)}
            />
          )}
        </Field>
        <Field
          id={`${id}-budget`}
          label="Disk budget (GB)"
          error={errors['budgetBytes']}
          hint="At most this much on disk."
        >
          {(props) => (
            <input
              {...props}
              inputMode="decimal"
              disabled={readOnly !== null}
              value={budget}
              onChange={(event) => setBudget(event.target.value)}
            />
          )}
        </Field>
      </div>
      <div className="actions">
        <button type="submit" className="primary" {...writeControl(readOnly, busy)}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {saved && (
          <span className="muted" role="status">
            Saved. Satchel fills the cache in the background.
          </span>
        )}
      </div>
      {errors['form'] && (
        <p className="form-error" role="alert">
          {errors['form']}
        </p>
      )}
    </form>
  );
}

function OfflineUsageFacts({ usage }: { usage: OfflineUsage }) {
  const budgetShare = usage.scope.budgetBytes > 0 ? usage.cachedBytes / usage.scope.budgetBytes : 0;
  return (
    <dl className="facts offline-usage" data-testid="offline-usage">
      <dt>On this computer</dt>
      <dd>
        {formatCount(usage.cachedFiles)} {usage.cachedFiles === 1 ? 'file' : 'files'},{' '}
        {formatByteSize(usage.cachedBytes)} of {formatByteSize(usage.scope.budgetBytes)} (
        {new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 }).format(budgetShare)}
        )
      </dd>
      <dt>Wanted by the setting</dt>
      <dd>
        {usage.scope.mode === 'none'
          ? 'none'
          : `${filesOf(usage.wantedCached, usage.wantedFiles)} on this computer`}
      </dd>
      <dt>Filling</dt>
      <dd>
        <span role="status">{fillState(usage)}</span>
      </dd>
    </dl>
  );
}

/** Where the filling stands; why the last fill left files out, when it did. */
function fillState(usage: OfflineUsage): string {
  if (usage.filling) return 'Fetching the missing files…';
  if (usage.fillingElsewhere) return FILLING_ELSEWHERE_MESSAGE;
  if (usage.wantedCached >= usage.wantedFiles) return 'Up to date';
  const last = usage.lastFill;
  if (last?.problem) return `The last fill stopped: ${last.problem} The rest comes with the next sync.`;
  if (last && last.failed > 0)
    return `${formatCount(last.failed)} ${last.failed === 1 ? 'file' : 'files'} could not be fetched (the download broke off, the file came damaged, or the server refused it); the next sync tries again.`;
  return 'The rest comes with the next sync.';
}
