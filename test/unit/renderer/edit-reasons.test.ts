import { describe, expect, it } from 'vitest';
import { stoppedPushText } from '../../../src-renderer/features/edits/reasons';

const edit = (
  status: 'pending' | 'sending' | 'interrupted' | 'failed' | 'conflict',
  error: { code: string; message: string; field?: string } | null,
  operation: 'create' | 'update' = 'create',
) => ({ resource: 'supplier' as const, operation, status, error });

describe('what an edit a push stopped on says', () => {
  it('asks the user to act when the credentials were refused, and says the edit waits', () => {
    expect(
      stoppedPushText(
        edit('pending', {
          code: 'AUTH_FAILED',
          message: 'The API refused these credentials. Enter the API key again in Settings.',
        }),
      ),
    ).toEqual({
      text: 'Not sent: The API refused these credentials. Enter the API key again in Settings. The edit waits: once that is done, it is sent with the next Send now or sync.',
      needsYou: true,
    });
    expect(stoppedPushText(edit('pending', { code: 'FORBIDDEN', message: 'No write scope' }))?.needsYou).toBe(
      true,
    );
  });

  it('says a stop that passes by itself needs nothing from the user', () => {
    expect(
      stoppedPushText(
        edit('pending', { code: 'OFFLINE', message: 'Could not reach api.example.com: refused' }),
      ),
    ).toEqual({
      text: 'Not sent: Could not reach api.example.com: refused. It will be sent with the next Send now or sync.',
      needsYou: false,
    });
  });

  it('says a create whose answer never came may have reached the organisation, and is looked up before it goes again', () => {
    expect(
      stoppedPushText(
        edit('interrupted', { code: 'TIMEOUT', message: 'No answer in 30 s.' }),
        'Nordwind Demo',
      ),
    ).toEqual({
      text: 'Maybe sent: Satchel does not know yet whether this new supplier reached Nordwind Demo: sending it was interrupted. No answer in 30 s. Before sending it again, the next Send now or sync looks for the record on Nordwind Demo, so it is never created twice. To change the edit, sync first.',
      needsYou: false,
    });
  });

  it('says an edit whose process stopped while it was on its way may have been sent, and what Edit… does', () => {
    expect(stoppedPushText(edit('interrupted', null), 'Nordwind Demo')).toEqual({
      text: 'Maybe sent: Satchel does not know yet whether this new supplier reached Nordwind Demo: sending it was interrupted. Satchel stopped before Nordwind Demo answered. Before sending it again, the next Send now or sync looks for the record on Nordwind Demo, so it is never created twice. To change the edit, sync first.',
      needsYou: false,
    });
    expect(stoppedPushText(edit('interrupted', null, 'update'), 'Nordwind Demo')).toEqual({
      text: 'Maybe sent: Satchel does not know yet whether this change reached Nordwind Demo: sending it was interrupted. Satchel stopped before Nordwind Demo answered. The next Send now or sync reads the record on Nordwind Demo first and sends the change only if it is not there yet; Edit… sends a new value instead.',
      needsYou: false,
    });
    // Where the organisation is not known (the counts only ask whether it needs the user).
    expect(stoppedPushText({ ...edit('interrupted', null), resource: undefined })?.text).toMatch(
      /^Maybe sent: Satchel does not know yet whether this new record reached the server: /,
    );
    // On its way with a live push: nothing to say until it settles.
    expect(stoppedPushText(edit('sending', null))).toBe(null);
  });

  it('leaves refused and conflicting edits, and edits no push stopped on, to their own words', () => {
    expect(
      stoppedPushText(edit('failed', { code: 'REMOTE_REJECTED', message: 'Taken.', field: 'code' })),
    ).toBe(null);
    expect(stoppedPushText(edit('conflict', { code: 'CONFLICT', message: 'Changed.' }))).toBe(null);
    expect(stoppedPushText(edit('pending', null))).toBe(null);
  });
});
