import { useRef } from 'react';
import { useModifierShortcut } from '../lib/platform';
import { trapTab, useModal } from './modal';

/** The page's shortcuts, the modifier ones written with `shortcut` ("Ctrl+1…8", "⌘1…8"). */
export const shortcuts = (shortcut: (key: string) => string): Array<{ keys: string[]; what: string }> => [
  { keys: ['↑', '↓', 'j', 'k'], what: 'Move between rows' },
  { keys: ['Home', 'End', 'PgUp', 'PgDn'], what: 'Jump to the first, last or next screen of rows' },
  { keys: ['Enter'], what: 'Open the row’s details' },
  { keys: ['Esc'], what: 'Close the details and return to the list' },
  { keys: ['Space'], what: 'Mark reviewed (again: not reviewed)' },
  { keys: ['f'], what: 'Flag with a reason (again: remove the flag)' },
  { keys: ['n'], what: 'Write a note' },
  { keys: ['x'], what: 'Select the row for a bulk change' },
  { keys: ['/'], what: 'Search' },
  { keys: ['Esc'], what: 'In a search field: back to the list, the search kept' },
  { keys: ['?'], what: 'This list of shortcuts' },
  {
    keys: [shortcut('1…8')],
    what: 'Go to Transactions, Expenses, Suppliers, Files, Sync, Settings, Needs attention, Dimensions',
  },
  { keys: ['1…4'], what: 'In Needs attention: open that list' },
  { keys: ['Enter'], what: 'In Dimensions: change the dimension (a system one: go to its items)' },
  { keys: ['e'], what: 'In Dimensions, on an item: the expenses booked on it' },
];

/**
 * The shortcuts help, shown while mounted: a modal dialog like the export and download ones —
 * Tab stays inside, the page behind is inert (area shortcuts included), Esc closes it and the
 * focus goes back to where it was.
 */
export function ShortcutsDialog({ onClose }: { onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const shortcut = useModifierShortcut();
  useModal(dialog);
  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby="shortcuts-title"
      aria-describedby="shortcuts-scope"
      onClose={onClose}
      onKeyDown={trapTab}
    >
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p className="muted" id="shortcuts-scope">
        Space, f, n and x act on the highlighted row of a list, and on the record shown in its details when
        the focus is there.
      </p>
      <table className="shortcuts">
        <tbody>
          {shortcuts(shortcut).map((row) => (
            <tr key={row.what}>
              <th scope="row">
                {row.keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 && ' '}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </th>
              <td>{row.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions end">
        <button type="button" className="primary" autoFocus onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
