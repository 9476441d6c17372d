import keytar from 'keytar';
import { AppError } from '../../src-shared/errors';

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
}

export type KeychainStatus = { available: true } | { available: false; code: string; message: string };

export const DEFAULT_SERVICE = 'Satchel';

const UNAVAILABLE = [
  /dbus-launch/i,
  /could not connect/i,
  /cannot autolaunch/i,
  /was not provided by any \.service files/i,
  /no such interface/i,
  /the name .* was not provided/i,
];
const LOCKED = [/locked collection/i, /object does not exist at path/i, /prompt.*dismissed/i, /cancel/i];

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
  return {
    async set(account, secret) {
      checkAccount(account);
      if (secret === '') throw new AppError('VALIDATION_ERROR', 'The secret is empty.', 'secret');
      await guarded(() => keytar.setPassword(service, account, secret));
    },
    get(account) {
      checkAccount(account);
      return guarded(() => keytar.getPassword(service, account));
    },
    delete(account) {
      checkAccount(account);
      return guarded(() => keytar.deletePassword(service, account));
    },
    async list() {
      const found = await guarded(() => keytar.findCredentials(service));
      return found.map((entry) => entry.account).sort();
    },
    async status() {
      try {
        await keytar.findCredentials(service);
        return { available: true };
      } catch (error) {
        const appError = keychainError(error);
        return { available: false, code: appError.code, message: appError.message };
      }
    },
  };
}
