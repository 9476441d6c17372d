import { useState } from 'react';
import type { RecoveryPlan, RecoveryResult } from '../../../src-shared/profiles';
import { organisationLine, planSummary, resultSummary, untiedLine } from '../../../src-shared/recovery-text';
import { call } from '../../lib/satchel';

type State =
  | { status: 'idle' }
  | { status: 'planning' }
  | { status: 'confirm'; plan: RecoveryPlan }
  | { status: 'working'; plan: RecoveryPlan }
  | { status: 'done'; result: RecoveryResult }
  | { status: 'failed'; message: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The organisations of a plan or a result, and the files left as they are. */
function Findings({ plan }: { plan: RecoveryPlan }) {
  const untied = untiedLine(plan);
  return (
    <>
      {plan.organisations.length > 0 && (
        <ul data-testid="recovery-organisations">
          {plan.organisations.map((organisation) => (
            <li key={organisation.id}>{organisationLine(organisation)}</li>
          ))}
        </ul>
      )}
      {untied && <p data-testid="recovery-untied">{untied}</p>}
      {plan.keychainProblem && (
        <p className="muted">
          The keychain did not answer ({plan.keychainProblem}); each organisation's first sync says whether
          its key is there.
        </p>
      )}
    </>
  );
}

/**
 * Shown in place of everything when the list of connected organisations (profiles.json) cannot
 * be read. Nothing is written meanwhile: no first screen offers to connect (that would write a
 * new list over the old one), and the keychain entries and offline copies of the connections
 * stay as they are (docs/screens.md). "Check again" reads the list once it is restored;
 * "Recover organisations…" says what it would do, and once confirmed sets the damaged list aside
 * and lists again the organisations whose offline copies record their connection.
 */
export function DamagedList({ message, onRetry }: { message: string; onRetry: () => void }) {
  const [state, setState] = useState<State>({ status: 'idle' });
  const plan = () => {
    setState({ status: 'planning' });
    call('profiles.recoveryPlan', {}).then(
      (answer) => setState({ status: 'confirm', plan: answer }),
      (error: unknown) => setState({ status: 'failed', message: messageOf(error) }),
    );
  };
  const recover = (planned: RecoveryPlan) => {
    setState({ status: 'working', plan: planned });
    call('profiles.recover', {}).then(
      (result) => setState({ status: 'done', result }),
      (error: unknown) => setState({ status: 'failed', message: messageOf(error) }),
    );
  };
  if (state.status === 'done') {
    return (
      <section className="area damaged-list" data-area="damaged-list" aria-labelledby="area-title">
        <h1 id="area-title" tabIndex={-1}>
          Organisations recovered
        </h1>
        <div role="status" data-testid="recovery-result">
          <p>{resultSummary(state.result)}</p>
          <Findings plan={state.result} />
        </div>
        <div className="actions">
          <button type="button" autoFocus onClick={onRetry}>
            Continue
          </button>
        </div>
      </section>
    );
  }
  const asking = state.status === 'confirm' || state.status === 'working' ? state.plan : null;
  return (
    <section className="area damaged-list" data-area="damaged-list" aria-labelledby="area-title">
      <h1 id="area-title" tabIndex={-1}>
        The list of organisations cannot be read
      </h1>
      <p role="alert" data-testid="list-problem">
        {message}
      </p>
      {asking ? (
        <div
          className="recovery-confirm"
          role="group"
          aria-labelledby="recovery-plan"
          onKeyDown={(event) => {
            if (event.key !== 'Escape' || state.status === 'working') return;
            event.preventDefault();
            setState({ status: 'idle' });
          }}
        >
          <p id="recovery-plan" data-testid="recovery-plan">
            {planSummary(asking)}
          </p>
          <Findings plan={asking} />
          <div className="actions">
            <button
              type="button"
              autoFocus
              disabled={state.status === 'working'}
              onClick={() => recover(asking)}
            >
              {state.status === 'working' ? 'Recovering…' : 'Recover'}
            </button>
            <button
              type="button"
              disabled={state.status === 'working'}
              onClick={() => setState({ status: 'idle' })}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <>
          <p className="muted">
            Recover organisations sets the damaged list aside beside itself (nothing is deleted) and lists
            again every organisation whose offline copy says how it connects, with its unsent edits, review
            marks and keychain key.
          </p>
          <div className="actions">
            <button type="button" autoFocus onClick={onRetry}>
              Check again
            </button>
            <button type="button" onClick={plan} disabled={state.status === 'planning'}>
              {state.status === 'planning' ? 'Looking…' : 'Recover organisations…'}
            </button>
          </div>
        </>
      )}
      {state.status === 'failed' && (
        <p role="alert" className="form-error">
          {state.message}
        </p>
      )}
    </section>
  );
}
