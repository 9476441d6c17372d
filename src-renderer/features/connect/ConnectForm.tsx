import { useId, useState, type FormEvent } from 'react';
import { AppError } from '../../../src-shared/errors';
import { useCommandMutation } from '../../lib/query';
import { call } from '../../lib/satchel';

type AuthKind = 'client' | 'token';

/** Which input an error's field belongs to ("auth.clientSecret" → clientSecret). */
function fieldOf(error: unknown): string | undefined {
  if (!(error instanceof AppError) || !error.field) return undefined;
  return error.field.split('.').at(-1);
}

/** `onConnected` learns whether the API could check the credentials then (`checked`). */
export function ConnectForm({ onConnected }: { onConnected?: (added: { checked: boolean }) => void }) {
  const id = useId();
  const [kind, setKind] = useState<AuthKind>('client');
  const [values, setValues] = useState({
    name: '',
    baseUrl: '',
    clientId: '',
    clientSecret: '',
    accessToken: '',
  });
  const add = useCommandMutation('profiles.add', ['profiles.list']);
  const errorField = fieldOf(add.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const auth =
      kind === 'client'
        ? { kind, clientId: values.clientId, clientSecret: values.clientSecret }
        : { kind, accessToken: values.accessToken };
    add.mutate(
      { name: values.name, baseUrl: values.baseUrl, auth },
      {
        onSuccess: (profile) => {
          // The secret is in the keychain now; nothing of it stays in the page.
          setValues((current) => ({ ...current, clientSecret: '', accessToken: '' }));
          // The first sync starts at once, as the demo's does: the background's rounds come only
          // every 15 minutes, and the lists would say "0 transactions" until then. How it went
          // (also an address that gave no answer now) is in the Sync area.
          void call('sync.start', { profileId: profile.id }).catch(() => undefined);
          onConnected?.(profile);
        },
      },
    );
  };

  const field = (name: keyof typeof values, label: string, type = 'text', hint?: string) => {
    const invalid =
      errorField === name ||
      (errorField === 'auth' && (name === 'clientId' || name === 'clientSecret' || name === 'accessToken'));
    return (
      <div className="field">
        <label htmlFor={`${id}-${name}`}>{label}</label>
        <input
          id={`${id}-${name}`}
          name={name}
          type={type}
          autoComplete="off"
          spellCheck={false}
          value={values[name]}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? `${id}-error` : hint ? `${id}-${name}-hint` : undefined}
          onChange={(event) => setValues((current) => ({ ...current, [name]: event.target.value }))}
        />
        {hint && !invalid && (
          <p className="hint" id={`${id}-${name}-hint`}>
            {hint}
          </p>
        )}
        {invalid && (
          <p className="field-error" id={`${id}-error`} role="alert">
            {add.error?.message}
          </p>
        )}
      </div>
    );
  };

  return (
    <form className="connect-form" onSubmit={submit} aria-label="Connect an organisation">
      {field(
        'name',
        'Name',
        'text',
        'How this organisation appears in Satchel, for example the client’s name.',
      )}
      {field(
        'baseUrl',
        'API address',
        'url',
        'The base URL of the spend API, for example https://api.example.com.',
      )}
      <fieldset className="auth-kind">
        <legend>Sign in with</legend>
        <label>
          <input type="radio" name="kind" checked={kind === 'client'} onChange={() => setKind('client')} />{' '}
          API key
        </label>
        <label>
          <input type="radio" name="kind" checked={kind === 'token'} onChange={() => setKind('token')} />{' '}
          Access token
        </label>
      </fieldset>
      {kind === 'client' ? (
        <>
          {field('clientId', 'API key id')}
          {field('clientSecret', 'API key secret', 'password', 'Stored only in your system keychain.')}
        </>
      ) : (
        field('accessToken', 'Access token', 'password', 'Stored only in your system keychain.')
      )}
      {add.error && !errorField && (
        <p className="form-error" role="alert">
          {add.error.message}
        </p>
      )}
      <button type="submit" className="primary" disabled={add.isPending}>
        {add.isPending ? 'Connecting…' : 'Connect'}
      </button>
    </form>
  );
}
