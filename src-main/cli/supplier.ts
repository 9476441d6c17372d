import { parseArgs } from 'node:util';
import {
  bankCountryWarning,
  formatIban,
  SupplierCreateInput,
  SupplierUpdateInput,
  vatIdWarning,
} from '../../src-shared/bank-details';
import type { SupplierRow } from '../../src-shared/search';
import type { Core } from '../core';
import { searchSuppliers } from '../search';
import { editJson, editNote, recordEdits } from './edits';
import { chooseProfile } from './filters';
import { type CliIo, namingOption, optionError, table, UsageError } from './io';

/** The option of each supplier field, for the core's refusals (`--code: Enter the supplier number.`). */
const OPTIONS = {
  name: 'name',
  code: 'code',
  status: 'status',
  vatIdNo: 'vat-id',
  iban: 'iban',
  bic: 'bic',
  currency: 'currency',
};

export const supplierUsage = `satchel supplier list [--text T] [--all] [--json] [--profile NAME_OR_ID]
satchel supplier create --name NAME [--code C] [--status S] [--vat-id V] [--iban I] [--bic B]
               [--currency CUR] [--profile NAME_OR_ID]
satchel supplier update ID [--name NAME] [--code C] [--status S] [--vat-id V] [--iban I] [--bic B]
               [--currency CUR] [--profile NAME_OR_ID]
               (both offline: the edit waits in the outbox for "edits push" or the next sync)`;

/**
 * Lists the suppliers of the offline copy (their ids are what `supplier update` takes), or
 * creates or updates one there and queues the edit for the API.
 */
export async function supplierCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'list') return list(core, rest, io);
  if (action !== 'create' && action !== 'update')
    throw new UsageError(`supplier takes list, create or update${action ? `, not "${action}"` : ''}`);
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
      bic: { type: 'string' },
      currency: { type: 'string' },
    },
  });
  const fields = {
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.code !== undefined ? { code: values.code } : {}),
    ...(values.status !== undefined ? { status: values.status } : {}),
    ...(values['vat-id'] !== undefined ? { vatIdNo: values['vat-id'] } : {}),
    ...(values.iban !== undefined ? { iban: values.iban } : {}),
    ...(values.bic !== undefined ? { bic: values.bic } : {}),
    ...(values.currency !== undefined ? { currency: values.currency } : {}),
  };
  const profile = chooseProfile(core, values.profile);
  if (action === 'create') {
    const input = SupplierCreateInput.safeParse(fields);
    if (!input.success) throw optionError(input.error);
    const result = attempt(() => core.outbox.createSupplier(profile.id, input.data));
    io.stdout.write(
      `Supplier ${result.recordId} created offline; edit ${result.operationId} waits to be sent\n`,
    );
    warnOfBank(io, fields, result.record);
    return;
  }
  const [id] = positionals;
  if (!id) throw new UsageError('supplier update needs the supplier id');
  const input = SupplierUpdateInput.safeParse(fields);
  if (!input.success) throw optionError(input.error);
  const result = attempt(() => core.outbox.updateSupplier(profile.id, id, input.data));
  io.stdout.write(
    `Supplier ${result.recordId} updated offline; edit ${result.operationId} waits to be sent\n`,
  );
  warnOfBank(io, fields, result.record);
}

/**
 * Doubtful values are queued and said on stderr: a VAT id with an EU prefix but not that
 * country's format (it may be another country's tax id), when this edit gave it; a BIC of
 * another country than the IBAN's (it can be right across a border), when this edit gave
 * either of them, the other may be the supplier's own.
 */
function warnOfBank(io: CliIo, fields: Record<string, unknown>, record: Record<string, unknown>): void {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const warnings = [
    'vatIdNo' in fields ? vatIdWarning(text(record['vatIdNo'])) : undefined,
    'iban' in fields || 'bic' in fields
      ? bankCountryWarning(text(record['iban']), text(record['bic']))
      : undefined,
  ];
  for (const warning of warnings) if (warning) io.stderr.write(`Warning: ${warning}\n`);
}

function attempt<T>(edit: () => T): T {
  try {
    return edit();
  } catch (error) {
    throw namingOption(error, OPTIONS);
  }
}

/**
 * Every supplier the search finds, in name order, as the Suppliers list shows them: with the
 * state of a waiting edit after the status (`ACTIVE; edit conflict`), and in `--json` as `edit`.
 */
function list(core: Core, args: string[], io: CliIo): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: 'string' },
      text: { type: 'string' },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const profileId = chooseProfile(core, values.profile).id;
  const cache = core.cacheOf(profileId);
  const suppliers: SupplierRow[] = [];
  for (let page = 1; ; page++) {
    const result = searchSuppliers(cache, {
      ...(values.text !== undefined ? { text: values.text } : {}),
      includeDeleted: values.all,
      pagination: { page, pageSize: 500 },
    });
    suppliers.push(...result.rows);
    if (page * 500 >= result.total) break;
  }
  // A supplier's waiting edit, in the words of "satchel edits list", as the window's rows say it.
  const edits = recordEdits(core, profileId, 'supplier');
  if (values.json) {
    const rows = suppliers.map((row) => ({ ...row, edit: editJson(edits.get(row.id)) }));
    io.stdout.write(`${JSON.stringify({ suppliers: rows }, null, 2)}\n`);
    return;
  }
  if (suppliers.length === 0) {
    io.stderr.write('No supplier in the offline copy matches.\n');
    return;
  }
  io.stdout.write(
    table([
      ['ID', 'NUMBER', 'NAME', 'STATUS', 'VAT ID', 'IBAN'],
      ...suppliers.map((row) => [
        row.id,
        row.number ?? '',
        row.name ?? '',
        `${row.status ?? ''}${editNote(edits.get(row.id))}`,
        row.vatIdNo ?? '',
        row.iban === null ? '' : formatIban(row.iban),
      ]),
    ]),
  );
}
