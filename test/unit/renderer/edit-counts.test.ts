import { describe, expect, it } from 'vitest';
import {
  editNeedsYou,
  editsWaitingText,
  openEdits,
  openEditsByArea,
} from '../../../src-renderer/features/edits/counts';

type Status = 'pending' | 'sending' | 'interrupted' | 'failed' | 'conflict';

const edit = (
  resource: 'supplier' | 'dimension' | 'dimensionItem',
  status: Status,
  error: { code: string; message: string; field?: string } | null = null,
) => ({ resource, operation: 'create' as const, status, error });

const refusedCredentials = {
  code: 'AUTH_FAILED',
  message: 'The API refused these credentials. Enter the API key again in Settings.',
};

describe('which open edits need the user', () => {
  it('counts refused, conflicting, and edits stopped by what only the user can lift', () => {
    expect(editNeedsYou(edit('supplier', 'failed', { code: 'REMOTE_REJECTED', message: 'Taken.' }))).toBe(
      true,
    );
    expect(editNeedsYou(edit('supplier', 'conflict', { code: 'CONFLICT', message: 'Changed.' }))).toBe(true);
    expect(editNeedsYou(edit('supplier', 'pending', refusedCredentials))).toBe(true);
    expect(
      editNeedsYou(edit('dimension', 'pending', { code: 'FORBIDDEN', message: 'No write scope.' })),
    ).toBe(true);
    expect(editNeedsYou(edit('dimension', 'pending', { code: 'KEYCHAIN_LOCKED', message: 'Locked.' }))).toBe(
      true,
    );
    expect(editNeedsYou(edit('supplier', 'interrupted', refusedCredentials))).toBe(true);
  });

  it('leaves out edits that wait for nothing but the next push', () => {
    expect(editNeedsYou(edit('supplier', 'pending'))).toBe(false);
    expect(editNeedsYou(edit('supplier', 'pending', { code: 'OFFLINE', message: 'No network.' }))).toBe(
      false,
    );
    expect(editNeedsYou(edit('supplier', 'interrupted', { code: 'TIMEOUT', message: 'No answer.' }))).toBe(
      false,
    );
    // Left by a process that stopped: the next push finds out; a live push's edit waits for it.
    expect(editNeedsYou(edit('supplier', 'interrupted'))).toBe(false);
    expect(editNeedsYou(edit('supplier', 'sending'))).toBe(false);
  });

  it('gives the status bar and the sidebar the same count', () => {
    const items = [
      edit('supplier', 'pending', refusedCredentials),
      edit('supplier', 'pending', { code: 'OFFLINE', message: 'No network.' }),
      edit('dimensionItem', 'pending', refusedCredentials),
      edit('dimension', 'failed', { code: 'REMOTE_REJECTED', message: 'Deleted.' }),
      edit('dimension', 'pending'),
    ];
    expect(openEditsByArea(items)).toEqual({
      suppliers: { open: 2, problems: 1 },
      dimensions: { open: 3, problems: 2 },
    });
    expect(openEdits(items)).toEqual({ open: 5, problems: 3 });
  });
});

describe('how the edits waiting are said', () => {
  it('agrees the verb with the number that needs the user', () => {
    expect(editsWaitingText({ open: 0, problems: 0 })).toBe('No edits waiting');
    expect(editsWaitingText({ open: 1, problems: 0 })).toBe('1 edit waiting');
    expect(editsWaitingText({ open: 1, problems: 1 })).toBe('1 edit waiting, 1 needs you');
    expect(editsWaitingText({ open: 3, problems: 2 })).toBe('3 edits waiting, 2 need you');
  });
});
