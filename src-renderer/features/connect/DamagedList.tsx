/**
 * Shown in place of everything when the list of connected organisations (profiles.json) cannot
 * be read. Nothing is written meanwhile: no first screen offers to connect (that would write a
 * new list over the old one), and the keychain entries and offline copies of the connections
 * stay as they are (docs/screens.md). "Check again" reads the list once it is restored.
 */
export function DamagedList({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <section className="area damaged-list" data-area="damaged-list" aria-labelledby="area-title">
      <h1 id="area-title" tabIndex={-1}>
        The list of organisations cannot be read
      </h1>
      <p role="alert" data-testid="list-problem">
        {message}
      </p>
      <div className="actions">
        <button type="button" autoFocus onClick={onRetry}>
          Check again
        </button>
      </div>
    </section>
  );
}
