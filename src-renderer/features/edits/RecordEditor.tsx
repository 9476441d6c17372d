import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { z } from 'zod';
import { Field } from '../../components/fields';
import { useReadOnly, writeControl } from '../../lib/read-only';
import { fieldOf, payloadOf, type FieldSpec, type PayloadMode, type RecordValues } from './forms';

/** The form's errors for an answer of the core: on the field it names, or on the form. */
function errorsOf(error: Error | null, fields: FieldSpec[]): Record<string, string> {
  if (!error) return {};
  const field = fieldOf(error);
  // A field the form does not show (the dimension of an item, say) is the form's error.
  return field && fields.some((spec) => spec.key === field)
    ? { [field]: error.message }
    : { form: error.message };
}

/** The first message of each field the schema refuses in `payload` (or the form's own). */
function issuesOf(schema: z.ZodType, payload: Record<string, unknown>, fields: FieldSpec[]) {
  const parsed = schema.safeParse(payload);
  const found: Record<string, string> = {};
  if (parsed.success) return found;
  for (const issue of parsed.error.issues) {
    const key = String(issue.path[0] ?? 'form');
    found[fields.some((spec) => spec.key === key) ? key : 'form'] ??= issue.message;
  }
  return found;
}

/**
 * Create or change a supplier, dimension or dimension item. The API's own request schema
 * (with the app's checks of a supplier's VAT id, IBAN and BIC) checks the form first, so a
 * mistake is named on its field before anything is queued: a changed field as soon as the user
 * leaves it, all of them on Save, which then puts the cursor on the first field at fault. What
 * only the outbox or the server knows (a code already taken) comes back with its field and is
 * shown there too. A field the user did not change is not sent, so not checked.
 */
export function RecordEditor({
  fields,
  schema,
  initial,
  mode,
  title,
  busy,
  serverError,
  initialErrors,
  warnings,
  onSubmit,
  onCancel,
}: {
  fields: FieldSpec[];
  /** The API's create or update request schema. */
  schema: z.ZodType;
  initial: RecordValues;
  mode: PayloadMode;
  title: string;
  busy: boolean;
  serverError: Error | null;
  /** Errors the form opens with, by field (a refused edit's field). */
  initialErrors?: Record<string, string>;
  /** Warnings by field that do not stop saving (a BIC of another country than the IBAN's). */
  warnings?: (
    fields: FieldSpec[],
    values: RecordValues,
    initial: RecordValues,
    mode: PayloadMode,
  ) => Record<string, string>;
  onSubmit(payload: Record<string, unknown>): void;
  onCancel(): void;
}) {
  const id = useId();
  const readOnly = useReadOnly();
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState(() => ({ ...initialErrors, ...errorsOf(serverError, fields) }));
  const first = useRef<HTMLInputElement>(null);

  const [shownError, setShownError] = useState(serverError);
  // A new answer from the core lands on its field (adjusting state while rendering, not in an effect).
  if (serverError !== shownError) {
    setShownError(serverError);
    if (serverError) setErrors(errorsOf(serverError, fields));
  }

  useEffect(() => first.current?.focus(), []);

  const inputOf = (key: string) => document.getElementById(`${id}-${key}`);
  /** A field checked on its own, as it stands in `next`: its error set, or cleared. */
  const checkField = (key: string, next: RecordValues) => {
    const payload = payloadOf(fields, next, initial, mode);
    const message = key in payload ? issuesOf(schema, payload, fields)[key] : undefined;
    setErrors((shown) => {
      const { [key]: _old, ...rest } = shown;
      return message ? { ...rest, [key]: message } : rest;
    });
  };
  const change = (key: string, value: string) => {
    const next = { ...values, [key]: value };
    setValues(next);
    // A field marked wrong is checked again as it is typed, so the mark goes once it is right.
    if (errors[key]) checkField(key, next);
  };
  const shownWarnings = warnings?.(fields, values, initial, mode) ?? {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const payload = payloadOf(fields, values, initial, mode);
    if (Object.keys(payload).length === 0) {
      setErrors({ form: 'Nothing changed.' });
      return;
    }
    const next = issuesOf(schema, payload, fields);
    if (Object.keys(next).length > 0) {
      setErrors(next);
      const wrong = fields.find((spec) => next[spec.key]);
      if (wrong) inputOf(wrong.key)?.focus();
      return;
    }
    setErrors({});
    onSubmit(payload);
  };

  return (
    <form className="editor" aria-label={title} onSubmit={submit} noValidate>
      <h2>{title}</h2>
      {fields.map((field, index) => (
        <Field
          key={field.key}
          id={`${id}-${field.key}`}
          label={field.label}
          error={errors[field.key]}
          warning={shownWarnings[field.key]}
          className="field"
          {...(field.hint ? { hint: field.hint } : {})}
        >
          {(props) =>
            field.options ? (
              <select
                {...props}
                name={field.key}
                value={values[field.key] ?? ''}
                onChange={(event) => change(field.key, event.target.value)}
              >
                {field.options.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            ) : (
              <input
                {...props}
                ref={index === 0 ? first : undefined}
                name={field.key}
                value={values[field.key] ?? ''}
                onChange={(event) => change(field.key, event.target.value)}
                onBlur={() => checkField(field.key, values)}
              />
            )
          }
        </Field>
      ))}
      {errors['form'] && (
        <p className="form-error" role="alert">
          {errors['form']}
        </p>
      )}
      <div className="actions">
        {/* Off with the reason once the copy turns read-only; what was typed stays for Check again. */}
        <button type="submit" className="primary" {...writeControl(readOnly, busy)}>
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

/** The pane beside a list that holds its editor; Esc anywhere in it closes it (`onClose`). */
export function EditorPane({
  label,
  onClose,
  children,
}: {
  label: string;
  onClose(): void;
  children: ReactNode;
}) {
  return (
    <aside
      className="pane"
      aria-label={label}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onClose();
        }
      }}
    >
      {children}
    </aside>
  );
}
