import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { AppError } from '../../../src-shared/errors';
import { layoutFolders, renderFileName, type FileFacts } from '../../../src-shared/file-template';
import {
  DEFAULT_TEMPLATE,
  DownloadScope,
  NamingTemplate,
  TEMPLATE_TOKENS,
  type DownloadJobShape,
  type DownloadLayout,
  type TemplateToken,
} from '../../../src-shared/files';
import { Field, PathField, RadioGroup } from '../../components/fields';
import { trapTab, useModal } from '../../components/modal';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { call } from '../../lib/satchel';
import './files.css';

/** A scope the dialog offers besides "every file" and a date range (a selection, a search). */
export interface ScopeChoice {
  id: string;
  label: string;
  scope: DownloadScope;
}

const LAYOUTS: Array<{ value: DownloadLayout; label: string; hint: string }> = [
  { value: 'flat', label: 'One folder', hint: 'Every file side by side.' },
  { value: 'month', label: 'By month', hint: 'A folder per booking month: 2026-03/.' },
  { value: 'account', label: 'By bank account', hint: 'A folder per account.' },
  { value: 'supplier', label: 'By supplier', hint: 'A folder per supplier or merchant.' },
];

const TOKEN_HINTS: Record<TemplateToken, string> = {
  bookingDate: 'booking date',
  counterparty: 'counterparty',
  amount: 'amount, exact',
  currency: 'currency',
  expenseId: 'expense id',
  originalName: 'name as uploaded',
  transactionId: 'transaction id',
  fileId: 'file id',
  supplier: 'supplier',
  account: 'bank account',
};

/** What the example name is made of: a hotel receipt of a card payment. */
const SAMPLE: FileFacts = {
  fileId: 'file_8d2c41',
  originalName: 'Hotel invoice.pdf',
  mimeType: 'application/pdf',
  expenseId: 'exp_1042',
  transactionId: 'tx_5531',
  bookingDate: '2026-03-01',
  counterparty: 'Hotel Adler',
  amountMinor: -18_450,
  currency: 'EUR',
  account: 'Main account',
  supplier: 'Hotel Adler GmbH',
};

const REMEMBERED = 'satchel.downloads.last';

/**
 * The template and layout of the last download started: the likely next ones. The folder is
 * not kept here: the core remembers the last one picked (`downloads.defaultFolder`), as only a
 * folder picked in its dialog is written to.
 */
interface Remembered {
  template: string;
  layout: DownloadLayout;
}

function remembered(): Remembered {
  const fallback: Remembered = { template: DEFAULT_TEMPLATE, layout: 'flat' };
  try {
    const value = JSON.parse(localStorage.getItem(REMEMBERED) ?? 'null') as Partial<Remembered> | null;
    if (!value) return fallback;
    return {
      template: typeof value.template === 'string' ? value.template : DEFAULT_TEMPLATE,
      layout: LAYOUTS.some((layout) => layout.value === value.layout)
        ? (value.layout as DownloadLayout)
        : 'flat',
    };
  } catch {
    return fallback;
  }
}

/** The form's field a core error names: "scope.from" is the scope, "template" the template. */
function fieldOfError(error: unknown): string {
  if (!(error instanceof AppError) || !error.field) return 'form';
  const field = error.field.split('.')[0] ?? 'form';
  return ['scope', 'destination', 'template', 'layout'].includes(field) ? field : 'form';
}

/** The example name for a template, or null while the template is invalid. */
export function exampleName(template: string, layout: DownloadLayout): string | null {
  const parsed = NamingTemplate.safeParse(template);
  if (!parsed.success) return null;
  return [...layoutFolders(layout, SAMPLE), renderFileName(parsed.data, SAMPLE)].join('/');
}

/**
 * The bulk download dialog: which files, where to, how to name them and how to file them.
 * A modal <dialog>: the page behind is inert, Esc closes it, and focus goes back to the
 * control that opened it. The template is checked with the core's own schema as it is typed;
 * what only the core can tell (a folder it cannot write, a scope without files) comes back
 * with its field and is shown there.
 */
export function DownloadDialog({
  profileId,
  choices = [],
  initialChoice,
  onClose,
  onStarted,
}: {
  profileId: string;
  /** Scopes offered before "every file" and "a date range" (a selection, a search result). */
  choices?: ScopeChoice[];
  initialChoice?: string;
  onClose(): void;
  /** `waitingForNetwork`: made, but there is no network; it starts by itself when it is back. */
  onStarted(job: DownloadJobShape, resumed: boolean, waitingForNetwork: boolean): void;
}) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const templateInput = useRef<HTMLInputElement>(null);
  const [initial] = useState(remembered);
  const [choice, setChoice] = useState(initialChoice ?? choices[0]?.id ?? 'all');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [destination, setDestination] = useState('');
  const [template, setTemplate] = useState(initial.template);
  const [layout, setLayout] = useState<DownloadLayout>(initial.layout);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  // The download's queue is kept in the offline copy: a read-only one cannot start it (the
  // dialog stays, with what was typed, should the copy turn read-only while it is open).
  const readOnly = useReadOnly();

  useModal(dialog);

  // The folder picked last, kept by the core across restarts, unless one was picked meanwhile.
  useEffect(() => {
    let open = true;
    call('downloads.defaultFolder', {})
      .then(({ folder }) => {
        if (open && folder) setDestination((current) => current || folder);
      })
      .catch(() => undefined); // none then: the user chooses one
    return () => {
      open = false;
    };
  }, []);

  const templateCheck = NamingTemplate.safeParse(template);
  const templateError = templateCheck.success ? errors['template'] : templateCheck.error.issues[0]?.message;
  const example = exampleName(template, layout);

  const scopeOf = (): DownloadScope | string => {
    const preset = choices.find((candidate) => candidate.id === choice);
    if (preset) return preset.scope;
    if (choice === 'all') return { by: 'all' };
    const parsed = DownloadScope.safeParse({
      by: 'dateRange',
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    });
    return parsed.success ? parsed.data : (parsed.error.issues[0]?.message ?? 'Check the dates.');
  };

  const pickFolder = async () => {
    try {
      const { folder } = await call('dialog.pickFolder', { title: 'Download files to' });
      if (folder) {
        setDestination(folder);
        setErrors(({ destination: _dropped, ...rest }) => rest);
      }
    } catch (error) {
      setErrors((current) => ({ ...current, destination: (error as Error).message }));
    }
  };

  const insertToken = (token: TemplateToken) => {
    const input = templateInput.current;
    const start = input?.selectionStart ?? template.length;
    const end = input?.selectionEnd ?? template.length;
    const text = `{${token}}`;
    setTemplate(template.slice(0, start) + text + template.slice(end));
    requestAnimationFrame(() => {
      input?.focus();
      input?.setSelectionRange(start + text.length, start + text.length);
    });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next: Record<string, string> = {};
    const scope = scopeOf();
    if (typeof scope === 'string') next['scope'] = scope;
    if (destination === '') next['destination'] = 'Choose the folder the files go to.';
    if (!templateCheck.success)
      next['template'] = templateCheck.error.issues[0]?.message ?? 'Check the template.';
    setErrors(next);
    if (Object.keys(next).length > 0 || typeof scope === 'string') {
      const first = Object.keys(next)[0];
      dialog.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
      return;
    }
    setBusy(true);
    try {
      const started = await call('downloads.start', {
        profileId,
        scope,
        destination,
        template,
        layout,
      });
      localStorage.setItem(REMEMBERED, JSON.stringify({ template, layout } satisfies Remembered));
      onStarted(started.job, started.resumed, started.waitingForNetwork);
      dialog.current?.close();
    } catch (error) {
      const field = fieldOfError(error);
      setErrors({ [field]: error instanceof Error ? error.message : String(error) });
      dialog.current?.querySelector<HTMLElement>(`[data-field="${field}"]`)?.focus();
    } finally {
      setBusy(false);
    }
  };

  const scopeError = errors['scope'];
  return (
    <dialog
      ref={dialog}
      className="dialog download-dialog"
      aria-labelledby={`${id}-title`}
      onClose={onClose}
      onKeyDown={trapTab}
      data-testid="download-dialog"
    >
      <form onSubmit={(event) => void submit(event)} noValidate>
        <h2 id={`${id}-title`}>Download files</h2>
        <fieldset
          className="download-group"
          aria-describedby={scopeError ? `${id}-scope-error` : undefined}
          aria-invalid={scopeError ? true : undefined}
        >
          <legend>Files of</legend>
          {[
            ...choices.map((candidate) => ({ id: candidate.id, label: candidate.label })),
            { id: 'all', label: 'Every file of the organisation' },
            { id: 'dateRange', label: 'A booking-date range' },
          ].map((option, index) => (
            <label key={option.id} className="check">
              <input
                type="radio"
                name={`${id}-scope`}
                value={option.id}
                checked={choice === option.id}
                onChange={() => setChoice(option.id)}
                data-field={index === 0 ? 'scope' : undefined}
              />
              {option.label}
            </label>
          ))}
          {choice === 'dateRange' && (
            <div className="date-range">
              <div className="field compact">
                <label htmlFor={`${id}-from`}>From</label>
                <input id={`${id}-from`} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
              </div>
              <div className="field compact">
                <label htmlFor={`${id}-to`}>To</label>
                <input id={`${id}-to`} type="date" value={to} onChange={(e) => setTo(e.target.value)} />
              </div>
              <p className="hint">
                Both days included; a file without a transaction counts on its expense’s date. Leave a side
                empty for no limit.
              </p>
            </div>
          )}
          {scopeError && (
            <p className="field-error" id={`${id}-scope-error`}>
              {scopeError}
            </p>
          )}
        </fieldset>

        <PathField
          id={`${id}-destination`}
          label="Destination folder"
          field="destination"
          value={destination}
          placeholder="No folder chosen yet"
          error={errors['destination']}
          onChoose={() => void pickFolder()}
        />

        <Field
          id={`${id}-template`}
          label="File names"
          error={templateError}
          className="field"
          hint="Tokens in braces are replaced by each file’s values; the extension is kept."
        >
          {(props) => (
            <input
              {...props}
              ref={templateInput}
              data-field="template"
              className="mono"
              value={template}
              spellCheck={false}
              onChange={(event) => {
                setTemplate(event.target.value);
                setErrors(({ template: _dropped, ...rest }) => rest);
              }}
            />
          )}
        </Field>
        <div className="tokens" role="group" aria-label="Insert a token">
          {TEMPLATE_TOKENS.map((token) => (
            <button
              key={token}
              type="button"
              className="token"
              title={TOKEN_HINTS[token]}
              aria-label={`Insert {${token}}: ${TOKEN_HINTS[token]}`}
              onClick={() => insertToken(token)}
            >
              {`{${token}}`}
            </button>
          ))}
          <button type="button" className="token reset" onClick={() => setTemplate(DEFAULT_TEMPLATE)}>
            Default
          </button>
        </div>

        <RadioGroup<DownloadLayout>
          legend="Folders"
          name={`${id}-layout`}
          className="download-group layouts"
          options={LAYOUTS.map((option) => ({
            value: option.value,
            label: (
              <span>
                {option.label} <span className="muted">— {option.hint}</span>
              </span>
            ),
          }))}
          value={layout}
          onChange={setLayout}
        />

        <p className="example" data-testid="example-name">
          <span className="muted">Example: </span>
          {example ? (
            <span className="mono">{example}</span>
          ) : (
            <span className="muted">fix the file names first</span>
          )}
        </p>

        {errors['form'] && (
          <p className="form-error" role="alert">
            {errors['form']}
          </p>
        )}
        <div className="actions end">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="primary" {...writeControl(readOnly, busy)}>
            {busy ? 'Starting…' : 'Start download'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
