import { ConnectForm } from './ConnectForm';

/** Shown until an organisation is connected. */
export function FirstRun() {
  return (
    <section className="area first-run" data-area="first-run">
      <h1 id="area-title">Welcome to Satchel</h1>
      <p className="muted">
        Connect an organisation’s spend account to keep its bank transactions, expenses, suppliers and
        receipts with you, offline. You need an API key (key id and secret) or an access token from the
        organisation’s administrator.
      </p>
      <ConnectForm />
    </section>
  );
}
