import { createContext, useContext } from 'react';

/**
 * Why the organisation shown cannot be written to (its offline copy is read-only: a read-only
 * disk, changed permissions), as the banner says it; null when it can. The controls that would
 * write (Sync, edits, review marks, downloads) stay shown but disabled, with this reason as their
 * description (docs/screens.md, "A read-only offline copy").
 */
export const ReadOnlyContext = createContext<string | null>(null);

/** The id of the banner's text, which each disabled control names as its description. */
export const READ_ONLY_REASON_ID = 'read-only-reason';

export function useReadOnly(): string | null {
  return useContext(ReadOnlyContext);
}

/**
 * The props that turn a control off while the copy is read-only, with the reason (a tooltip and
 * its accessible description); `disabled` when it is off for its own reasons too.
 */
export function writeControl(
  readOnly: string | null,
  disabled = false,
): { disabled: boolean; title?: string; 'aria-describedby'?: string } {
  if (readOnly === null) return { disabled };
  return { disabled: true, title: readOnly, 'aria-describedby': READ_ONLY_REASON_ID };
}
