import { useCommandMutation } from '../../lib/query';
import { call } from '../../lib/satchel';
import { ConnectForm } from './ConnectForm';

/**
 * Shown until an organisation is connected. `onConnected` hears of a connection made with the
 * form (whether the API could check it): this screen goes as soon as there is one, so what it
 * would say after Connect is said where the user lands.
 */
export function FirstRun({ onConnected }: { onConnected?: (added: { checked: boolean }) => void }) {
  const demo = useCommandMutation('demo.open', ['profiles.list']);
  const openDemo = () =>
    demo.mutate(
      {},
      {
        // The first sync starts at once; the Sync area shows its progress.
        onSuccess: (profile) => void call('sync.start', { profileId: profile.id }).catch(() => undefined),
      },
    );
  return (
    <section className="area first-run" data-area="first-run">
      <h1 id="area-title" tabIndex={-1}>
        Welcome to Satchel
      </h1>
      <p className="muted">
        Connect an organisation’s spend account to keep its bank transactions, expenses, suppliers and
        receipts with you, offline. You need an API key (key id and secret) or an access token from the
        organisation’s administrator.
      </p>
      <div className="demo-offer">
        <p>No account at hand? Explore a demo organisation with three years of made-up data.</p>
        <button type="button" onClick={openDemo} disabled={demo.isPending}>
          {demo.isPending ? 'Starting the demo…' : 'Try the demo organisation'}
        </button>
        {demo.error ? (
          <p role="alert" className="form-error">
            {demo.error.message}
          </p>
        ) : null}
      </div>
      <ConnectForm {...(onConnected ? { onConnected } : {})} />
    </section>
  );
}
