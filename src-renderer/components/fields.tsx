import type { ReactNode } from 'react';

/** A yes / no / any choice for a boolean filter. */
export function TriState({
  id,
  label,
  value,
  onChange,
  yes = 'Yes',
  no = 'No',
}: {
  id: string;
  label: string;
  value: boolean | undefined;
  onChange(value: boolean | undefined): void;
  yes?: string;
  no?: string;
}) {
  return (
    <div className="field compact">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value === undefined ? '' : String(value)}
        onChange={(event) => onChange(event.target.value === '' ? undefined : event.target.value === 'true')}
      >
        <option value="">Any</option>
        <option value="true">{yes}</option>
        <option value="false">{no}</option>
      </select>
    </div>
  );
}

/** A labelled input with its error shown on it (aria-invalid, described by the message). */
export function Field({
  id,
  label,
  error,
  children,
  hint,
  className = 'field compact',
}: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  className?: string;
  children: (props: {
    id: string;
    'aria-invalid': true | undefined;
    'aria-describedby': string | undefined;
  }) => ReactNode;
}) {
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className={className}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint && !error && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
