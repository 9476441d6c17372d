import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { SupplierCreate, SupplierUpdate } from '../../../src-shared/api/suppliers';
import { AppError } from '../../../src-shared/errors';
import type { SupplierRow } from '../../../src-shared/search';
import { Field } from '../../components/fields';

export interface SupplierValues {
  name: string;
  code: string;
  status: string;
  vatIdNo: string;
  iban: string;
  bic: string;
  currency: string;
}

const BLANK: SupplierValues = {
  name: '',
  code: '',
  status: 'ACTIVE',
  vatIdNo: '',
  iban: '',
  bic: '',
  currency: '',
};

export function valuesOf(row: SupplierRow | null): SupplierValues {
  if (!row) return BLANK;
  return {
    ...BLANK,
    name: row.name ?? '',
    code: row.number ?? '',
    status: row.status ?? 'ACTIVE',
    vatIdNo: row.vatIdNo ?? '',
    iban: row.iban ?? '',
  };
}

/** The payload: on create every filled field; on update only what changed from `initial`. */
export function payloadOf(values: SupplierValues, initial: SupplierValues, creating: boolean) {
  const payload: Record<string, unknown> = {};
  for (const key of Object.keys(values) as (keyof SupplierValues)[]) {
    const value = values[key].trim();
    if (!creating && value === initial[key].trim()) continue;
    if (creating && value === '') continue;
    const nullable = key === 'vatIdNo' || key === 'iban' || key === 'bic';
    payload[key] = value === '' && nullable ? null : value;
  }
  return payload;
}

/** Which field an error names: "input.code" and "code" are both the code field. */
export function fieldOf(error: unknown): string | undefined {
  if (!(error instanceof AppError) || !error.field) return undefined;
  return error.field.split('.').at(-1);
}

/**
 * Create or change a supplier. The API's own schema checks the form first, so a mistake is
 * named on its field before anything is queued; what only the outbox or the server knows (a
 * code already taken) comes back with its field and is shown there too.
 */
export function SupplierEditor({
  supplier,
  initialValues,
  title,
  busy,
  serverError,
  onSubmit,
  onCancel,
}: {
  supplier: SupplierRow | null;
  initialValues?: SupplierValues;
  title: string;
  busy: boolean;
  serverError: Error | null;
  onSubmit(payload: Record<string, unknown>): void;
  onCancel(): void;
}) {
  const id = useId();
  const initial = initialValues ?? valuesOf(supplier);
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const first = useRef<HTMLInputElement>(null);
  const creating = supplier === null;

  useEffect(() => first.current?.focus(), []);
  useEffect(() => {
    const field = fieldOf(serverError);
    if (serverError) setErrors(field ? { [field]: serverError.message } : { form: serverError.message });
  }, [serverError]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const payload = payloadOf(values, initial, creating);
    if (!creating && Object.keys(payload).length === 0) {
      setErrors({ form: 'Nothing changed.' });
      return;
    }
    const parsed = (creating ? SupplierCreate : SupplierUpdate).safeParse(payload);
    if (!parsed.success) {
      const next: Record<string, string> = {};
      for (const issue of parsed.error.issues) next[String(issue.path[0] ?? 'form')] ??= issue.message;
      setErrors(next);
      return;
    }
    setErrors({});
    onSubmit(payload);
  };
  const input = (key: keyof SupplierValues, label: string, hint?: string) => (
    <Field
      id={`${id}-${key}`}
      label={label}
      error={errors[key]}
      className="field"
      {...(hint ? { hint } : {})}
    >
      {(props) => (
        <input
          {...props}
          ref={key === 'name' ? first : undefined}
          name={key}
          value={values[key]}
          onChange={(event) => setValues({ ...values, [key]: event.target.value })}
        />
      )}
    </Field>
  );

  return (
    <form className="editor" aria-label={title} onSubmit={submit} noValidate>
      <h2>{title}</h2>
      {input('name', 'Name')}
      {input('code', 'Supplier number', 'Required unless the ERP numbers suppliers.')}
      <Field id={`${id}-status`} label="Status" error={errors['status']} className="field">
        {(props) => (
          <select
            {...props}
            value={values.status}
            onChange={(event) => setValues({ ...values, status: event.target.value })}
          >
            <option value="ACTIVE">Active</option>
            <option value="DEACTIVATED">Deactivated</option>
            <option value="DELETED">Deleted</option>
          </select>
        )}
      </Field>
      {input('vatIdNo', 'VAT id')}
      {input('iban', 'IBAN')}
      {input('bic', 'BIC')}
      {input('currency', 'Currency', creating ? 'EUR when left empty.' : 'Left empty: unchanged.')}
      {errors['form'] && (
        <p className="form-error" role="alert">
          {errors['form']}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p className="hint">
        Saved at once in the offline copy; sent to the organisation with the next push or sync.
      </p>
    </form>
  );
}
