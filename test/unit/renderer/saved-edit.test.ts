import { describe, expect, it } from 'vitest';
import { savedEditStatus } from '../../../src-renderer/features/edits/saved';

type Status = 'pending' | 'sending' | 'interrupted' | 'failed' | 'conflict';

const saved = { verb: 'Saved' as const, name: 'Nordwind GmbH', operationId: 'op-1' };
const edit = (
  status: Status,
  error: { code: string; message: string } | null = null,
  operation: 'create' | 'update' = 'update',
) => ({ operationId: 'op-1', resource: 'supplier' as const, operation, status, error });
const say = (...args: Parameters<typeof edit>) => savedEditStatus(saved, [edit(...args)], 'Acme Oy');

describe('the note a save leaves above the suppliers', () => {
  it('says a waiting edit goes with the next push, and nothing once it is off the list', () => {
    expect(say('pending')).toEqual({
      text: 'Saved Nordwind GmbH; it will be sent with the next push.',
      problem: false,
    });
    expect(savedEditStatus(saved, [], 'Acme Oy')).toBeNull();
  });

  it('says an edit being sent is on its way, not that it waits for a push', () => {
    expect(say('sending')).toEqual({
      text: 'Saved Nordwind GmbH; it is being sent to Acme Oy now.',
      problem: false,
    });
  });

  it('says an interrupted edit may have been sent, as the edits list does', () => {
    const note = say('interrupted');
    expect(note?.problem).toBe(false);
    expect(note?.text).toMatch(/^Saved Nordwind GmbH\. Maybe sent: /);
    expect(note?.text).toContain('whether this change reached Acme Oy: sending it was interrupted.');
    expect(note?.text).not.toContain('with the next push');
    const create = savedEditStatus(
      { ...saved, verb: 'Created' },
      [edit('interrupted', null, 'create')],
      'Acme Oy',
    );
    expect(create?.text).toMatch(/^Created Nordwind GmbH\. Maybe sent: .*this new supplier reached Acme Oy/);
  });

  it('says a push stopped on it by refused credentials, which the user must fix first', () => {
    const note = say('pending', {
      code: 'AUTH_FAILED',
      message: 'The API refused these credentials. Enter the API key again in Settings.',
    });
    expect(note).toEqual({
      text: 'Saved Nordwind GmbH. Not sent: The API refused these credentials. Enter the API key again in Settings. The edit waits: once that is done, it is sent with the next Send now or sync.',
      problem: true,
    });
  });

  it('says a conflict and a refusal as problems', () => {
    expect(say('conflict')).toEqual({
      text: 'Nordwind GmbH was changed on the server too; choose below which version to keep.',
      problem: true,
    });
    expect(say('failed', { code: 'VALIDATION_ERROR', message: 'code is taken' })).toEqual({
      text: 'The server refused the change to Nordwind GmbH: code is taken. It is kept below to fix or discard.',
      problem: true,
    });
  });
});
