import { parseArgs } from 'node:util';
import type { Core } from '../core';
import { bankAccountSummaries } from '../details';
import { chooseProfile } from './filters';
import { type CliIo, table, UsageError } from './io';

export const accountUsage = `satchel account list [--json] [--profile NAME_OR_ID]`;

/**
 * The bank accounts of the offline copy, whose ids `--account` takes (search, export,
 * download), as the app's account filter offers them.
 */
export async function accountCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'list') throw new UsageError(`account takes list${action ? `, not "${action}"` : ''}`);
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: { profile: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const accounts = bankAccountSummaries(core.cacheOf(chooseProfile(core, values.profile).id));
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ accounts }, null, 2)}\n`);
    return;
  }
  if (accounts.length === 0) {
    io.stderr.write('No bank accounts are cached; "satchel sync" brings them.\n');
    return;
  }
  io.stdout.write(
    table([
      ['ID', 'NAME', 'CURRENCY', 'STATUS'],
      ...accounts.map((account) => [
        account.id,
        account.name ?? '',
        account.currency ?? '',
        account.status ?? '',
      ]),
    ]),
  );
}
