import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { areas, type AreaId } from '../areas';
import { useModifierShortcut } from '../lib/platform';
import './chrome.css';

interface SidebarProps {
  current: AreaId;
  onSelect(area: AreaId): void;
  /** Shown above the areas (the organisation switcher). */
  header?: ReactNode;
}

/** The app's areas. Tab reaches the current one; arrow keys, j/k, Home and End move between them. */
export function Sidebar({ current, onSelect, header }: SidebarProps) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const shortcut = useModifierShortcut();

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
          {areas.map((area, index) => (
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
              </button>
            </li>
          ))}
        </ul>
      </nav>
    </div>
  );
}
