import { parseArgs } from 'node:util';
import type { Core } from '../core';
import { chooseProfile, countOption } from './filters';
import { type CliIo, table } from './io';
import { cell, jsonText } from './json';

export const syncHistoryUsage = `satchel sync history [--profile NAME_OR_ID] [--limit N] [--json]`;

interface RunError {
  resource?: string;
  recordId?: string;
  field?: string;
  code: string;
  message: string;
}

/**
 * The organisation's recorded sync runs, newest first, as the Sync screen's history lists them:
 * when each started and ended, how it ended, how many records it wrote and what went wrong.
 */
export function syncHistoryCommand(core: Core, args: string[], io: CliIo): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: 'string' },
      limit: { type: 'string', default: '20' },
      json: { type: 'boolean', default: false },
    },
  });
  const limit = countOption('limit', values.limit, { min: 1, max: 200 });
  const profile = chooseProfile(core, values.profile);
  const runs = core.sync.history(profile.id, limit).map((run) => ({
    id: run.id,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    outcome: run.outcome,
    counts: JSON.parse(run.counts) as Record<string, number>,
    errors: JSON.parse(run.errors) as RunError[],
  }));
  if (values.json) {
    io.stdout.write(jsonText({ runs, lastSucceededAt: core.sync.lastSucceededAt(profile.id) }));
    return;
  }
  if (runs.length === 0) {
    io.stderr.write(`No sync of "${profile.name}" is recorded yet; "satchel sync" runs one.\n`);
    return;
  }
  io.stdout.write(
    table([
      ['STARTED', 'FINISHED', 'OUTCOME', 'RECORDS', 'ERRORS', 'FIRST ERROR'],
      ...runs.map((run) => [
        run.startedAt,
        // A run still going (or one a crash ended before it could say) has no end yet.
        run.finishedAt ?? '-',
        run.outcome,
        String(Object.values(run.counts).reduce((sum, n) => sum + n, 0)),
        String(run.errors.length),
        run.errors[0] ? cell(errorText(run.errors[0])) : '',
      ]),
    ]),
  );
}

/** A problem as the Sync screen words it: where (resource, record, field), then what. */
function errorText(error: RunError): string {
  const where = [error.resource, error.recordId, error.field && `(${error.field})`].filter(Boolean).join(' ');
  return where ? `${where}: ${error.message}` : error.message;
}
