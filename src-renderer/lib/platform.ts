import { createContext, useContext } from 'react';
import { modifierShortcut } from './keys';

/** The platform the app runs on (`app.info`'s), once known: provided by the shell. */
export const PlatformContext = createContext<string | null>(null);

/** `modifierShortcut` for the platform the app runs on: "⌘4" on macOS, "Ctrl+4" elsewhere. */
export function useModifierShortcut(): (key: string) => string {
  const platform = useContext(PlatformContext);
  return (key) => modifierShortcut(key, platform);
}
