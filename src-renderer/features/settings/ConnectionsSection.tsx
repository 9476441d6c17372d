import { useEffect, useRef, useState } from 'react';
import type { ProfileSummary } from '../../../src-shared/profiles';
import { useCommand, useCommandMutation } from '../../lib/query';
import { ConnectForm } from '../connect/ConnectForm';

function ConnectionRow({ profile, onRemove }: { profile: ProfileSummary; onRemove(): void }) {
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm-remove'>('view');
  const [name, setName] = useState(profile.name);
  const rename = useCommandMutation('profiles.rename', ['profiles.list']);
  const remove = useCommandMutation('profiles.remove', ['profiles.list']);
  const renameButton = useRef<HTMLButtonElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  // The form or the prompt goes with the focus in it: once it is closed the focus goes back to
  // the button that opened it.
  const refocus = useRef<'rename' | 'remove' | null>(null);
  useEffect(() => {
    if (mode !== 'view' || !refocus.current) return;
    const button = refocus.current === 'rename' ? renameButton : removeButton;
    refocus.current = null;
    button.current?.focus();
  }, [mode]);
  // Each rename starts from the name as it is: a name typed and cancelled is not kept.
  const startRename = () => {
    setName(profile.name);
    rename.reset();
    setMode('rename');
  };
  const closeRename = () => {
    setMode('view');
    refocus.current = 'rename';
  };
  const keep = () => {
    setMode('view');
    refocus.current = 'remove';
  };

  return (
    <li className="connection" aria-label={profile.name}>
      {mode === 'rename' ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            rename.mutate({ id: profile.id, name }, { onSuccess: closeRename });
          }}
          onKeyDown={(event) => {
            if (event.key !== 'Escape') return;
            event.preventDefault();
            closeRename();
          }}
        >
          <label className="visually-hidden" htmlFor={`rename-${profile.id}`}>
            New name for {profile.name}
          </label>
          <input
            id={`rename-${profile.id}`}
            value={name}
            autoFocus
            onChange={(event) => setName(event.target.value)}
          />
          <button type="submit">Save</button>
          <button type="button" onClick={closeRename}>
            Cancel
          </button>
          {rename.error && (
            <span className="field-error" role="alert">
              {rename.error.message}
            </span>
          )}
        </form>
      ) : (
        <div className="connection-facts">
          <strong>{profile.name}</strong>
          <span className="muted mono">{profile.baseUrl}</span>
          <span className="muted">
            {profile.authKind === 'client' ? `API key ${profile.clientId ?? ''}` : 'Access token'}
          </span>
        </div>
      )}
      {mode === 'view' && (
        <div className="actions">
          <button type="button" ref={renameButton} onClick={startRename}>
            Rename
          </button>
          <button
            type="button"
            ref={removeButton}
            data-remove-connection
            onClick={() => setMode('confirm-remove')}
          >
            Remove…
          </button>
        </div>
      )}
      {mode === 'confirm-remove' && (
        <div
          className="confirm"
          role="group"
          aria-label={`Remove ${profile.name}`}
          onKeyDown={(event) => {
            if (event.key !== 'Escape') return;
            event.preventDefault();
            keep();
          }}
        >
          <span>Remove {profile.name}, its offline copy and its keychain entry?</span>
          <button
            type="button"
            className="danger"
            autoFocus
            onClick={() => {
              onRemove();
              remove.mutate({ id: profile.id });
            }}
          >
            Remove
          </button>
          <button type="button" onClick={keep}>
            Keep
          </button>
          {remove.error && (
            <span className="field-error" role="alert">
              {remove.error.message}
            </span>
          )}
        </div>
      )}
    </li>
  );
}

export function ConnectionsSection() {
  const profiles = useCommand('profiles.list', {});
  const keychain = useCommand('keychain.status', {});
  const [adding, setAdding] = useState(false);
  const list = useRef<HTMLUListElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  // A removed connection goes with the focus on its prompt's Remove button. Once the list no
  // longer holds it (a removal that fails leaves it there, with its error), the focus goes to
  // the Remove… button of the connection that took its place (the next one), else of the one
  // before, else to "Add an organisation…".
  const removed = useRef<{ index: number; id: string } | null>(null);
  const shown = profiles.data?.profiles;
  useEffect(() => {
    const removedAt = removed.current;
    if (!removedAt || shown?.some((profile) => profile.id === removedAt.id)) return;
    removed.current = null;
    const focused = document.activeElement;
    if (focused && focused !== document.body) return;
    const buttons = [...(list.current?.querySelectorAll<HTMLElement>('[data-remove-connection]') ?? [])];
    (buttons[removedAt.index] ?? buttons[removedAt.index - 1] ?? addButton.current)?.focus();
  }, [shown]);

  return (
    <>
      <h2>Connected organisations</h2>
      <p className="muted" data-testid="keychain-status">
        Keychain:{' '}
        {keychain.data === undefined
          ? 'checking…'
          : keychain.data.available
            ? 'available'
            : keychain.data.message}
      </p>
      {profiles.data && profiles.data.profiles.length > 0 ? (
        <ul className="connections" ref={list}>
          {profiles.data.profiles.map((profile, index) => (
            <ConnectionRow
              key={profile.id}
              profile={profile}
              onRemove={() => {
                removed.current = { index, id: profile.id };
              }}
            />
          ))}
        </ul>
      ) : (
        <p className="muted">None yet.</p>
      )}
      {adding ? (
        <ConnectForm onConnected={() => setAdding(false)} />
      ) : (
        <button type="button" ref={addButton} onClick={() => setAdding(true)}>
          Add an organisation…
        </button>
      )}
    </>
  );
}
