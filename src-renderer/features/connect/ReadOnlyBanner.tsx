import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../lib/satchel';
import { READ_ONLY_REASON_ID } from '../../lib/read-only';

/**
 * Said once, above the organisation's areas, when its offline copy opened read-only: why and
 * where, what still works and what is off. "Check again" opens the copy afresh: once its cause is
 * fixed, writing comes back without a restart (docs/screens.md).
 */
export function ReadOnlyBanner({ profileId, message }: { profileId: string; message: string }) {
  const client = useQueryClient();
  const [state, setState] = useState<
    { status: 'idle' } | { status: 'checking' } | { status: 'still'; message?: string }
  >({ status: 'idle' });
  const check = () => {
    setState({ status: 'checking' });
    call('profiles.recheckCache', { id: profileId }).then(
      (answer) => {
        // Every area reads the copy afresh; the banner goes if it is writable now.
        void client.invalidateQueries();
        setState(answer.readOnly ? { status: 'still' } : { status: 'idle' });
      },
      (error: unknown) =>
        setState({ status: 'still', message: error instanceof Error ? error.message : String(error) }),
    );
  };
  return (
    <div className="read-only-banner" role="status" data-testid="read-only-banner">
      {/* In a short window the text is cut to three lines (styles.css): whole in its tooltip,
          and for a screen reader. */}
      <p id={READ_ONLY_REASON_ID} title={message}>
        {message}
      </p>
      <div className="actions">
        <button type="button" onClick={check} disabled={state.status === 'checking'}>
          {state.status === 'checking' ? 'Checking…' : 'Check again'}
        </button>
        {state.status === 'still' && (
          <span className="muted" data-testid="read-only-still">
            {state.message ?? 'Still read-only.'}
          </span>
        )}
      </div>
    </div>
  );
}
