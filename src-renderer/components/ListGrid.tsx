import type { KeyboardEvent, ReactNode, Ref } from 'react';
import { revealOnKeyboardFocus } from '../lib/list-focus';

/**
 * A short list (one page of rows) as a keyboard grid driven by `useListKeys`: the table keeps
 * focus, the active row is its aria-activedescendant, a click makes a row active.
 */
export function ListGrid<T>({
  gridRef,
  label,
  idPrefix,
  rows,
  rowKey,
  keys,
  head,
  children,
  testId,
}: {
  gridRef?: Ref<HTMLTableElement>;
  label: string;
  /** Row element ids are `${idPrefix}-${index}`. */
  idPrefix: string;
  rows: readonly T[];
  rowKey(row: T): string;
  keys: {
    active: number;
    setActive(index: number): void;
    onKeyDown(event: KeyboardEvent<HTMLElement>): void;
  };
  /** The header cells. */
  head: ReactNode;
  /** A row's cells. */
  children(row: T, index: number): ReactNode;
  testId?: string;
}) {
  return (
    <table
      ref={gridRef}
      className="list-grid"
      role="grid"
      aria-label={label}
      tabIndex={0}
      aria-activedescendant={rows.length > 0 ? `${idPrefix}-${keys.active}` : undefined}
      onKeyDown={keys.onKeyDown}
      onFocus={(event) => {
        if (event.target === event.currentTarget) revealOnKeyboardFocus(event.currentTarget);
      }}
      data-testid={testId}
    >
      <thead>
        <tr>{head}</tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr
            key={rowKey(row)}
            id={`${idPrefix}-${index}`}
            aria-selected={index === keys.active}
            data-active={index === keys.active || undefined}
            onClick={() => keys.setActive(index)}
          >
            {children(row, index)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A badge after a name, with the space before it outside the badge. */
export function Badge({ kind, title, children }: { kind?: string; title?: string; children: ReactNode }) {
  return (
    <>
      {' '}
      <span className={kind ? `badge badge-${kind}` : 'badge'} title={title}>
        {children}
      </span>
    </>
  );
}
