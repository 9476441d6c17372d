import { parseArgs } from 'node:util';
import type { Core } from '../core';
import { cacheStatus, keychainStatus } from '../handlers';
import { utcMinute } from '../outbox/push';
import { cliMessage, table, type CliIo } from './io';

export const statusUsage = `satchel status [--json]`;

type CopyStatus = ReturnType<typeof cacheStatus>;
type LastSync = { outcome: string; startedAt: string; finishedAt: string | null } | null;

/**
 * One organisation's state: its copy as the window's banner reads it (`profiles.cacheStatus`:
 * read-only and why, or why it does not open), in the command line's words, and its last sync
 * when the copy could be read. A copy that cannot be written is opened read-only, never migrated
 * or written; one that does not open is said, and the other organisations are still reported.
 */
function organisationState(core: Core, profileId: string): { cache: CopyStatus; lastSync: LastSync } {
  let cache = cacheStatus(core, profileId);
  let lastSync: LastSync = null;
  if (!cache.problem) {
    try {
      const [last] = core.sync.history(profileId, 1);
      if (last) lastSync = { outcome: last.outcome, startedAt: last.startedAt, finishedAt: last.finishedAt };
    } catch (error) {
      // SQLite found the copy damaged as it read it: said as one that does not open.
      const damage = core.noteCacheError(profileId, error);
      if (!damage) throw error;
      cache = { problem: { reason: damage.reason, message: damage.message, readable: null }, readOnly: null };
    }
  }
  const { problem, readOnly } = cache;
  return {
    lastSync,
    cache: {
      problem: problem && { ...problem, message: cliMessage(problem.message) },
      readOnly: readOnly && { ...readOnly, message: cliMessage(readOnly.message) },
    },
  };
}

/** The keychain in words: available (and how many keys are in a locked keyring), or why not. */
function keychainLine(keychain: Awaited<ReturnType<typeof keychainStatus>>): string {
  if (!keychain.available) return keychain.message;
  const locked = keychain.lockedKeys.length;
  if (locked === 0) return 'available';
  return `available, but the key${locked === 1 ? ' of one organisation is' : `s of ${locked} organisations are`} in a locked keyring (below).`;
}

/** The OFFLINE COPY column: `writable`, `read-only`, or that it does not open. */
function copyText({ problem, readOnly }: CopyStatus): string {
  if (problem) return problem.reason === 'READ_ONLY' ? 'read-only, cannot be opened' : 'cannot be opened';
  return readOnly ? 'read-only' : 'writable';
}

export async function statusCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const info = core.info();
  // Per organisation as well, as Settings says it: a key in a locked second keyring.
  const keychain = await keychainStatus(core);
  const profiles = core.profiles.list().map((profile) => ({
    ...profile,
    ...organisationState(core, profile.id),
  }));
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ app: info, keychain, profiles }, null, 2)}\n`);
    return;
  }
  io.stdout.write(
    `${info.name} ${info.version} (spend API ${info.apiVersion}, cache schema ${info.schemaVersion})\n`,
  );
  io.stdout.write(`Data folder: ${info.dataDir}\n`);
  io.stdout.write(`Keychain: ${keychainLine(keychain)}\n`);
  // A note for the reader, as every empty list says it; no failure: the app's state was read.
  if (profiles.length === 0) {
    io.stderr.write('No organisation is connected. Add one with "satchel profile add".\n');
    return;
  }
  io.stdout.write(
    table([
      ['ORGANISATION', 'URL', 'LAST SYNC', 'OFFLINE COPY'],
      ...profiles.map((profile) => [
        profile.name,
        profile.baseUrl,
        profile.cache.problem ? 'unknown' : lastSyncText(profile.lastSync),
        copyText(profile.cache),
      ]),
    ]),
  );
  // Below the table, what each copy that is not plainly writable means and what to do, and each
  // key in a locked keyring.
  const notes = [
    ...profiles
      .map(({ cache }) => cache.problem?.message ?? cache.readOnly?.message)
      .filter((note) => note !== undefined),
    ...keychain.lockedKeys.map(
      (locked) =>
        `${profiles.find((profile) => profile.id === locked.profileId)?.name ?? locked.profileId}: ${locked.message}`,
    ),
  ];
  if (notes.length > 0) io.stdout.write(`\n${notes.join('\n')}\n`);
}

/** The last run in words: `succeeded, 2026-11-26 14:03 UTC`, `running since …`, or `never`. */
function lastSyncText(last: LastSync): string {
  if (!last) return 'never';
  if (last.outcome === 'running') return `running since ${utcMinute(last.startedAt)}`;
  return `${last.outcome}, ${utcMinute(last.finishedAt ?? last.startedAt)}`;
}
