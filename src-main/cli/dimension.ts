import { parseArgs } from 'node:util';
import {
  DimensionCreate,
  DimensionItemCreate,
  DimensionItemUpdate,
  DimensionUpdate,
} from '../../src-shared/api';
import { AppError } from '../../src-shared/errors';
import type { DimensionRow } from '../../src-shared/search';
import type { Core } from '../core';
import { listDimensions, searchDimensionItems } from '../search';
import { editJson, editNote, recordEdits } from './edits';
import { chooseProfile } from './filters';
import { type CliIo, namingOption, optionError, table, UsageError } from './io';

export const dimensionUsage = `satchel dimension list [--items DIMENSION_ID] [--all] [--json] [--profile NAME_OR_ID]
satchel dimension create --name NAME --code C [--status ACTIVE|INACTIVE] [--profile NAME_OR_ID]
satchel dimension update DIMENSION_ID [--name NAME] [--code C] [--status S] [--profile NAME_OR_ID]
satchel dimension create-item DIMENSION_ID --name NAME --code C [--status ACTIVE|INACTIVE] [--profile NAME_OR_ID]
satchel dimension update-item DIMENSION_ID ITEM_ID [--name NAME] [--code C] [--status S] [--profile NAME_OR_ID]
               (changes are offline: each waits in the outbox for "edits push" or the next sync)`;

/**
 * Dimensions (cost centres, projects, …) and their items: listed from the offline copy,
 * created and updated there at once, the edit queued for the API like a supplier's.
 */
export async function dimensionCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  const actions = ['list', 'create', 'update', 'create-item', 'update-item'];
  if (!action || !actions.includes(action))
    throw new UsageError(`dimension takes ${actions.join(', ')}${action ? `, not "${action}"` : ''}`);
  const { values, positionals } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      name: { type: 'string' },
      code: { type: 'string' },
      status: { type: 'string' },
      items: { type: 'string' },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const profile = chooseProfile(core, values.profile);
  if (action === 'list') {
    list(core, profile.id, values, io);
    return;
  }
  const fields = {
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.code !== undefined ? { code: values.code } : {}),
    ...(values.status !== undefined ? { status: values.status } : {}),
  };
  const [first, second] = positionals;
  const needs = (count: number, what: string) => {
    if (positionals.length !== count) throw new UsageError(`dimension ${action} needs ${what}`);
  };
  let done: { recordId: string; operationId: string };
  let label: string;
  // The core's refusals name a field; here it is said as the option (`--code: …`).
  const attempt = <T>(edit: () => T): T => {
    try {
      return edit();
    } catch (error) {
      throw namingOption(error, { name: 'name', code: 'code', status: 'status' });
    }
  };
  switch (action) {
    case 'create': {
      needs(0, 'no id (the new dimension gets one)');
      const input = DimensionCreate.safeParse(fields);
      if (!input.success) throw optionError(input.error);
      done = attempt(() => core.outbox.createDimension(profile.id, input.data));
      label = 'Dimension';
      break;
    }
    case 'update': {
      needs(1, 'the dimension id');
      const input = DimensionUpdate.safeParse(fields);
      if (!input.success) throw optionError(input.error);
      done = attempt(() => core.outbox.updateDimension(profile.id, first!, input.data));
      label = 'Dimension';
      break;
    }
    case 'create-item': {
      needs(1, 'the dimension id');
      const input = DimensionItemCreate.safeParse(fields);
      if (!input.success) throw optionError(input.error);
      done = attempt(() => core.outbox.createDimensionItem(profile.id, first!, input.data));
      label = 'Dimension item';
      break;
    }
    default: {
      needs(2, 'the dimension id and the item id');
      const input = DimensionItemUpdate.safeParse(fields);
      if (!input.success) throw optionError(input.error);
      done = attempt(() => core.outbox.updateDimensionItem(profile.id, first!, second!, input.data));
      label = 'Dimension item';
    }
  }
  const verb = action.startsWith('create') ? 'created' : 'updated';
  io.stdout.write(`${label} ${done.recordId} ${verb} offline; edit ${done.operationId} waits to be sent\n`);
}

function list(
  core: Core,
  profileId: string,
  values: { items?: string | undefined; all: boolean; json: boolean },
  io: CliIo,
): void {
  const cache = core.cacheOf(profileId);
  // A record's waiting edit is said as "satchel edits list" says it: pending, conflict,
  // interrupted (maybe sent; …), so that a refused or maybe-sent edit is not taken for waiting.
  const edits = recordEdits(core, profileId, values.items === undefined ? 'dimension' : 'dimensionItem');
  // `editPending` (the cache's mark) stays for the scripts that read it; `edit` says the state.
  const pick = ({ id, name, code, status, editPending }: Omit<DimensionRow, 'system' | 'itemCount'>) => ({
    id,
    name,
    code,
    status,
    editPending,
    edit: editJson(edits.get(id)),
  });
  if (values.items !== undefined && values.items.trim() === '')
    throw new UsageError('--items takes the id of a dimension (see "satchel dimension list")');
  const shaped = [];
  if (values.items === undefined)
    shaped.push(...listDimensions(cache, { includeDeleted: values.all }).map(pick));
  else {
    const known = listDimensions(cache, { includeDeleted: true }).some((d) => d.id === values.items);
    if (!known)
      throw new AppError(
        'NOT_FOUND',
        `No dimension "${values.items}" in the offline copy; "satchel dimension list" shows their ids.`,
      );
    for (let page = 1; ; page++) {
      const result = searchDimensionItems(cache, {
        dimensionId: values.items,
        includeDeleted: values.all,
        pagination: { page, pageSize: 500 },
      });
      shaped.push(...result.rows.map(pick));
      if (page * 500 >= result.total) break;
    }
  }
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify(values.items !== undefined ? { items: shaped } : { dimensions: shaped }, null, 2)}\n`,
    );
    return;
  }
  if (shaped.length === 0) {
    io.stderr.write(values.items ? 'This dimension has no items here.\n' : 'No dimensions are cached.\n');
    return;
  }
  const editText = (row: { id: string; editPending: boolean }) => {
    const edit = edits.get(row.id);
    return edit ? editNote(edit) : row.editPending ? '; edit pending' : '';
  };
  io.stdout.write(
    table([
      ['ID', 'CODE', 'NAME', 'STATUS'],
      ...shaped.map((row) => [row.id, row.code ?? '', row.name ?? '', `${row.status ?? ''}${editText(row)}`]),
    ]),
  );
}
