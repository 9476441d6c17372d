import type { ProfileSummary } from '../../../src-shared/profiles';

/** Receipts and invoices: the bulk download screen arrives with the download commands. */
export function FilesView({ profile }: { profile: ProfileSummary }) {
  return (
    <section className="area" data-area="files">
      <h1 id="area-title">Files</h1>
      <p className="muted">{profile.name}</p>
      <p className="empty">
        Receipts and invoices, kept offline and downloadable in bulk. Each expense’s files are listed with the
        expense (Expenses) and with its bank transaction (Transactions).
      </p>
    </section>
  );
}
