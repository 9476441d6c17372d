import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { counted } from '../../../src-shared/counted';
import { AppError } from '../../../src-shared/errors';
import type { LockedKey } from '../../../src-shared/ipc';
import { UNCHECKED_CONNECTION, UNCHECKED_KEY, type ProfileSummary } from '../../../src-shared/profiles';
import { formatCount } from '../../lib/format';
import { useCommand, useCommandMutation } from '../../lib/query';
import { call } from '../../lib/satchel';
import { ConnectForm } from '../connect/ConnectForm';

/** How a New key… form closed: not saved, or saved after the API took it, or saved unchecked. */
type KeyFormEnd = 'cancelled' | 'checked' | 'unchecked';

/**
 * A new key (or token) for a connection whose key was revoked, rotated or lost from the
 * keychain: the core checks it with the API before it replaces the one before (with no answer,
 * it is kept unchecked, and the next sync checks it).
 */
function KeyForm({ profile, onClose }: { profile: ProfileSummary; onClose(end: KeyFormEnd): void }) {
  const id = useId();
  const [clientId, setClientId] = useState(profile.clientId ?? '');
  const [secret, setSecret] = useState('');
  const reauthenticate = useCommandMutation('profiles.reauthenticate', ['profiles.list']);
  const client = profile.authKind === 'client';
  const invalid = reauthenticate.error instanceof AppError && reauthenticate.error.field?.startsWith('auth');
  const described = invalid ? `${id}-error` : undefined;
  return (
    <form
      className="inline-form"
      aria-label={`New key for ${profile.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        reauthenticate.mutate(
          {
            id: profile.id,
            auth: client
              ? { kind: 'client', clientId, clientSecret: secret }
              : { kind: 'token', accessToken: secret },
          },
          // The secret is in the keychain now; nothing of it stays in the page.
          { onSuccess: ({ checked }) => onClose(checked ? 'checked' : 'unchecked') },
        );
      }}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        onClose('cancelled');
      }}
    >
      {client && (
        <>
          <label htmlFor={`${id}-client`}>API key id</label>
          <input
            id={`${id}-client`}
            value={clientId}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            aria-invalid={invalid || undefined}
            aria-describedby={described}
            onChange={(event) => setClientId(event.target.value)}
          />
        </>
      )}
      <label htmlFor={`${id}-secret`}>{client ? 'API key secret' : 'Access token'}</label>
      <input
        id={`${id}-secret`}
        type="password"
        value={secret}
        autoFocus={!client}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={invalid || undefined}
        aria-describedby={described}
        onChange={(event) => setSecret(event.target.value)}
      />
      <button type="submit" disabled={reauthenticate.isPending}>
        {reauthenticate.isPending ? 'Checking…' : 'Save'}
      </button>
      <button type="button" onClick={() => onClose('cancelled')}>
        Cancel
      </button>
      {reauthenticate.error && (
        <span className="field-error" id={`${id}-error`} role="alert">
          {reauthenticate.error.message}
        </span>
      )}
    </form>
  );
}

const count = (n: number, one: string, many: string) => counted(n, one, many, formatCount);

/** Events after which an organisation's unsent edits or review marks may be other than counted. */
const LOCAL_WORK_EVENTS = ['edits.progress', 'review.progress', 'sync.finished'] as const;

/**
 * "Remove …?", saying what only this computer holds of the organisation and would go with it:
 * the edits not sent yet and the review marks (read afresh each time the prompt opens, and again
 * while it is open after each event that may change them: a push sending edits, a review change
 * of a whole result, a sync). Remove does nothing until they are counted, or while a count shown
 * is read again, so an Enter pressed at once cannot remove before the warning shows what is
 * current; it keeps the focus meanwhile (aria-disabled, not disabled), so Esc still keeps.
 */
function RemovePrompt({
  profile,
  onRemove,
  onKeep,
}: {
  profile: ProfileSummary;
  onRemove(): void;
  onKeep(): void;
}) {
  const id = useId();
  const remove = useCommandMutation('profiles.remove', ['profiles.list']);
  const [work, setWork] = useState<
    | { status: 'reading' }
    // `current`: false from an event that may change the counts until they are read again.
    | { status: 'read'; edits: number; marks: number; damaged?: boolean; current: boolean }
    | { status: 'failed'; message: string }
  >({ status: 'reading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const stale = () => {
      setWork((shown) => (shown.status === 'read' ? { ...shown, current: false } : shown));
      setAttempt((n) => n + 1);
    };
    const stops = LOCAL_WORK_EVENTS.map((name) =>
      window.satchel.on(name, (event) => {
        if (event.profileId === profile.id) stale();
      }),
    );
    return () => {
      for (const stop of stops) stop();
    };
  }, [profile.id]);
  useEffect(() => {
    // Only the newest read is taken: one started before an event may count what it changed.
    let live = true;
    call('profiles.localWork', { id: profile.id }).then(
      (answer) => live && setWork({ status: 'read', ...answer, current: true }),
      (error: unknown) =>
        live &&
        setWork({ status: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [profile.id, attempt]);
  const ready = work.status === 'read' && work.current;
  const counted = work.status === 'read';
  const edits = counted ? work.edits : 0;
  const marks = counted ? work.marks : 0;
  const lost = [
    ...(edits > 0 ? [count(edits, 'unsent edit', 'unsent edits')] : []),
    ...(marks > 0 ? [count(marks, 'review mark', 'review marks')] : []),
  ];
  const them = edits + marks === 1 ? 'it' : 'them';
  const keepBy = [
    ...(edits > 0 ? [`send ${edits === 1 ? 'the edit' : 'the edits'} (Suppliers, Dimensions)`] : []),
    ...(marks > 0 ? [`export ${marks === 1 ? 'the mark' : 'the marks'} (Needs attention)`] : []),
  ];
  return (
    <div
      className="confirm"
      role="group"
      aria-label={`Remove ${profile.name}`}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        onKeep();
      }}
    >
      <span>Remove {profile.name}, its offline copy and its keychain entry?</span>
      {work.status === 'reading' && (
        <span id={`${id}-lost`} className="muted" data-testid="removal-checking">
          Checking what only this computer has of it…
        </span>
      )}
      {work.status === 'read' && !work.current && (
        <span id={`${id}-recount`} className="muted" data-testid="removal-checking">
          Checking again what only this computer has of it…
        </span>
      )}
      {work.status === 'failed' && (
        <span id={`${id}-lost`} className="field-error" role="alert">
          Could not check what only this computer has of {profile.name} (unsent edits, review marks), so
          Remove waits: {work.message}
        </span>
      )}
      {work.status === 'read' && work.damaged === true && (
        <span id={`${id}-lost`} data-testid="removal-loses">
          Its offline copy cannot be opened
          {lost.length > 0 ? `, though Satchel can still read its ${lost.join(' and ')}` : ''}. Removing sets
          the file aside beside the others, renamed, not deleted.
        </span>
      )}
      {lost.length > 0 && work.status === 'read' && work.damaged !== true && (
        <span id={`${id}-lost`} data-testid="removal-loses">
          Only this computer has its {lost.join(' and ')}; removing the organisation loses {them}. To keep{' '}
          {them}, {keepBy.join(' and ')} first.
        </span>
      )}
      <button
        type="button"
        className="danger"
        autoFocus
        aria-disabled={!ready || undefined}
        aria-describedby={
          [
            ...(work.status !== 'read' || lost.length > 0 || work.damaged === true ? [`${id}-lost`] : []),
            ...(counted && !ready ? [`${id}-recount`] : []),
          ].join(' ') || undefined
        }
        onClick={() => {
          if (!ready) return;
          onRemove();
          remove.mutate({ id: profile.id });
        }}
      >
        Remove
      </button>
      {work.status === 'failed' && (
        <button
          type="button"
          onClick={() => {
            setWork({ status: 'reading' });
            setAttempt((n) => n + 1);
          }}
        >
          Try again
        </button>
      )}
      <button type="button" onClick={onKeep}>
        Keep
      </button>
      {remove.error && (
        <span className="field-error" role="alert">
          {remove.error.message}
        </span>
      )}
    </div>
  );
}

function ConnectionRow({
  profile,
  lockedKey,
  onRemove,
}: {
  profile: ProfileSummary;
  /** Said when this organisation's key is in a locked keyring (`keychain.status`). */
  lockedKey: LockedKey | undefined;
  onRemove(): void;
}) {
  const [mode, setMode] = useState<'view' | 'rename' | 'key' | 'confirm-remove'>('view');
  const [name, setName] = useState(profile.name);
  const [keySaved, setKeySaved] = useState<KeyFormEnd>('cancelled');
  const rename = useCommandMutation('profiles.rename', ['profiles.list']);
  const renameButton = useRef<HTMLButtonElement>(null);
  const keyButton = useRef<HTMLButtonElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  // The form or the prompt goes with the focus in it: once it is closed the focus goes back to
  // the button that opened it.
  const refocus = useRef<'rename' | 'key' | 'remove' | null>(null);
  useEffect(() => {
    if (mode !== 'view' || !refocus.current) return;
    const button = { rename: renameButton, key: keyButton, remove: removeButton }[refocus.current];
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
      {lockedKey && (
        <span className="notice-warning" data-testid="key-locked">
          {lockedKey.message}
        </span>
      )}
      {mode === 'key' && (
        <KeyForm
          profile={profile}
          onClose={(end) => {
            setKeySaved(end);
            setMode('view');
            refocus.current = 'key';
          }}
        />
      )}
      {mode === 'view' && (
        <div className="actions">
          <button type="button" ref={renameButton} onClick={startRename}>
            Rename
          </button>
          <button
            type="button"
            ref={keyButton}
            onClick={() => {
              setKeySaved('cancelled');
              setMode('key');
            }}
          >
            New key…
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
      {mode === 'view' && keySaved !== 'cancelled' && (
        <span className={keySaved === 'checked' ? 'muted' : 'notice-warning'} role="status">
          {keySaved === 'checked' ? 'New key saved; the next sync signs in with it.' : UNCHECKED_KEY}
        </span>
      )}
      {mode === 'confirm-remove' && <RemovePrompt profile={profile} onRemove={onRemove} onKeep={keep} />}
    </li>
  );
}

const KEYCHAIN_RECHECK_MS = 5_000;

export function ConnectionsSection() {
  const profiles = useCommand('profiles.list', {});
  // The keychain changes outside the app (a screen lock locks it, a sign-in unlocks it): read
  // each time Settings is shown, and every few seconds while it is not available or an
  // organisation's key is in a locked keyring, so the words go once it is unlocked, not stay
  // what they were when first read.
  const keychain = useCommand(
    'keychain.status',
    {},
    {
      refetchInterval: (status) =>
        status && (!status.available || status.lockedKeys.length > 0) ? KEYCHAIN_RECHECK_MS : false,
    },
  );
  const lockedKeys = keychain.data?.lockedKeys ?? [];
  const client = useQueryClient();
  useEffect(() => {
    void client.invalidateQueries({ queryKey: ['keychain.status'] });
  }, [client]);
  const [adding, setAdding] = useState(false);
  // A connection added with no answer to check its credentials with says so until the next add.
  const [addedUnchecked, setAddedUnchecked] = useState(false);
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
            ? lockedKeys.length === 0
              ? 'available'
              : `available, but ${
                  lockedKeys.length === 1
                    ? 'one organisation’s key is'
                    : `${formatCount(lockedKeys.length)} organisations’ keys are`
                } in a locked keyring, said below.`
            : keychain.data.message}
      </p>
      {profiles.data && profiles.data.profiles.length > 0 ? (
        <ul className="connections" ref={list}>
          {profiles.data.profiles.map((profile, index) => (
            <ConnectionRow
              key={profile.id}
              profile={profile}
              lockedKey={lockedKeys.find((locked) => locked.profileId === profile.id)}
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
        <ConnectForm
          onConnected={({ checked }) => {
            setAddedUnchecked(!checked);
            setAdding(false);
          }}
        />
      ) : (
        <button
          type="button"
          ref={addButton}
          onClick={() => {
            setAddedUnchecked(false);
            setAdding(true);
          }}
        >
          Add an organisation…
        </button>
      )}
      {!adding && addedUnchecked && (
        <p className="notice-warning" role="status">
          {UNCHECKED_CONNECTION}
        </p>
      )}
    </>
  );
}
