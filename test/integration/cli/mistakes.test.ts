import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { sandboxToken } from '../../helpers/sandbox-token';
import { useTempDirs } from '../../helpers/temp-dir';

// Mistakes an accountant makes on the command line, and states they must be able to get out
// of: each is a usage error naming the option (exit 2), or a failure that says what to do
// (exit 1), and none changes anything. The CLI runs in this process (`runCli`, the same
// function the `satchel` binary calls) against the real sandbox and the real keychain.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list());
});

async function satchel(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const stdin = new PassThrough();
  if (input !== undefined) stdin.end(input);
  const code = await runCli(args, { stdout, stderr, stdin, env });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

async function connected(options: Parameters<typeof startSandbox>[0] = {}) {
  const sandbox = await startSandbox({ port: 0, seed: 22, transactions: 300, control: true, ...options });
  stops.push(() => sandbox.stop());
  const env = { SATCHEL_DATA_DIR: tempDir() };
  expect(
    (await satchel(['profile', 'add', '--name', 'Demo', '--demo', '--url', sandbox.url], env)).code,
  ).toBe(0);
  expect((await satchel(['sync'], env)).code).toBe(0);
  return { sandbox, env };
}

describe('satchel CLI: mistakes and ways out', { timeout: 60_000 }, () => {
  it('refuses a review mark that would change other records than meant', async () => {
    const { sandbox, env } = await connected();
    const search = JSON.parse((await satchel(['search', '--json', '--page-size', '2'], env)).stdout) as {
      rows: Array<{ id: string }>;
    };
    const [first] = search.rows;
    const expense = sandbox.state.expenses[0]!;
    const reviewed = async () =>
      (
        JSON.parse((await satchel(['search', '--reviewed', 'true', '--json'], env)).stdout) as {
          totals: { count: number };
        }
      ).totals.count;

    // --expenses with search filters used to mark the transactions the filters found.
    const expensesByFilter = await satchel(
      ['review', 'mark', '--reviewed', '--expenses', '--from', '2026-10-01'],
      env,
    );
    expect(expensesByFilter).toMatchObject({ code: 2 });
    expect(expensesByFilter.stderr).toContain('--expenses marks the expenses given with --id');
    // Ids with filters: the filters used to be dropped without a word.
    const both = await satchel(
      ['review', 'mark', '--reviewed', '--id', first!.id, '--from', '2020-01-01'],
      env,
    );
    expect(both).toMatchObject({ code: 2 });
    expect(both.stderr).toContain('give either --id or search filters, not both');
    // An id that is no record of the kind: it used to say "0 records changed" with exit 0.
    const unknown = await satchel(['review', 'mark', '--reviewed', '--id', first!.id, '--id', 'nope'], env);
    expect(unknown.code).toBe(1);
    // Named as the option it came in, not as the schema's field ("(field: id)").
    expect(unknown.stderr).toBe(
      'satchel: --id: No transaction with the id nope in the offline copy; nothing was changed. Expenses need --expenses.\n',
    );
    const wrongKind = await satchel(['review', 'mark', '--reviewed', '--expenses', '--id', first!.id], env);
    expect(wrongKind.code).toBe(1);
    expect(wrongKind.stderr).toContain(`No expense with the id ${first!.id}`);
    expect(await reviewed()).toBe(0);
    // Offline edits of records the offline copy does not hold name the id they were given.
    const dimension = sandbox.state.dimensions.find((d) => d.status === 'ACTIVE' && !d.system)!;
    for (const [args, message] of [
      [['supplier', 'update', 'sup-typo', '--name', 'X'], 'No supplier sup-typo is in the offline copy.'],
      [['dimension', 'update', 'dim-typo', '--name', 'X'], 'No dimension dim-typo is in the offline copy.'],
      [
        ['dimension', 'create-item', 'dim-typo', '--name', 'X', '--code', 'X1'],
        'No dimension dim-typo is in the offline copy.',
      ],
      [
        ['dimension', 'update-item', dimension.id, 'item-typo', '--name', 'X'],
        `No item item-typo of the dimension ${dimension.id} is in the offline copy.`,
      ],
    ] as const) {
      const result = await satchel([...args], env);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr).toBe(`satchel: ${message} Sync, then try again.\n`);
    }
    expect((await satchel(['edits', 'list'], env)).stderr).toBe('No edits are waiting.\n');
    expect(
      (await satchel(['review', 'mark', '--reviewed', '--expenses', '--id', expense.id], env)).stdout,
    ).toBe('1 record changed\n');
    expect(await reviewed()).toBe(0); // an expense, not a transaction

    // A review export does not replace a file unless told to.
    const out = path.join(tempDir(), 'review.json');
    writeFileSync(out, 'a colleague’s export');
    const replace = await satchel(['review', 'export', '--out', out], env);
    expect(replace.code).toBe(1);
    expect(replace.stderr).toContain('already exists; choose another name or replace it');
    expect((await satchel(['review', 'export', '--out', out, '--force'], env)).stdout).toMatch(
      /^1 review mark written to /,
    );
  });

  it('names the option of a value the schema refuses, as a usage error', async () => {
    const { env } = await connected();
    const cases: Array<[string[], string]> = [
      [['search', '--currency', 'gb'], '--currency: '],
      [
        ['search', '--type', 'FOO'],
        '--type takes one of CARD, PAYOUT, TOP_UP, WITHDRAWAL, REPAYMENT, not "FOO"',
      ],
      [['search', '--from', '2026-12-01', '--to', '2026-01-01'], '--from: '],
      [
        ['export', '--out', path.join(tempDir(), 'x.csv'), '--delimiter', '|'],
        '--delimiter takes , or ; or tab, not "|"',
      ],
      [
        ['export', '--out', path.join(tempDir(), 'x.csv'), '--decimal', 'x'],
        '--decimal takes . or , not "x"',
      ],
      // A bank account the offline copy does not hold found nothing, as if it had no transactions.
      ...[
        ['search'],
        ['export', '--out', path.join(tempDir(), 'x.csv')],
        ['download', '--to', tempDir()],
        ['review', 'mark', '--reviewed'],
      ].map((command): [string[], string] => [
        [...command, '--account', 'acc-typo'],
        '--account: no bank account acc-typo in the offline copy ("satchel account list" shows them',
      ]),
      [
        ['export', '--out', path.join(tempDir(), 'x.csv'), '--locale', 'xx-YY'],
        '--locale: Not a locale Satchel knows',
      ],
      [['supplier', 'create', '--code', 'X1'], '--name: '],
      [['review', 'mark', '--flag', '', '--id', 'x'], '--flag: '],
      [['download', '--to', tempDir(), '--template', '{bogus}'], '--template: '],
      [['dimension', 'list', '--items', ''], '--items takes the id of a dimension'],
      [['--data-dir', '', 'status'], '--data-dir takes a folder'],
    ];
    for (const [args, message] of cases) {
      const result = await satchel(args, env);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.stderr).not.toContain('unexpected failure');
    }
    // The delimiter's choices are shown as text: a tab as \t, not as a blank.
    const delimiter = await satchel(
      ['export', '--out', path.join(tempDir(), 'x.csv'), '--delimiter', '|'],
      env,
    );
    expect(delimiter.stderr).not.toContain('\t');
    // A data folder that is a file.
    const file = path.join(tempDir(), 'data.csv');
    writeFileSync(file, '');
    const dataFile = await satchel(['--data-dir', file, 'status'], env);
    expect(dataFile.code).toBe(1);
    expect(dataFile.stderr).toBe(`satchel: The data folder ${file} is a file, not a folder.\n`);
  });

  it('names the option, not the field inside, when a value is refused', async () => {
    const { env } = await connected();
    const registry = readFileSync(path.join(env.SATCHEL_DATA_DIR, 'profiles.json'), 'utf8');
    const existing = path.join(tempDir(), 'taken.csv');
    writeFileSync(existing, 'a colleague’s export');
    const cases: Array<[string[], number, string]> = [
      [['export', '--out', 'unmatched.txt'], 2, 'satchel: --out: The file name must end in .csv.\n'],
      [
        ['export', '--out', '/no-such-folder/x.csv'],
        1,
        'satchel: --out: The folder /no-such-folder does not exist. Nothing was written; choose another place.\n',
      ],
      [['export', 'expenses', '--out', existing], 1, `satchel: --out: ${existing} already exists`],
      [['review', 'export', '--out', existing], 1, `satchel: --out: ${existing} already exists`],
      [['supplier', 'create', '--name', 'No Number'], 1, 'satchel: --code: Enter the supplier number.\n'],
      // Checked before anything is asked or written, as a mistake of usage.
      [
        ['profile', 'add', '--name', 'Typo', '--demo', '--url', 'htp://127.0.0.1:4010'],
        2,
        'satchel: --url: Enter an http(s) address, such as https://api.example.com.\n',
      ],
      [
        ['profile', 'add', '--name', 'Demo', '--demo', '--url', 'http://127.0.0.1:1'],
        1,
        'satchel: --name: An organisation called "Demo" is already connected.\n',
      ],
      [
        ['search', '--profile', 'Nobody'],
        2,
        'satchel: --profile: no organisation called "Nobody" is connected',
      ],
      [
        ['sync', '--profile', 'Nobody'],
        2,
        'satchel: --profile: no organisation called "Nobody" is connected',
      ],
      [['profile', 'remove', 'Nobody'], 1, 'satchel: No organisation called "Nobody" is connected.\n'],
      [
        ['download', '--to', tempDir(), '--transaction', 'nope'],
        1,
        'satchel: --transaction: No transaction with the id nope in the offline copy; nothing was downloaded. Sync, then try again.\n',
      ],
    ];
    for (const [args, code, message] of cases) {
      const result = await satchel(args, env);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code, stdout: '' });
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.stderr, args.join(' ')).not.toContain('field:');
    }
    expect(readFileSync(path.join(env.SATCHEL_DATA_DIR, 'profiles.json'), 'utf8')).toBe(registry);
  });

  it("says an option mistake in one line, and where the command's options are", async () => {
    const env = { SATCHEL_DATA_DIR: tempDir() };
    const cases: Array<[string[], string]> = [
      [['search', '--bogus'], 'unknown option --bogus; Run "satchel search --help" for its options.'],
      [['edits', 'list', '--bogus'], 'unknown option --bogus; Run "satchel edits --help" for its options.'],
      [['search', '-x'], 'unknown option -x; Run "satchel search --help" for its options.'],
      [['search', '--page'], '--page takes a value; Run "satchel search --help" for its options.'],
      [['status', '--json=yes'], '--json takes no value; Run "satchel status --help" for its options.'],
      [['search', 'hotel'], 'unexpected argument "hotel"; Run "satchel search --help" for its options.'],
      [['fly'], 'unknown command "fly"; Run "satchel help" for usage.'],
      // The action is checked before the organisation (none is connected here).
      [
        ['edits', 'lsit'],
        'edits takes list, push, retry, discard or resolve, not "lsit"; Run "satchel edits --help" for its options.',
      ],
    ];
    for (const [args, said] of cases) {
      const [message, hint] = said.split('; ');
      const result = await satchel(args, env);
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: `satchel: ${message}\n${hint}\n`,
      });
    }
  });

  it("filters by amount and by note, as the app's filter bar does", async () => {
    const { env } = await connected();
    type Page = {
      rows: Array<{ id: string; amount: { minor: number; currency: string } }>;
      totals: { count: number };
    };
    const search = async (args: string[]) =>
      JSON.parse((await satchel(['search', '--json', '--page-size', '500', ...args], env)).stdout) as Page;
    const sized = await search([
      '--currency',
      'eur',
      '--min-amount',
      '100',
      '--max-amount',
      '120',
      '--ignore-sign',
    ]);
    expect(sized.rows.length).toBeGreaterThan(0);
    expect(sized.totals.count).toBe(sized.rows.length);
    for (const row of sized.rows) {
      expect(row.amount.currency).toBe('EUR');
      expect(Math.abs(row.amount.minor)).toBeGreaterThanOrEqual(10_000);
      expect(Math.abs(row.amount.minor)).toBeLessThanOrEqual(12_000);
    }
    // A negative bound is glued on with "=", as for any option value starting with a dash.
    const spent = await search(['--currency', 'EUR', '--max-amount=-100.5']);
    expect(spent.rows.length).toBeGreaterThan(0);
    for (const row of spent.rows) expect(row.amount.minor).toBeLessThanOrEqual(-10_050);
    // The export takes the same filters.
    const out = path.join(tempDir(), 'sized.csv');
    const exported = await satchel(
      [
        'export',
        '--out',
        out,
        '--currency',
        'EUR',
        '--min-amount',
        '100',
        '--max-amount',
        '120',
        '--ignore-sign',
      ],
      env,
    );
    expect(exported.stdout).toMatch(new RegExp(`^${sized.totals.count} transactions written to `));

    const [noted] = sized.rows;
    expect((await satchel(['review', 'mark', '--note', 'ask the client', '--id', noted!.id], env)).code).toBe(
      0,
    );
    expect((await search(['--has-note', 'true'])).rows.map((row) => row.id)).toEqual([noted!.id]);

    const cases: Array<[string[], string]> = [
      [['search', '--min-amount', '10'], '--min-amount needs exactly one --currency to read the amount in'],
      [
        ['search', '--currency', 'EUR', '--min-amount', '1,50'],
        '--min-amount: Use a decimal amount like 12.30',
      ],
      [
        ['search', '--currency', 'JPY', '--max-amount', '1.5'],
        '--max-amount: "1.5" has more than 0 decimals',
      ],
      [
        ['search', '--currency', 'EUR', '--min-amount', '5', '--max-amount', '1'],
        '--min-amount: The smallest amount is above the largest.',
      ],
      [
        ['search', '--currency', 'EUR', '--max-amount', '-5'],
        'a value of --max-amount that starts with "-" is written --max-amount=-…',
      ],
      [['search', '--ignore-sign'], '--ignore-sign goes with --min-amount or --max-amount'],
      [['search', '--has-note', 'yes'], '--has-note takes true or false'],
    ];
    for (const [args, message] of cases) {
      const result = await satchel(args, env);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(result.stderr.split('\n')[0], args.join(' ')).toContain(`satchel: ${message}`);
    }
  });

  it('sorts a search as the export does', async () => {
    const { env } = await connected();
    const page = async (args: string[]) =>
      (
        JSON.parse((await satchel(['search', '--json', '--currency', 'EUR', ...args], env)).stdout) as {
          rows: Array<{ amount: { minor: number } }>;
        }
      ).rows.map((row) => row.amount.minor);
    const ascending = await page(['--sort', 'amount', '--asc', '--page-size', '20']);
    expect(ascending).toHaveLength(20);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    const descending = await page(['--sort', 'amount', '--page-size', '20']);
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    expect(descending[0]).toBeGreaterThan(ascending[0]!);
    const wrong = await satchel(['search', '--sort', 'size'], env);
    expect(wrong).toMatchObject({ code: 2, stdout: '' });
    expect(wrong.stderr).toContain('--sort takes one of bookingDate, valueDate, amount');
  });

  it('takes --data-dir after the command as well as before it', async () => {
    const { env } = await connected();
    const other = tempDir();
    const here = await satchel(['status'], env);
    expect(here.stdout).toContain('Demo');
    // The same folder named after the command, in both spellings; another folder, empty.
    for (const args of [
      ['status', '--data-dir', env.SATCHEL_DATA_DIR],
      ['status', `--data-dir=${env.SATCHEL_DATA_DIR}`],
    ]) {
      const result = await satchel(args, {});
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(result.stdout).toBe(here.stdout);
    }
    const empty = await satchel(['status', '--data-dir', other], env);
    expect(empty.code).toBe(0);
    expect(empty.stdout).not.toContain('Demo');
    expect((await satchel(['status', '--data-dir'], env)).code).toBe(2);
  });

  it('says which data folder cannot be created, and why, when mkdir refuses it', async () => {
    // A folder whose parent is a file: no folder can be made below a file (ENOTDIR).
    const file = path.join(tempDir(), 'notes.txt');
    writeFileSync(file, '');
    const below = path.join(file, 'satchel');
    const underFile = await satchel(['status'], { SATCHEL_DATA_DIR: below });
    expect(underFile).toEqual({
      code: 1,
      stdout: '',
      stderr: `satchel: The data folder ${below} cannot be created: part of its path is a file, not a folder. Give another with --data-dir.\n`,
    });
    // A folder that cannot be made where mkdir answers ENOENT, as it may on a read-only disk:
    // here a link on its path that leads nowhere.
    const link = path.join(tempDir(), 'gone');
    symlinkSync(path.join(tempDir(), 'removed', 'drive'), link);
    const nowhere = path.join(link, 'satchel');
    const missing = await satchel(['--data-dir', nowhere, 'status'], {});
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `satchel: The data folder ${nowhere} cannot be created (a read-only disk, or a link on its path that leads nowhere). Give another with --data-dir.\n`,
    });
    expect(existsSync(nowhere)).toBe(false);
    // Links on its path that point at each other (ELOOP).
    const loop = path.join(tempDir(), 'loop');
    symlinkSync(`${loop}-back`, loop);
    symlinkSync(loop, `${loop}-back`);
    const looped = path.join(loop, 'satchel');
    expect(await satchel(['--data-dir', looped, 'status'], {})).toEqual({
      code: 1,
      stdout: '',
      stderr: `satchel: The data folder ${looped} cannot be created: links on its path lead back to each other. Give another with --data-dir.\n`,
    });
  });

  it('resolves a conflict from the command line, and keeps saying so until it is', async () => {
    const { sandbox, env } = await connected();
    const supplier = sandbox.state.suppliers[5]!;
    expect((await satchel(['supplier', 'update', supplier.id, '--name', 'Mine'], env)).code).toBe(0);
    sandbox.control!.updateSupplier(supplier.id, { name: 'Theirs' });
    const push = await satchel(['edits', 'push'], env);
    expect(push.code).toBe(1);
    expect(push.stdout).toBe('0 sent, 0 failed, 1 conflicts, 0 waiting\n');
    // A later push sends nothing new, and still fails while the conflict is open.
    const again = await satchel(['edits', 'push'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('1 in conflict with the server (edits resolve OP --mine or --theirs)');
    // So does a sync, which pushes first, without failing itself.
    const sync = await satchel(['sync'], env);
    expect(sync.code).toBe(0);
    expect(sync.stderr).toContain('Demo: Offline edits need your attention: 1 in conflict');

    const [item] = (
      JSON.parse((await satchel(['edits', 'list', '--json'], env)).stdout) as {
        items: Array<{ operationId: string; status: string }>;
      }
    ).items;
    expect(item?.status).toBe('conflict');
    // Named by the supplier, the server's time said to the minute in UTC (here and stored).
    const changedAt = sandbox.state.suppliers.find((s) => s.id === supplier.id)!.updateTime!;
    const when = `${changedAt.slice(0, 10)} ${changedAt.slice(11, 16)} UTC`;
    expect(item).toMatchObject({
      name: 'Mine',
      recordId: supplier.id,
      error: { code: 'CONFLICT', message: expect.stringContaining(`changed on the server (${when})`) },
    });
    const listed = (await satchel(['edits', 'list'], env)).stdout;
    expect(listed).toContain(`update supplier "Mine" (${supplier.id})`);
    expect(listed).toContain(`The supplier was changed on the server (${when}) after this edit was made.`);
    expect(listed).not.toContain(changedAt);
    expect((await satchel(['edits', 'resolve', item!.operationId], env)).code).toBe(2);
    expect((await satchel(['edits', 'resolve', item!.operationId, '--mine'], env)).stderr).toContain(
      'Kept yours',
    );
    expect(await satchel(['edits', 'push'], env)).toMatchObject({
      code: 0,
      stdout: '1 sent, 0 failed, 0 conflicts, 0 waiting\n',
    });
    expect(sandbox.state.suppliers.find((s) => s.id === supplier.id)?.name).toBe('Mine');

    // An edit the server refuses (a number a colleague took meanwhile) stays, and says how to go on.
    expect((await satchel(['supplier', 'create', '--name', 'Twice', '--code', 'TW-1'], env)).code).toBe(0);
    const token = await sandboxToken(sandbox, 'read write');
    const colleague = await fetch(`${sandbox.url}/v1/suppliers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Colleague', code: 'TW-1' }),
    });
    expect(colleague.status).toBe(201);
    const refused = await satchel(['edits', 'push'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      '1 refused by the server (its reason is in the list; edits retry OP or edits discard OP)',
    );
    // The list says the server's reason on its field, with the API's own code of the rule.
    expect((await satchel(['edits', 'list'], env)).stdout).toContain(
      'code: Another supplier already has code TW-1. [DUPLICATE_CODE]',
    );
  });

  it('follows an organisation to a new address and key, and does not drop unsent work on remove', async () => {
    const { sandbox, env } = await connected();
    const moved = await startSandbox({ port: 0, seed: 22, transactions: 300, control: true });
    stops.push(() => moved.stop());
    await sandbox.stop();
    const unreachable = await satchel(['sync'], env);
    expect(unreachable.code).toBe(1);
    // With no answer a new key cannot be checked: it is kept, as in Settings (the old one may be
    // what failed), and the next sync tells.
    const unchecked = { ...env, SATCHEL_CLIENT_SECRET: moved.clientSecret };
    expect(await satchel(['profile', 'set-key', 'Demo', '--client-id', moved.clientId], unchecked)).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'New credentials for "Demo" are in the keychain.\n' +
        'Saved. It could not be checked now (no connection); the next sync will check it.\n',
    });
    // So is a new connection: added, and said to be unchecked.
    expect(
      await satchel(
        ['profile', 'add', '--name', 'Later', '--url', sandbox.url, '--client-id', moved.clientId],
        unchecked,
      ),
    ).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `Connected "Later" (${sandbox.url}).\n` +
        'Added. It could not be checked now (no connection); the first sync will check it.\n',
    });
    expect((await satchel(['profile', 'remove', 'Later'], env)).code).toBe(0);
    expect((await satchel(['profile', 'set-url', 'Demo', '--url', moved.url], env)).stderr).toBe(
      `"Demo" now connects to ${moved.url}; its offline copy is kept.\n`,
    );
    expect((await satchel(['sync'], env)).code).toBe(0);

    // A token refused as the organisation is added is not one the API "no longer" accepts.
    const token = await satchel(
      ['profile', 'add', '--name', 'T', '--url', moved.url, '--token-stdin'],
      env,
      'not-a-token\n',
    );
    expect(token.code).toBe(1);
    expect(token.stderr).toBe(
      'satchel: The API refused these credentials; check them and try again. Nothing was added. (field: auth)\n',
    );
    // The organisation revokes the key: a sync says how to give a new one here.
    moved.control!.replaceClientSecret('sk_replaced');
    const refused = await satchel(['sync'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('with "satchel profile set-key"');
    // A new key the API refuses changes nothing: it is checked first, and the one before stays.
    const registry = path.join(env.SATCHEL_DATA_DIR, 'profiles.json');
    const [before] = JSON.parse((await satchel(['profile', 'list', '--json'], env)).stdout) as Array<{
      id: string;
    }>;
    const keptSecret = await secrets.get(`profile:${before!.id}`);
    const listBefore = readFileSync(registry, 'utf8');
    const wrong = { ...env, SATCHEL_CLIENT_SECRET: 'sk_wrong' };
    const rejected = await satchel(['profile', 'set-key', 'Demo', '--client-id', 'kid_other'], wrong);
    expect(rejected).toMatchObject({ code: 1, stdout: '' });
    expect(rejected.stderr).toBe(
      'satchel: The API refused this key; the one before is kept. Check it and try again. (field: auth)\n',
    );
    expect(await secrets.get(`profile:${before!.id}`)).toBe(keptSecret);
    expect(readFileSync(registry, 'utf8')).toBe(listBefore);
    // The organisation's new key is taken, and syncs.
    const right = { ...env, SATCHEL_CLIENT_SECRET: 'sk_replaced' };
    expect(await satchel(['profile', 'set-key', 'Demo', '--client-id', moved.clientId], right)).toMatchObject(
      {
        code: 0,
        stdout: '',
        stderr: 'New credentials for "Demo" are in the keychain.\n',
      },
    );
    expect((await satchel(['sync'], env)).code).toBe(0);

    // Unsent edits and review marks live only here: removing the organisation asks first.
    expect((await satchel(['supplier', 'create', '--name', 'Pending GmbH', '--code', 'PG1'], env)).code).toBe(
      0,
    );
    expect((await satchel(['review', 'mark', '--note', 'important', '--from', '2026-10-01'], env)).code).toBe(
      0,
    );
    const remove = await satchel(['profile', 'remove', 'Demo'], env);
    expect(remove.code).toBe(1);
    expect(remove.stderr).toMatch(
      /"Demo" holds 1 unsent edit and \d+ review marks that only this offline copy has/,
    );
    expect(JSON.parse((await satchel(['profile', 'list', '--json'], env)).stdout)).toHaveLength(1);
    expect((await satchel(['profile', 'remove', 'Demo', '--force'], env)).code).toBe(0);
    expect(JSON.parse((await satchel(['profile', 'list', '--json'], env)).stdout)).toHaveLength(0);
  });
});
