import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { areas, type AreaId } from '../areas';
import { editsWaitingText, openEditsByArea, type AreaEdits } from '../features/edits/counts';
import { formatCount } from '../lib/format';
import { useModifierShortcut } from '../lib/platform';
import { useCommand } from '../lib/query';
import './chrome.css';

interface SidebarProps {
  current: AreaId;
  onSelect(area: AreaId): void;
  /** Shown above the areas (the organisation switcher). */
  header?: ReactNode;
  /** The organisation shown: its open edits are counted beside Suppliers and Dimensions. */
  profileId?: string | undefined;
}

/**
 * The open edits of an area (waiting, or needing the user) beside its name: the number is
 * shown, and the entry's accessible name says it ("Suppliers 3 edits waiting"). The count is
 * read with the outbox list, which every edit, push step, sync and reconnect makes stale.
 */
function EditsBadge({ edits }: { edits: AreaEdits }) {
  const text = editsWaitingText(edits);
  const number = formatCount(edits.open);
  return (
    <span
      className={edits.problems > 0 ? 'nav-badge nav-badge-problem' : 'nav-badge'}
      data-testid="nav-edits"
    >
      {number}
      <span className="visually-hidden">{text.slice(number.length)}</span>
    </span>
  );
}

function useAreaEdits(profileId: string | undefined) {
  const list = useCommand('edits.list', { profileId: profileId ?? '' }, { enabled: profileId !== undefined });
  return openEditsByArea(profileId === undefined ? [] : (list.data?.items ?? []));
}

/** The app's areas. Tab reaches the current one; arrow keys, j/k, Home and End move between them. */
export function Sidebar({ current, onSelect, header, profileId }: SidebarProps) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const shortcut = useModifierShortcut();
  const edits = useAreaEdits(profileId);

  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const last = areas.length - 1;
    const next =
      event.key === 'ArrowDown' || event.key === 'j'
        ? Math.min(index + 1, last)
        : event.key === 'ArrowUp' || event.key === 'k'
          ? Math.max(index - 1, 0)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (next === null) return;
    event.preventDefault();
    const area = areas[next];
    if (!area) return;
    onSelect(area.id);
    buttons.current[next]?.focus();
  };

  return (
    <div className="sidebar-column">
      <div className="brand" aria-hidden="true">
        Satchel
      </div>
      {header}
      <nav className="sidebar" aria-label="Areas">
        <ul>
          {areas.map((area, index) => {
            const waiting = area.id === 'suppliers' || area.id === 'dimensions' ? edits[area.id] : null;
            const counted = waiting !== null && waiting.open > 0;
            return (
              <li key={area.id}>
                <button
                  ref={(element) => {
                    buttons.current[index] = element;
                  }}
                  type="button"
                  className="nav-item"
                  aria-current={area.id === current ? 'page' : undefined}
                  tabIndex={area.id === current ? 0 : -1}
                  onClick={() => onSelect(area.id)}
                  onKeyDown={(event) => move(event, index)}
                  title={`${area.label} (${shortcut(area.key)})`}
                >
                  {area.label}
                  {counted && (
                    <>
                      {' '}
                      <EditsBadge edits={waiting} />
                    </>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      </nav>
    </div>
  );
}
