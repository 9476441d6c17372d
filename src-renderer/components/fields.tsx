import type { ReactNode, RefObject } from 'react';
import { escapeToList } from '../lib/keys';

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

/**
 * A labelled input with its error shown on it (aria-invalid, described by the message), and a
 * warning that does not stop saving (described by it too).
 */
export function Field({
  id,
  label,
  error,
  warning,
  children,
  hint,
  className = 'field compact',
}: {
  id: string;
  label: string;
  error?: string | undefined;
  warning?: string | undefined;
  hint?: string;
  className?: string;
  children: (props: {
    id: string;
    'aria-invalid': true | undefined;
    'aria-describedby': string | undefined;
  }) => ReactNode;
}) {
  const described = [error ? `${id}-error` : hint ? `${id}-hint` : '', warning ? `${id}-warning` : '']
    .filter(Boolean)
    .join(' ');
  const describedBy = described === '' ? undefined : described;
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
      {warning && (
        <p className="field-warning" id={`${id}-warning`}>
          {warning}
        </p>
      )}
    </div>
  );
}

/**
 * A path chosen with the system's dialog ("Choose…"), with its error on it. The field shows the
 * path read-only (it can be selected and copied) and is never typed into: the core writes and
 * reads only where the user picked in its dialog (docs/shell.md, "Paths the page may name").
 */
export function PathField({
  id,
  label,
  field,
  value,
  placeholder,
  error,
  onChoose,
}: {
  id: string;
  label: string;
  /** The `data-field` the form focuses when this field is at fault. */
  field: string;
  value: string;
  /** What the empty field says: that nothing is chosen yet. */
  placeholder: string;
  error?: string | undefined;
  onChoose(): void;
}) {
  return (
    <Field id={id} label={label} error={error} className="field">
      {(props) => (
        <div className="folder-row">
          <input
            {...props}
            readOnly
            data-field={field}
            className="mono"
            value={value}
            placeholder={placeholder}
            spellCheck={false}
          />
          <button type="button" onClick={onChoose}>
            Choose…
          </button>
        </div>
      )}
    </Field>
  );
}

/** One choice of several, as radio buttons in a fieldset with its legend. */
export function RadioGroup<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  className = 'download-group',
}: {
  legend: string;
  name: string;
  options: ReadonlyArray<{ value: T; label: ReactNode }>;
  value: T;
  onChange(value: T): void;
  className?: string;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className="check">
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The area's search box: `/` focuses it (any `[data-search-input]`), Esc goes to its list. */
export function SearchField({
  id,
  label,
  placeholder,
  searches,
  value,
  onChange,
  list,
}: {
  id: string;
  label: string;
  /** Short enough to fit the field at the smallest window (test/e2e/search-hints.test.ts). */
  placeholder: string;
  /** What the search looks in, whole: the field's tooltip and accessible description. */
  searches: string;
  value: string;
  onChange(value: string): void;
  /** The list it searches: Esc gives it the focus, the text kept. */
  list: RefObject<HTMLElement | null>;
}) {
  return (
    <div className="field compact grow">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        data-search-input
        placeholder={placeholder}
        title={searches}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => escapeToList(event, list)}
      />
    </div>
  );
}
