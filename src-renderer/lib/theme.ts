/**
 * The theme setting: follow the system, or always light, or always dark. A fixed choice sets
 * data-theme on <html>, which styles.css turns into `color-scheme`, so every light-dark()
 * token follows it. public/theme-boot.js applies the stored choice before the first paint.
 */
export const THEME_KEY = 'satchel.theme';

export const THEME_CHOICES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export const themeLabels: Record<ThemeChoice, string> = {
  system: 'Same as the system',
  light: 'Light',
  dark: 'Dark',
};

export function parseTheme(value: unknown): ThemeChoice {
  return THEME_CHOICES.find((choice) => choice === value) ?? 'system';
}

/** The theme shown for a choice, given whether the system prefers dark. */
export function resolveTheme(choice: ThemeChoice, systemPrefersDark: boolean): 'light' | 'dark' {
  if (choice === 'system') return systemPrefersDark ? 'dark' : 'light';
  return choice;
}

/** The data-theme attribute for a choice: none when the system decides. */
export function themeAttribute(choice: ThemeChoice): 'light' | 'dark' | null {
  return choice === 'system' ? null : choice;
}

export function readTheme(storage: Pick<Storage, 'getItem'> | undefined = globalStorage()): ThemeChoice {
  try {
    return parseTheme(storage?.getItem(THEME_KEY));
  } catch {
    return 'system';
  }
}

/** Shows the choice at once and remembers it. */
export function applyTheme(
  choice: ThemeChoice,
  root: HTMLElement = document.documentElement,
  storage: Pick<Storage, 'setItem'> | undefined = globalStorage(),
): void {
  const attribute = themeAttribute(choice);
  if (attribute) root.dataset['theme'] = attribute;
  else delete root.dataset['theme'];
  try {
    storage?.setItem(THEME_KEY, choice);
  } catch {
    // Shown now; only remembering it failed.
  }
}

function globalStorage(): Storage | undefined {
  return typeof localStorage === 'undefined' ? undefined : localStorage;
}
