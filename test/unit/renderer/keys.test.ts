import { describe, expect, it } from 'vitest';
import { modifierShortcut } from '../../../src-renderer/lib/keys';

describe('modifierShortcut', () => {
  it('writes the modifier as the menus of the platform do: ⌘ on macOS, Ctrl+ elsewhere', () => {
    expect(modifierShortcut('1…8', 'darwin')).toBe('⌘1…8');
    expect(modifierShortcut('4', 'darwin')).toBe('⌘4');
    expect(modifierShortcut('Enter', 'darwin')).toBe('⌘Enter');
    expect(modifierShortcut('1…8', 'linux')).toBe('Ctrl+1…8');
    expect(modifierShortcut('4', 'win32')).toBe('Ctrl+4');
  });

  it('says Ctrl+ while the platform is not known yet', () => {
    expect(modifierShortcut('1', null)).toBe('Ctrl+1');
    expect(modifierShortcut('1', undefined)).toBe('Ctrl+1');
  });
});
