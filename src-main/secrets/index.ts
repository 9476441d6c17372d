import keytar from 'keytar';
import { AppError } from '../../src-shared/errors';
import { log } from '../log';
import { keyringState, lockedItemsOf, serviceAccounts, type KeyringState } from './locked';

/**
 * The only home of secrets: the operating system's keychain (Keychain on macOS, Credential
 * Manager on Windows, the Secret Service — GNOME Keyring or KWallet — on Linux). There is no
 * fallback to a file: if no keychain answers, the user gets an error that says what to do.
 */
export interface Secrets {
  set(account: string, secret: string): Promise<void>;
  get(account: string): Promise<string | null>;
  delete(account: string): Promise<boolean>;
  /** Account names only; secrets are never listed. */
  list(): Promise<string[]>;
  /** Whether a keychain answers, without storing anything the user would see. */
  status(): Promise<KeychainStatus>;
  /**
   * Of these accounts, those whose item is locked, in whichever keyring, each with the label of
   * the keyring that holds it (null when not known). Nothing is read: the Secret Service tells
   * locked items apart without opening them. Empty where that cannot be asked (macOS, Windows,
   * where the keychain library raises its own error or asks the user to unlock) or told.
   */
  lockedAccounts(accounts: readonly string[]): Promise<Map<string, string | null>>;
}

export type KeychainStatus = { available: true } | { available: false; code: string; message: string };

export const DEFAULT_SERVICE = 'Satchel';

/**
 * The account `status` looks up: never stored (the app's accounts are `profile:<id>`), so the
 * answer is always "nothing found" from a keychain that answers.
 */
export const STATUS_PROBE_ACCOUNT = 'satchel-status-probe (never stored)';

const UNAVAILABLE = [
  /dbus-launch/i,
  /could not connect/i,
  /cannot autolaunch/i,
  /was not provided by any \.service files/i,
  /no such interface/i,
  /the name .* was not provided/i,
];
const LOCKED = [/locked collection/i, /object does not exist at path/i, /prompt.*dismissed/i, /cancel/i];

/**
 * Where to unlock a keyring, in words: named when the Secret Service gave its label, else "the
 * locked keyring"; signing in again unlocks only the login one.
 */
function whereToUnlock(keyring: string | null | undefined): string {
  const login = keyring?.trim().toLowerCase() === 'login';
  return (
    "in your system's keyring manager (on Linux: " +
    (keyring ? `the "${keyring}" keyring` : 'the locked keyring') +
    ' in Passwords and Keys' +
    (login ? ', or sign in to your desktop again' : '') +
    ')'
  );
}

/**
 * The keychain is known to be locked (not merely "locked or missing"): what it means and what to
 * do. `keyring`: the label of the locked keyring that holds the key, when known.
 */
export function keychainLockedError(keyring?: string | null): AppError {
  return new AppError(
    'KEYCHAIN_LOCKED',
    'The system keychain is locked, so Satchel cannot read the key it signs in with. Unlock it ' +
      `${whereToUnlock(keyring)}, then try again. Nothing needs to be entered again, and the ` +
      'offline copy stays readable meanwhile.',
  );
}

/** Said beside an organisation whose key is in a locked keyring (Settings). */
export function lockedKeyMessage(keyring: string | null): string {
  return (
    'Its key is in a locked keyring, so it cannot sync. Unlock ' +
    `that keyring ${whereToUnlock(keyring)}, then try again. Nothing ` +
    'needs to be entered again.'
  );
}

/**
 * The Secret Service has no default keyring (no login keyring was ever made, or it was deleted):
 * a key cannot be stored, though the keychain answers. Said with the locked keychain's code, as
 * everything that would sign in stops the same way and the same Settings check sees it end.
 */
export function noDefaultKeyringError(): AppError {
  return new AppError(
    'KEYCHAIN_LOCKED',
    'The system keychain has no default keyring, so Satchel has nowhere to keep the key it signs in ' +
      'with. Create one (on Linux: in Passwords and Keys, a new password keyring, then "Set as ' +
      'default"), then try again. The offline copy stays readable meanwhile.',
  );
}

/**
 * What the Secret Service says of its keyrings, where that can be asked (Linux); on macOS and
 * Windows the keychain library itself raises an error (or asks the user to unlock), so there is
 * nothing to ask. `attributes`: the items to count the locked ones of.
 */
async function keyringsNow(attributes?: Record<string, string>): Promise<KeyringState> {
  if (process.platform !== 'linux')
    return { defaultKeyring: null, defaultLabel: null, lockedItems: null, problem: null };
  const state = await keyringState(attributes);
  noteProblem(state.problem);
  return state;
}

let lastProblem: string | null = null;
/** Why the Secret Service could not be asked, logged once until it changes (Settings asks often). */
function noteProblem(problem: string | null): void {
  if (problem === lastProblem) return;
  lastProblem = problem;
  if (problem) log.warn(`Could not ask the Secret Service whether a keyring is locked: ${problem}`);
}

/** Maps the keychain library's message to an error the user can act on. Never includes a secret. */
export function keychainError(cause: unknown): AppError {
  const text = cause instanceof Error ? cause.message : String(cause);
  if (UNAVAILABLE.some((pattern) => pattern.test(text))) {
    return new AppError(
      'KEYCHAIN_UNAVAILABLE',
      'No keychain answered. Satchel keeps credentials only in the system keychain: on Linux, install ' +
        'and start GNOME Keyring or KWallet (the Secret Service) in your desktop session, then try again.',
    );
  }
  if (LOCKED.some((pattern) => pattern.test(text))) {
    return new AppError(
      'KEYCHAIN_LOCKED',
      'The system keychain is locked or has no default keyring. Unlock it (or create a login keyring) ' +
        'and try again.',
    );
  }
  return new AppError('KEYCHAIN_ERROR', `The system keychain refused the request (${text}). Try again.`);
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw keychainError(error);
  }
}

function checkAccount(account: string): void {
  if (account.trim() === '')
    throw new AppError('VALIDATION_ERROR', 'A keychain account name is required.', 'account');
}

export function createKeychainSecrets(options: { service?: string } = {}): Secrets {
  const service = options.service ?? DEFAULT_SERVICE;
  // libsecret, under keytar, takes a locked keyring whose unlock prompt was dismissed (or could
  // not be shown) for an empty one: a lookup finds nothing, a delete deletes nothing, and a
  // search of all items (findCredentials) crashes the process on the first locked item. So
  // "nothing" is checked after the fact: is the default keyring locked, or is any item of the
  // service (of the account) locked, in whichever keyring (locked.ts). `list` does not use
  // libsecret's search on Linux: it asks the Secret Service itself for the service's items and
  // reads each one's attributes (never its secret), refusing when one is locked, even one locked
  // since its search. Only when the Secret Service cannot be asked at all (no session bus, no
  // answer in time; macOS and Windows) does it search with keytar, as before, after the same
  // question: there a keyring locked in the instant between them could still crash it. `status`
  // looks one account up.
  const refuseIfLocked = async (attributes: Record<string, string>) => {
    const state = await keyringsNow(attributes);
    const item = state.lockedItems?.[0];
    if (item) throw keychainLockedError(item.keyring);
    if (state.defaultKeyring === 'locked') throw keychainLockedError(state.defaultLabel);
  };
  return {
    async set(account, secret) {
      checkAccount(account);
      if (secret === '') throw new AppError('VALIDATION_ERROR', 'The secret is empty.', 'secret');
      try {
        await keytar.setPassword(service, account, secret);
      } catch (error) {
        // A new item goes to the default keyring: locked, or none, is what stopped it.
        const { defaultKeyring, defaultLabel } = await keyringsNow();
        if (defaultKeyring === 'locked') throw keychainLockedError(defaultLabel);
        if (defaultKeyring === 'none') throw noDefaultKeyringError();
        throw keychainError(error);
      }
    },
    async get(account) {
      checkAccount(account);
      const secret = await guarded(() => keytar.getPassword(service, account));
      if (secret === null) await refuseIfLocked({ service, account });
      return secret;
    },
    async delete(account) {
      checkAccount(account);
      const deleted = await guarded(() => keytar.deletePassword(service, account));
      if (!deleted) await refuseIfLocked({ service, account });
      return deleted;
    },
    async list() {
      if (process.platform === 'linux') {
        const found = await serviceAccounts(service);
        noteProblem(found.problem);
        const item = found.lockedItems?.[0];
        if (item) throw keychainLockedError(item.keyring);
        if (found.defaultKeyring === 'locked') throw keychainLockedError(found.defaultLabel);
        if (found.accounts) return found.accounts;
        // Searched, but an item could not be read or was locked since: refuse if something is
        // locked now, asked again; else keytar's search, after that question, as below.
        if (found.searched) await refuseIfLocked({ service });
      } else await refuseIfLocked({ service });
      const found = await guarded(() => keytar.findCredentials(service));
      return [...new Set(found.map((entry) => entry.account))].sort();
    },
    async status() {
      // The default keyring is where a key is stored: locked, or none, no key can be.
      const { defaultKeyring, defaultLabel } = await keyringsNow();
      if (defaultKeyring === 'locked' || defaultKeyring === 'none') {
        const appError =
          defaultKeyring === 'locked' ? keychainLockedError(defaultLabel) : noDefaultKeyringError();
        return { available: false, code: appError.code, message: appError.message };
      }
      // A lookup of an account that is never stored answers whether the Secret Service is
      // reachable and answering, as a search would, without reading any item: a locked item
      // (whose search would crash the process) is never touched. Settings asks this each time it
      // is shown, and every 5 s while the keychain is not available.
      try {
        await keytar.getPassword(service, STATUS_PROBE_ACCOUNT);
        return { available: true };
      } catch (error) {
        const appError = keychainError(error);
        return { available: false, code: appError.code, message: appError.message };
      }
    },
    async lockedAccounts(accounts) {
      const locked = new Map<string, string | null>();
      if (process.platform !== 'linux' || accounts.length === 0) return locked;
      const found = await lockedItemsOf(accounts.map((account) => ({ service, account })));
      noteProblem(found.problem);
      accounts.forEach((account, index) => {
        const item = found.locked[index]?.[0];
        if (item) locked.set(account, item.keyring);
      });
      return locked;
    },
  };
}
