import { describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../../src-shared/profiles';
import {
  chooseProfile,
  readChosenProfile,
  storeChosenProfile,
} from '../../../src-renderer/lib/profile-choice';
import { parseTheme, resolveTheme, themeAttribute } from '../../../src-renderer/lib/theme';

const profile = (id: string, name: string): ProfileSummary =>
  ({ id, name, baseUrl: 'https://api.example.test', authKind: 'client' }) as ProfileSummary;

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
    key: (index) => [...items.keys()][index] ?? null,
  };
}

describe('the organisation shown', () => {
  const a = profile('a', 'Acme');
  const b = profile('b', 'Beta');

  it('is the one chosen last while it is connected', () => {
    expect(chooseProfile([a, b], 'b')).toBe(b);
  });

  it('falls back to the first when the chosen one was removed or nothing was chosen', () => {
    expect(chooseProfile([a, b], 'removed')).toBe(a);
    expect(chooseProfile([b], null)).toBe(b);
    expect(chooseProfile([], 'a')).toBeNull();
  });

  it('is remembered in storage, and a broken storage costs only the memory', () => {
    const storage = memoryStorage();
    expect(readChosenProfile(storage)).toBeNull();
    storeChosenProfile('b', storage);
    expect(readChosenProfile(storage)).toBe('b');
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('full');
      },
    };
    expect(readChosenProfile(broken)).toBeNull();
    expect(() => storeChosenProfile('a', broken)).not.toThrow();
  });
});

describe('the theme setting', () => {
  it('follows the system unless light or dark is chosen', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  it('sets data-theme only for a fixed choice and reads anything unknown as the system', () => {
    expect(themeAttribute('system')).toBeNull();
    expect(themeAttribute('dark')).toBe('dark');
    expect(parseTheme('light')).toBe('light');
    expect(parseTheme('sepia')).toBe('system');
    expect(parseTheme(null)).toBe('system');
  });
});
