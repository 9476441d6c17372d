import type { ProfileSummary } from '../../src-shared/profiles';

/** Where the renderer remembers the organisation shown last (an id, nothing secret). */
export const PROFILE_KEY = 'satchel.profileId';

/**
 * The organisation to show: the one chosen last while it is still connected, otherwise the
 * first connected one (profiles come in the core's order), or none when nothing is connected.
 */
export function chooseProfile(
  profiles: readonly ProfileSummary[],
  chosenId: string | null,
): ProfileSummary | null {
  return profiles.find((profile) => profile.id === chosenId) ?? profiles[0] ?? null;
}

/** The remembered choice; null when storage is unavailable or holds nothing. */
export function readChosenProfile(
  storage: Pick<Storage, 'getItem'> | undefined = globalStorage(),
): string | null {
  try {
    return storage?.getItem(PROFILE_KEY) ?? null;
  } catch {
    return null;
  }
}

export function storeChosenProfile(
  id: string,
  storage: Pick<Storage, 'setItem'> | undefined = globalStorage(),
): void {
  try {
    storage?.setItem(PROFILE_KEY, id);
  } catch {
    // A full or disabled storage only costs the choice at the next start.
  }
}

function globalStorage(): Storage | undefined {
  return typeof localStorage === 'undefined' ? undefined : localStorage;
}
