import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { counted as count } from '../../../src-shared/counted';
import type { CommandOutput } from '../../../src-shared/ipc';
import type { ProfileSummary } from '../../../src-shared/profiles';
import { call } from '../../lib/satchel';

type Problem = NonNullable<CommandOutput<'profiles.cacheStatus'>['problem']>;

/** What of the user's own work the damaged copy still gives up, in words. */
function readableText(readable: Problem['readable']): string {
  if (readable === null)
    return 'Satchel cannot read any unsent edits or review marks from it. The file is kept all the same, so nothing is deleted.';
  if (readable.edits + readable.marks === 0)
    return 'It holds no unsent edits and no review marks, so a rebuild loses none of your work.';
  return `Satchel can still read ${count(readable.edits, 'unsent edit', 'unsent edits')} and ${count(readable.marks, 'review mark', 'review marks')} in it; a rebuild keeps them.`;
}

/**
 * Shown in place of the areas when the organisation's offline copy cannot be opened (damaged,
 * or written by a newer version): what is wrong, for which organisation, what of the user's work
 * can still be read, and the way on, setting it aside and rebuilding (docs/screens.md).
 * Other organisations stay a choice away in the sidebar, and Settings stays open.
 */
export function DamagedCache({
  profile,
  problem,
  onSettings,
  onRebuilt,
}: {
  profile: ProfileSummary;
  problem: Problem;
  onSettings: () => void;
  /** The fresh copy is there: this screen goes, and what was set aside and kept is said elsewhere. */
  onRebuilt: (answer: CommandOutput<'profiles.rebuildCache'>) => void;
}) {
  const client = useQueryClient();
  const [state, setState] = useState<
    { status: 'idle' } | { status: 'working' } | { status: 'failed'; message: string }
  >({ status: 'idle' });
  const newer = problem.reason === 'NEWER_SCHEMA';
  const canRebuild = problem.reason !== 'NO_MIGRATIONS';
  const rebuild = () => {
    setState({ status: 'working' });
    call('profiles.rebuildCache', { id: profile.id }).then(
      (answer) => {
        onRebuilt(answer);
        // The fresh copy fills from the server now; every area reads it afresh.
        void call('sync.start', { profileId: profile.id }).catch(() => undefined);
        void client.invalidateQueries();
      },
      (error: unknown) =>
        setState({ status: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  };
  return (
    <section className="area damaged-cache" data-area="damaged-cache" aria-labelledby="area-title">
      <h1 id="area-title" tabIndex={-1}>
        {newer
          ? `The offline copy of ${profile.name} is from a newer Satchel`
          : problem.reason === 'NOT_A_DATABASE'
            ? `The offline copy of ${profile.name} is damaged`
            : `The offline copy of ${profile.name} cannot be opened`}
      </h1>
      <p role="alert" data-testid="cache-problem">
        {problem.message}
      </p>
      <p data-testid="cache-readable">{readableText(problem.readable)}</p>
      {canRebuild && (
        <p className="muted">
          Set aside and rebuild renames the file beside itself (nothing is deleted), starts a fresh copy with
          the work above, and syncs {profile.name} again from the server.
          {newer ? ' Updating Satchel instead opens the copy as it is.' : ''}
        </p>
      )}
      <div className="actions">
        {canRebuild && (
          <button type="button" autoFocus onClick={rebuild} disabled={state.status === 'working'}>
            {state.status === 'working' ? 'Setting aside…' : 'Set aside and rebuild'}
          </button>
        )}
        <button type="button" onClick={onSettings}>
          Open Settings
        </button>
      </div>
      {state.status === 'failed' && (
        <p role="alert" className="form-error">
          {state.message}
        </p>
      )}
    </section>
  );
}
