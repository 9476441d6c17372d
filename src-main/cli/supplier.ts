import { parseArgs } from 'node:util';
import { SupplierCreate, SupplierUpdate } from '../../src-shared/api';
import type { Core } from '../core';
import { chooseProfile } from './filters';
import { type CliIo, namingOption, optionError, UsageError } from './io';

/** The option of each supplier field, for the core's refusals (`--code: Enter the supplier number.`). */
const OPTIONS = {
  name: 'name',
  code: 'code',
  status: 'status',
  vatIdNo: 'vat-id',
  iban: 'iban',
  currency: 'currency',
};

export const supplierUsage = `satchel supplier create --name NAME [--code C] [--status S] [--vat-id V] [--iban I] [--currency CUR]
               [--profile NAME_OR_ID]
satchel supplier update ID [--name NAME] [--code C] [--status S] [--vat-id V] [--iban I] [--currency CUR]
               [--profile NAME_OR_ID]
               (both offline: the edit waits in the outbox for "edits push" or the next sync)`;

/** Creates or updates a supplier in the offline copy and queues the edit for the API. */
export async function supplierCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'create' && action !== 'update')
    throw new UsageError(`supplier takes create or update${action ? `, not "${action}"` : ''}`);
  const { values, positionals } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: action === 'update',
    options: {
      profile: { type: 'string' },
      name: { type: 'string' },
      code: { type: 'string' },
      status: { type: 'string' },
      'vat-id': { type: 'string' },
      iban: { type: 'string' },
      currency: { type: 'string' },
    },
  });
  const fields = {
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.code !== undefined ? { code: values.code } : {}),
    ...(values.status !== undefined ? { status: values.status } : {}),
    ...(values['vat-id'] !== undefined ? { vatIdNo: values['vat-id'] } : {}),
    ...(values.iban !== undefined ? { iban: values.iban } : {}),
    ...(values.currency !== undefined ? { currency: values.currency } : {}),
  };
  const profile = chooseProfile(core, values.profile);
  if (action === 'create') {
    const input = SupplierCreate.safeParse(fields);
    if (!input.success) throw optionError(input.error);
    const result = attempt(() => core.outbox.createSupplier(profile.id, input.data));
    io.stdout.write(
      `Supplier ${result.recordId} created offline; edit ${result.operationId} waits to be sent\n`,
    );
    return;
  }
  const [id] = positionals;
  if (!id) throw new UsageError('supplier update needs the supplier id');
  const input = SupplierUpdate.safeParse(fields);
  if (!input.success) throw optionError(input.error);
  const result = attempt(() => core.outbox.updateSupplier(profile.id, id, input.data));
  io.stdout.write(
    `Supplier ${result.recordId} updated offline; edit ${result.operationId} waits to be sent\n`,
  );
}

function attempt<T>(edit: () => T): T {
  try {
    return edit();
  } catch (error) {
    throw namingOption(error, OPTIONS);
  }
}
