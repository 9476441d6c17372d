import { useId } from 'react';
import type { ProfileSummary } from '../../src-shared/profiles';
import './chrome.css';

/**
 * The organisation shown, as a plain labelled <select>: Tab reaches it, the arrow keys choose
 * (the system's own list, so screen readers announce it as it is). Hidden until one is connected.
 */
export function OrganisationSwitcher({
  profiles,
  current,
  onChoose,
}: {
  profiles: readonly ProfileSummary[];
  current: ProfileSummary | null;
  onChoose(id: string): void;
}) {
  const id = useId();
  if (!current || profiles.length === 0) return null;
  return (
    <div className="org-switcher">
      <label htmlFor={id}>Organisation</label>
      <select
        id={id}
        data-testid="organisation-switcher"
        // The sidebar may cut a long name short (160 px in a narrow window): the whole name shows
        // as its tooltip; screen readers read the chosen option's text, which is never cut.
        title={current.name}
        value={current.id}
        onChange={(event) => onChoose(event.target.value)}
      >
        {profiles.map((profile) => (
          <option key={profile.id} value={profile.id}>
            {profile.name}
          </option>
        ))}
      </select>
    </div>
  );
}
