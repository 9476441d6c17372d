import { parseArgs } from 'node:util';
import { AppError } from '../../src-shared/errors';
import type { SyncProgressEvent } from '../../src-shared/ipc';
import { counted } from '../../src-shared/counted';
import type { Core } from '../core';
import { needingAttention } from './edits';
import { profileOption } from './filters';
import { cliMessage, onInterrupt, UsageError, type CliIo } from './io';
import { statusLine } from './status-line';
import { syncHistoryCommand, syncHistoryUsage } from './sync-history';

export const syncUsage = `satchel sync [--profile NAME_OR_ID] [--full]
${syncHistoryUsage}`;

/**
 * Progress on stderr (stdout carries only each organisation's outcome): a status line that
 * rewrites itself on a terminal, otherwise one plain line per resource, each ended at once so
 * that a message after it never joins it.
 */
function progressPrinter(io: CliIo) {
  const status = statusLine(io);
  let lastResource = '';
  return {
    update(progress: SyncProgressEvent) {
      const waiting = progress.waitingUntil
        ? ` · waiting for the rate limit until ${progress.waitingUntil.slice(11, 19)}`
        : '';
      if (status.interactive)
        status.show(
          `${progress.resource}: ${progress.records} records · ${progress.requests} requests${waiting}`,
        );
      else if (progress.resource !== lastResource) io.stderr.write(`${progress.resource}…\n`);
      lastResource = progress.resource;
    },
    end() {
      status.end();
      lastResource = '';
    },
  };
}

/**
 * Why the organisation's copy refuses a sync, when it is read-only; null otherwise. A copy that
 * does not open is left to the sync, which says so for that organisation as it always has.
 */
function readOnlyRefusal(core: Core, profileId: string): AppError | null {
  try {
    core.cacheOf(profileId);
  } catch {
    return null;
  }
  return core.readOnlyError(profileId);
}

export async function syncCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  if (args[0] === 'history') return syncHistoryCommand(core, args.slice(1), io);
  const { values } = parseArgs({
    args,
    strict: true,
    options: { profile: { type: 'string' }, full: { type: 'boolean', default: false } },
  });
  const targets = values.profile ? [profileOption(core, values.profile)] : core.profiles.list();
  if (targets.length === 0)
    throw new UsageError('no organisation is connected; add one with "satchel profile add"');
  // A read-only copy is refused before anything is announced, as every other writing command
  // refuses it (exit 3, the same words). Among others, it is left out and said in its turn, and
  // the others are synced, as a sync that fails for one organisation goes on with the next:
  // one client's copy on a read-only share does not hold back the rest of the night's sync.
  const refusals = new Map(targets.map((profile) => [profile.id, readOnlyRefusal(core, profile.id)]));
  const first = refusals.get(targets[0]!.id);
  if (first && targets.every((profile) => refusals.get(profile.id))) throw first;

  const printer = progressPrinter(io);
  const stop = core.events.subscribe((event, payload) => {
    if (event === 'sync.progress') printer.update(payload as SyncProgressEvent);
  });
  const failures: string[] = [];
  const readOnly: string[] = [];
  try {
    for (const profile of targets) {
      if (io.signal?.aborted) break;
      const refused = refusals.get(profile.id);
      if (refused) {
        io.stderr.write(`Not syncing ${profile.name}: ${cliMessage(refused.message, profile.name)}\n`);
        readOnly.push(profile.name);
        continue;
      }
      io.stderr.write(`Syncing ${profile.name}${values.full ? ' (repair: reading everything again)' : ''}\n`);
      const syncing = core.sync.sync(profile.id, { full: values.full });
      // Ctrl+C: the sync stops at a page boundary; every page written stays.
      const stopOnInterrupt = onInterrupt(io, () => core.sync.cancel(profile.id));
      const summary = await syncing.finally(() => {
        stopOnInterrupt();
        printer.end();
      });
      const total = Object.values(summary.counts).reduce((sum, n) => sum + n, 0);
      io.stdout.write(
        `${profile.name}: ${summary.outcome}, ${counted(total, 'record', 'records')} written\n`,
      );
      // A cancel (Ctrl+C) is no problem of the run: its outcome says it, and it is said once below.
      const errors = summary.errors;
      for (const error of errors.slice(0, 20)) {
        const where = [error.resource, error.recordId, error.field].filter(Boolean).join(' / ');
        io.stderr.write(`  ${where ? `${where}: ` : ''}${cliMessage(error.message, profile.name)}\n`);
      }
      if (errors.length > 20) io.stderr.write(`  … and ${errors.length - 20} more\n`);
      if (summary.outcome !== 'succeeded') failures.push(`${profile.name}: ${summary.outcome}`);
      // A sync sends the waiting edits first; one the server refused or changed meanwhile
      // stays in the queue, and says so here rather than only in "edits list".
      const attention = needingAttention(core, profile.id);
      if (attention) io.stderr.write(`${profile.name}: ${attention}\n`);
    }
  } finally {
    stop();
  }
  if (io.signal?.aborted)
    throw new AppError('CANCELLED', 'Sync interrupted; every page it wrote is kept. Run it again to finish.');
  const skipped = readOnly.map((name) => `${name}: not synced, its offline copy is read-only`);
  if (failures.length > 0)
    throw new AppError('SERVER_ERROR', `Sync did not complete (${[...failures, ...skipped].join('; ')}).`);
  if (skipped.length > 0)
    throw new AppError('READ_ONLY', `Sync did not complete (${skipped.join('; ')}); the others were synced.`);
}
