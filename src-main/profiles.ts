import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../src-shared/errors';
import { BaseUrl, ProfileAuth, ProfileName, ProfileSummary } from '../src-shared/profiles';
import type { Credentials } from './api/credentials';
import { systemReason } from './folders';
import { replaceFileSync } from './replace-file';
import type { Secrets } from './secrets';

/**
 * Connections to organisations. The registry (profiles.json in the data folder) holds only what
 * is not secret: name, base URL, the API key id. The secret or token lives in the keychain under
 * the account `profile:<id>`; each profile has its own cache file.
 */

export type Profile = ProfileSummary;

const Registry = z.object({ version: z.literal(1), profiles: z.array(ProfileSummary) });

export interface ProfileStore {
  list(): Profile[];
  get(idOrName: string): Profile;
  add(input: { name: string; baseUrl: string; auth: ProfileAuth; demo?: boolean }): Promise<Profile>;
  rename(id: string, name: string): Profile;
  /** Points a connection at another address (the demo organisation's port changes per start). */
  moveTo(id: string, baseUrl: string): Profile;
  reauthenticate(id: string, auth: ProfileAuth): Promise<Profile>;
  /**
   * Deletes the keychain entry first: if the keychain refuses (locked, none answering), nothing
   * else is touched and the error says so. Then `release` lets go of what else the connection
   * holds (its open cache, its offline files) before its cache file and its line in the list go.
   */
  remove(id: string, release?: () => Promise<void>): Promise<void>;
  credentials(id: string): Promise<Credentials>;
  cacheFile(id: string): string;
  /** The list's file: profiles.json in the data folder. */
  readonly file: string;
  /**
   * Sets a list that cannot be read aside, renamed beside itself (never deleted, never over an
   * earlier one), and writes `profiles` as the new list; returns the old list's new path. A list
   * that reads (or none at all) is refused, and so is nothing changed when the new one cannot be
   * written: the old one goes back.
   */
  replaceDamaged(profiles: Profile[]): string;
}

/** The keychain account of a profile's key. */
export const secretAccount = (id: string) => `profile:${id}`;

function readReason(error: NodeJS.ErrnoException): string {
  if (error.code === 'EACCES' || error.code === 'EPERM')
    return 'Satchel may not read it; check its permissions';
  if (error.code === 'EISDIR') return 'it is a folder, not a file';
  return error.message;
}

/** `profiles.damaged-<UTC time>.json` beside `file`, never the name of an earlier one. */
function setAsideName(file: string, now: Date): string {
  const stem = file.replace(/\.json$/, '');
  const when = now.toISOString().replace(/[:.]/g, '-');
  let target = `${stem}.damaged-${when}.json`;
  for (let n = 2; existsSync(target); n += 1) target = `${stem}.damaged-${when}-${n}.json`;
  return target;
}

function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_ERROR', parsed.error.issues[0]?.message ?? 'Invalid value.', field);
}

export function createProfileStore(options: {
  dataDir: string;
  secrets: Secrets;
  now?: () => Date;
}): ProfileStore {
  const file = path.join(options.dataDir, 'profiles.json');
  const now = options.now ?? (() => new Date());

  function read(): Profile[] {
    if (!existsSync(file)) return [];
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      // Not readable (its permissions, a folder in its place): said, never taken for no list.
      throw new AppError(
        'INTERNAL',
        `Satchel cannot read the list of organisations (${file}): ${readReason(error as NodeJS.ErrnoException)}. Satchel changed nothing: the offline copies and the keys in the system keychain are kept. Fix that and try again.`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Cut short or overwritten (a full disk, another program): the same damage as a wrong shape.
      json = undefined;
    }
    const parsed = Registry.safeParse(json);
    if (!parsed.success) {
      throw new AppError(
        'INTERNAL',
        `The list of organisations (${file}) is damaged. Satchel changed nothing: the offline copies and the keys in the system keychain are kept. Restore the file from a backup; or move it away and connect again (the old connections' keys then stay in the keychain, under "Satchel").`,
      );
    }
    return parsed.data.profiles;
  }

  /**
   * Write to a temporary file, sync it and rename it over the old one: a crash or a power cut
   * leaves either version, whole. A failure (a full disk) leaves the old list as it was and is
   * said in words.
   */
  function write(profiles: Profile[]): void {
    try {
      replaceFileSync(file, JSON.stringify({ version: 1, profiles }, null, 2));
    } catch (error) {
      throw new AppError(
        'INTERNAL',
        `Could not save the list of organisations (${file}): ${systemReason(error as NodeJS.ErrnoException)}. Nothing was changed.`,
      );
    }
  }

  /** Runs `change` of the list; if it cannot be saved, `undo` puts the keychain back first. */
  async function saveOrUndo(change: () => void, undo: () => Promise<unknown>): Promise<void> {
    try {
      change();
    } catch (error) {
      await undo().catch(() => undefined);
      throw error;
    }
  }

  function find(idOrName: string): Profile {
    const profile = read().find((candidate) => candidate.id === idOrName || candidate.name === idOrName);
    if (!profile)
      throw new AppError('NOT_FOUND', `No organisation called "${idOrName}" is connected.`, 'profile');
    return profile;
  }

  function ensureUniqueName(name: string, exceptId?: string): void {
    if (
      read().some((profile) => profile.name.toLowerCase() === name.toLowerCase() && profile.id !== exceptId)
    ) {
      throw new AppError(
        'VALIDATION_ERROR',
        `An organisation called "${name}" is already connected.`,
        'name',
      );
    }
  }

  function cacheFile(id: string): string {
    return path.join(options.dataDir, 'caches', `${id}.sqlite`);
  }

  return {
    list: read,
    get: find,
    async add(input) {
      const name = parseOrThrow(ProfileName, input.name, 'name');
      const baseUrl = parseOrThrow(BaseUrl, input.baseUrl, 'baseUrl');
      const auth = parseOrThrow(ProfileAuth, input.auth, 'auth');
      ensureUniqueName(name);
      const profile: Profile = {
        id: randomUUID(),
        name,
        baseUrl,
        authKind: auth.kind,
        ...(auth.kind === 'client' ? { clientId: auth.clientId } : {}),
        demo: input.demo ?? false,
        createdAt: now().toISOString(),
      };
      // Keychain first: if it refuses, nothing else has been written.
      await options.secrets.set(
        secretAccount(profile.id),
        auth.kind === 'client' ? auth.clientSecret : auth.accessToken,
      );
      // Not listed, then not kept: no secret is left in the keychain for a connection that is not there.
      await saveOrUndo(
        () => write([...read(), profile]),
        () => options.secrets.delete(secretAccount(profile.id)),
      );
      return profile;
    },
    rename(id, newName) {
      const name = parseOrThrow(ProfileName, newName, 'name');
      const profile = find(id);
      ensureUniqueName(name, profile.id);
      const renamed = { ...profile, name };
      write(read().map((candidate) => (candidate.id === profile.id ? renamed : candidate)));
      return renamed;
    },
    moveTo(id, newUrl) {
      const baseUrl = parseOrThrow(BaseUrl, newUrl, 'baseUrl');
      const moved = { ...find(id), baseUrl };
      write(read().map((candidate) => (candidate.id === moved.id ? moved : candidate)));
      return moved;
    },
    async reauthenticate(id, input) {
      const auth = parseOrThrow(ProfileAuth, input, 'auth');
      const profile = find(id);
      const before = await options.secrets.get(secretAccount(profile.id));
      await options.secrets.set(
        secretAccount(profile.id),
        auth.kind === 'client' ? auth.clientSecret : auth.accessToken,
      );
      const { clientId: _old, ...rest } = profile;
      const updated: Profile = {
        ...rest,
        authKind: auth.kind,
        ...(auth.kind === 'client' ? { clientId: auth.clientId } : {}),
      };
      // The old key goes back if the list cannot be saved: the key and the list's client id agree.
      await saveOrUndo(
        () => write(read().map((candidate) => (candidate.id === profile.id ? updated : candidate))),
        () =>
          before === null
            ? options.secrets.delete(secretAccount(profile.id))
            : options.secrets.set(secretAccount(profile.id), before),
      );
      return updated;
    },
    async remove(id, release) {
      const profile = find(id);
      try {
        await options.secrets.delete(secretAccount(profile.id));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        throw new AppError(
          error.code,
          `${error.message.replace(/[.\s]+$/, '')}. "${profile.name}" was not removed: its keychain entry, offline copy and files are all still there.`,
        );
      }
      await release?.();
      // With the cache go its WAL files and the run ends its history refused (sync/service.ts).
      for (const suffix of ['', '-wal', '-shm', '-run-ends.json'])
        rmSync(`${cacheFile(profile.id)}${suffix}`, { force: true });
      write(read().filter((candidate) => candidate.id !== profile.id));
    },
    async credentials(id) {
      const profile = find(id);
      const secret = await options.secrets.get(secretAccount(profile.id));
      if (secret === null) {
        throw new AppError(
          'AUTH_FAILED',
          `The keychain has no credentials for "${profile.name}". Enter the API key again in Settings (New key…); the offline copy stays readable meanwhile.`,
        );
      }
      return profile.authKind === 'client'
        ? { kind: 'client', clientId: profile.clientId ?? '', clientSecret: secret }
        : { kind: 'token', accessToken: secret };
    },
    cacheFile,
    file,
    replaceDamaged(profiles) {
      let readable = true;
      try {
        read();
      } catch {
        readable = false;
      }
      if (readable)
        throw new AppError(
          'VALIDATION_ERROR',
          `The list of organisations (${file}) can be read; there is nothing to recover.`,
        );
      const aside = setAsideName(file, now());
      try {
        renameSync(file, aside);
      } catch (error) {
        throw new AppError(
          'INTERNAL',
          `Could not set the list of organisations (${file}) aside: ${systemReason(error as NodeJS.ErrnoException)}. Nothing was changed.`,
        );
      }
      try {
        write(profiles);
      } catch (error) {
        renameSync(aside, file);
        throw error;
      }
      return aside;
    },
  };
}
