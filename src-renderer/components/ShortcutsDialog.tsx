import { useEffect, useRef } from 'react';

export const shortcuts: Array<{ keys: string[]; what: string }> = [
  { keys: ['↑', '↓', 'j', 'k'], what: 'Move between rows' },
  { keys: ['Home', 'End', 'PgUp', 'PgDn'], what: 'Jump to the first, last or next screen of rows' },
  { keys: ['Enter'], what: 'Open the row’s details' },
  { keys: ['Esc'], what: 'Close the details and return to the list' },
  { keys: ['Space'], what: 'Mark reviewed (again: not reviewed)' },
  { keys: ['f'], what: 'Flag with a reason (again: remove the flag)' },
  { keys: ['n'], what: 'Write a note' },
  { keys: ['x'], what: 'Select the row for a bulk change' },
  { keys: ['/'], what: 'Search' },
  { keys: ['?'], what: 'This list of shortcuts' },
  {
    keys: ['Ctrl+1…8'],
    what: 'Go to Transactions, Expenses, Suppliers, Files, Sync, Settings, Needs attention, Dimensions',
  },
  { keys: ['1…4'], what: 'In Needs attention: open that list' },
  { keys: ['Enter'], what: 'In Dimensions: change the dimension (a system one: go to its items)' },
  { keys: ['e'], what: 'In Dimensions, on an item: the expenses booked on it' },
];

/** The shortcuts help: a modal dialog (focus stays inside; Esc closes it and focus returns). */
export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="shortcuts-title" onClose={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table className="shortcuts">
        <tbody>
          {shortcuts.map((shortcut) => (
            <tr key={shortcut.what}>
              <th scope="row">
                {shortcut.keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 && ' '}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </th>
              <td>{shortcut.what}</td>
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
