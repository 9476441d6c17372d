import { parseArgs } from 'node:util';
import type { Core } from '../core';
import { utcMinute } from '../outbox/push';
import { table, type CliIo } from './io';

export const statusUsage = `satchel status [--json]`;

export async function statusCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const info = core.info();
  const keychain = await core.secrets.status();
  const profiles = core.profiles.list().map((profile) => {
    const [last] = core.sync.history(profile.id, 1);
    return {
      ...profile,
      lastSync: last
        ? { outcome: last.outcome, startedAt: last.startedAt, finishedAt: last.finishedAt }
        : null,
    };
  });
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ app: info, keychain, profiles }, null, 2)}\n`);
    return;
  }
  io.stdout.write(
    `${info.name} ${info.version} (spend API ${info.apiVersion}, cache schema ${info.schemaVersion})\n`,
  );
  io.stdout.write(`Data folder: ${info.dataDir}\n`);
  io.stdout.write(`Keychain: ${keychain.available ? 'available' : keychain.message}\n`);
  // A note for the reader, as every empty list says it; no failure: the app's state was read.
  if (profiles.length === 0) {
    io.stderr.write('No organisation is connected. Add one with "satchel profile add".\n');
    return;
  }
  io.stdout.write(
    table([
      ['ORGANISATION', 'URL', 'LAST SYNC'],
      ...profiles.map((profile) => [profile.name, profile.baseUrl, lastSyncText(profile.lastSync)]),
    ]),
  );
}

/** The last run in words: `succeeded, 2026-11-26 14:03 UTC`, `running since …`, or `never`. */
function lastSyncText(
  last: { outcome: string; startedAt: string; finishedAt: string | null } | null,
): string {
  if (!last) return 'never';
  if (last.outcome === 'running') return `running since ${utcMinute(last.startedAt)}`;
  return `${last.outcome}, ${utcMinute(last.finishedAt ?? last.startedAt)}`;
}
