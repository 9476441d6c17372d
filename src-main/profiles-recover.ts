import { readdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ProfileSummary, type RecoverableOrganisation, type RecoveryPlan } from '../src-shared/profiles';
import { readableWork } from './cache-rescue';
import type { Secrets } from './secrets';

/**
 * Recovering a damaged list of organisations (profiles.json) from what else the data folder
 * holds. The list is the only place a connection's name, address and key id were kept, so each
 * offline copy also records its own connection (nothing secret: `connection` in
 * `organisation_settings`, written whenever the copy is opened or the connection changes). A
 * copy that records it is listed again under the same id: its keychain entry (`profile:<id>`),
 * its unsent edits and review marks are all found where they were. A copy from before the
 * record, or any other file, cannot be tied to a connection: it is named and left as it is.
 */

export const CONNECTION_SETTING = 'connection';

/** Records the connection in its offline copy, when it is not recorded so already. */
export function recordConnection(sqlite: Database.Database, profile: ProfileSummary, now: Date): void {
  sqlite
    .prepare(
      `INSERT INTO organisation_settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
       WHERE value IS NOT excluded.value`,
    )
    .run(CONNECTION_SETTING, JSON.stringify(profile), now.toISOString());
}

/** The connection a copy records, read without writing to it; null when it records none. */
function recordedConnection(file: string): ProfileSummary | null {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(file, { readonly: true, fileMustExist: true });
    const value = sqlite
      .prepare('SELECT value FROM organisation_settings WHERE key = ?')
      .pluck()
      .get(CONNECTION_SETTING) as string | undefined;
    if (value === undefined) return null;
    const parsed = ProfileSummary.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    // Not a database, no such table, a damaged page: nothing to tie it by.
    return null;
  } finally {
    sqlite?.close();
  }
}

/** Files that belong to a copy beside it: its WAL and shared memory, its refused run ends. */
const COMPANIONS = ['-wal', '-shm', '-run-ends.json'];

/** One name per organisation: a second "Acme" (a copy kept from a removed one) is "Acme (2)". */
function uniqueName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let n = 2; taken.has(unique.toLowerCase()); n += 1) unique = `${name} (${n})`;
  taken.add(unique.toLowerCase());
  return unique;
}

/**
 * What can be listed again from the caches folder of `dataDir`; `listFile` is the damaged list.
 * Only names are asked of the keychain, never a secret.
 */
export async function planRecovery(options: {
  dataDir: string;
  listFile: string;
  secrets: Secrets;
}): Promise<RecoveryPlan> {
  const cachesFolder = path.join(options.dataDir, 'caches');
  let names: string[] = [];
  try {
    names = readdirSync(cachesFolder).sort();
  } catch {
    // No caches folder: nothing to recover, and the list starts empty.
  }
  const present = new Set(names);
  let accounts: Set<string> | null = null;
  let keychainProblem: string | null = null;
  try {
    accounts = new Set(await options.secrets.list());
  } catch (error) {
    keychainProblem = error instanceof Error ? error.message : String(error);
  }
  const found: RecoverableOrganisation[] = [];
  const untied: string[] = [];
  for (const name of names) {
    // A WAL or a history beside its copy goes with it, listed or left.
    const owner = COMPANIONS.find((suffix) => name.endsWith(suffix));
    if (owner && present.has(name.slice(0, -owner.length))) continue;
    const stem = name.replace(/\.sqlite$/, '');
    const connection = name.endsWith('.sqlite') ? recordedConnection(path.join(cachesFolder, name)) : null;
    if (!connection || connection.id !== stem) {
      untied.push(name);
      continue;
    }
    const work = readableWork(path.join(cachesFolder, name)) ?? { edits: 0, marks: 0 };
    found.push({
      ...connection,
      file: name,
      keyFound: accounts ? accounts.has(`profile:${connection.id}`) : null,
      edits: work.edits,
      marks: work.marks,
    });
  }
  found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
  const taken = new Set<string>();
  const organisations = found.map((organisation) => ({
    ...organisation,
    name: uniqueName(organisation.name, taken),
  }));
  return { listFile: options.listFile, cachesFolder, organisations, untied, keychainProblem };
}

/** The connection as the list keeps it, without what the plan adds. */
export function listedProfile(organisation: RecoverableOrganisation): ProfileSummary {
  const { file: _file, keyFound: _key, edits: _edits, marks: _marks, ...profile } = organisation;
  return ProfileSummary.parse(profile);
}
