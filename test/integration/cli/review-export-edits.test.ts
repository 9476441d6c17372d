import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { parseCsv } from '../../helpers/csv';
import { sandboxToken } from '../../helpers/sandbox-token';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { useTempDirs } from '../../helpers/temp-dir';

// Review, CSV export and offline edits from the command line, against the real sandbox and
// the real keychain: what an accountant scripts, and what a colleague continues.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list()); // only this test's entries
});

async function ok(args: string[], env: NodeJS.ProcessEnv) {
  const result = await runCli(args, { env });
  // stderr may carry progress (a sync's resources), never a complaint.
  expect(result.stderr, args.join(' ')).not.toContain('satchel:');
  expect(result.code, args.join(' ')).toBe(0);
  return result.stdout;
}

/** A GET of the sandbox's API with a token of its own, as a second client would make it. */
async function apiGet(sandbox: { url: string; clientId: string; clientSecret: string }, path: string) {
  const token = await sandboxToken(sandbox);
  const answer = await fetch(`${sandbox.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status, path).toBe(200);
  return (await answer.json()) as unknown;
}

async function connectAndSync(url: string) {
  const env = { SATCHEL_DATA_DIR: tempDir() };
  await ok(['profile', 'add', '--name', 'Demo', '--demo', '--url', url], env);
  await ok(['sync'], env);
  return env;
}

// Each test runs a dozen or more `satchel` processes, each compiling the CLI through tsx as it
// starts (1.5–2.5 s apiece on two busy cores): 20 s alone, past 30 s beside the other files.
describe('satchel CLI: review, export and offline edits', { timeout: 120_000 }, () => {
  it('marks, exports a German CSV, and hands the review to a colleague', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 22, transactions: 900 });
    stops.push(() => sandbox.stop());
    const mine = await connectAndSync(sandbox.url);

    const unmatched = JSON.parse(await ok(['search', '--matched', 'false', '--json'], mine)) as {
      rows: Array<{ id: string }>;
      totals: { count: number };
    };
    const [first, second] = unmatched.rows as [{ id: string }, { id: string }];
    expect(
      await ok(['review', 'mark', '--flag', 'Receipt missing', '--id', first.id, '--id', second.id], mine),
    ).toBe('2 records changed\n');
    expect(await ok(['review', 'mark', '--note', 'Asked the client', '--id', first.id], mine)).toBe(
      '1 record changed\n',
    );
    expect(
      await ok(['review', 'mark', '--reviewed', '--matched', 'true', '--from', '2026-01-01'], mine),
    ).toMatch(/^\d+ records changed\n$/);
    const attention = JSON.parse(await ok(['review', 'attention', '--json'], mine)) as {
      groups: Array<{ group: string; count: number }>;
    };
    expect(attention.groups.find((group) => group.group === 'flaggedTransactions')?.count).toBe(2);

    const csv = path.join(tempDir(), 'unmatched.csv');
    expect(await ok(['export', '--out', csv, '--matched', 'false', '--locale', 'de-DE'], mine)).toMatch(
      new RegExp(`^${unmatched.totals.count} transactions written to `),
    );
    const rows = parseCsv(readFileSync(csv, 'utf8').slice(1), ';');
    expect(rows).toHaveLength(unmatched.totals.count + 1);
    const header = rows[0]!;
    const flagged = rows.find((row) => row[0] === first.id)!;
    expect(flagged[header.indexOf('flag_reason')]).toBe('Receipt missing');
    expect(flagged[header.indexOf('note')]).toBe('Asked the client');
    expect(flagged[header.indexOf('amount')]).toMatch(/^-?\d+(,\d+)?$/);
    const again = await runCli(['export', '--out', csv, '--matched', 'false'], { env: mine });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');

    // Expenses: those without a receipt, from the synced organisation.
    const expensesCsv = path.join(tempDir(), 'no-receipt.csv');
    const withoutFile = await ok(
      ['export', 'expenses', '--out', expensesCsv, '--has-file', 'false', '--sort', 'amount', '--asc'],
      mine,
    );
    const exported = Number(/^(\d+) expenses written to /.exec(withoutFile)?.[1]);
    expect(exported).toBeGreaterThan(0);
    const expenseRows = parseCsv(readFileSync(expensesCsv, 'utf8').slice(1), ',');
    expect(expenseRows).toHaveLength(exported + 1);
    const files = expenseRows[0]!.indexOf('files');
    expect(expenseRows.slice(1).every((row) => row[files] === '0')).toBe(true);
    const bad = await runCli(['export', 'expenses', '--out', expensesCsv, '--has-file', 'maybe'], {
      env: mine,
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--has-file takes true or false');

    // Expenses booked on one cost center item: the item's dimension is looked up offline.
    const item = sandbox.state.items.find((candidate) =>
      sandbox.state.expenses.some((e) =>
        e.lines.some((l) => l.dimensions.some((d) => d.dimensionItemId === candidate.id)),
      ),
    )!;
    const bookedCount = sandbox.state.expenses.filter((e) =>
      e.lines.some((l) => l.dimensions.some((d) => d.dimensionItemId === item.id)),
    ).length;
    const bookedCsv = path.join(tempDir(), 'booked.csv');
    expect(await ok(['export', 'expenses', '--out', bookedCsv, '--booked-on', item.id], mine)).toMatch(
      new RegExp(`^${bookedCount} expenses written to `),
    );
    expect(bookedCount).toBeLessThan(sandbox.state.expenses.length);
    const unknown = await runCli(['export', 'expenses', '--out', bookedCsv, '--booked-on', 'no-such-item'], {
      env: mine,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no dimension item no-such-item');
    // Expenses booked to one expense account, named by its number.
    const account = sandbox.state.reference.expenseAccounts.find((candidate) =>
      sandbox.state.expenses.some((e) => e.lines.some((l) => l.expenseAccountId === candidate.id)),
    )!;
    const accountCount = sandbox.state.expenses.filter((e) =>
      e.lines.some((l) => l.expenseAccountId === account.id),
    ).length;
    expect(
      await ok(['export', 'expenses', '--out', bookedCsv, '--force', '--account', account.number], mine),
    ).toMatch(new RegExp(`^${accountCount} expenses written to `));

    const handover = path.join(tempDir(), 'review.json');
    expect(await ok(['review', 'export', '--out', handover], mine)).toMatch(/^\d+ review marks written to /);
    const handed = (JSON.parse(readFileSync(handover, 'utf8')) as { marks: unknown[] }).marks.length;
    const colleague = await connectAndSync(sandbox.url);
    // The colleague flagged one of the records too, after me, with a reason of their own.
    await ok(['review', 'mark', '--flag', 'Paid privately', '--id', first.id], colleague);
    expect(await ok(['review', 'import', handover], colleague)).toBe(
      `${handed} review marks read, ${handed} records updated, 1 record kept a newer local mark where the file says otherwise\n`,
    );
    const theirs = JSON.parse(await ok(['search', '--flagged', 'true', '--json'], colleague)) as {
      rows: Array<{ id: string; review: { note: string | null; flagReason: string | null } }>;
    };
    expect(theirs.rows.map((row) => row.id).sort()).toEqual([first.id, second.id].sort());
    const firstOfTheirs = theirs.rows.find((row) => row.id === first.id);
    expect(firstOfTheirs?.review).toMatchObject({ note: 'Asked the client', flagReason: 'Paid privately' });
    // The same file again takes nothing, and says the colleague's newer flag still stands.
    expect(await ok(['review', 'import', handover], colleague)).toBe(
      `${handed} review marks read, 0 records updated, 1 record kept a newer local mark where the file says otherwise\n`,
    );

    const broken = path.join(tempDir(), 'broken.json');
    await import('node:fs').then((fs) => fs.writeFileSync(broken, '{"format":"something else"}'));
    const refused = await runCli(['review', 'import', broken], { env: colleague });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Nothing was imported');
  });

  it('creates a supplier offline, keeps it while the API is away, and pushes it when it is back', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 23, transactions: 200 });
    stops.push(() => sandbox.stop());
    const port = Number(new URL(sandbox.url).port);
    const env = await connectAndSync(sandbox.url);
    await sandbox.stop();
    stops.length = 0;

    const missing = await runCli(['supplier', 'create', '--name', 'Kaffeerösterei Nord'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('code');
    expect(
      await ok(['supplier', 'create', '--name', 'Kaffeerösterei Nord', '--code', 'CLI-7001'], env),
    ).toMatch(/created offline; edit [0-9a-f-]{36} waits to be sent/);
    const listed = JSON.parse(await ok(['edits', 'list', '--json'], env)) as {
      items: Array<{ status: string; operation: string; resource: string }>;
    };
    expect(listed.items).toMatchObject([{ status: 'pending', operation: 'create', resource: 'supplier' }]);

    const offline = await runCli(['edits', 'push'], { env });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toMatch(/satchel: .+/);
    // Nothing reached the API (not even the token request): the edit waits as it was, with
    // the reason, and is not shown as "maybe sent".
    expect(JSON.parse(await ok(['edits', 'list', '--json'], env))).toMatchObject({
      items: [{ status: 'pending', attempts: 0, error: { code: 'OFFLINE' } }],
    });
    expect(await ok(['edits', 'list'], env)).not.toContain('maybe sent');

    const back = await startSandbox({ port, seed: 23, transactions: 200 });
    stops.push(() => back.stop());
    expect(await ok(['edits', 'push'], env)).toBe('1 sent, 0 failed, 0 conflicts, 0 waiting\n');
    // Nothing waits: no rows on stdout (the note is on stderr).
    expect(await ok(['edits', 'list'], env)).toBe('');
    const created: Array<{ name: string; number: string }> = [];
    for (let page = 1; ; page += 1) {
      const body = (await apiGet(back, `/v1/suppliers?page=${page}&page_size=100`)) as {
        data: Array<{ name: string; number: string }>;
      };
      created.push(...body.data.filter((supplier) => supplier.number === 'CLI-7001'));
      if (body.data.length < 100) break;
    }
    expect(created).toEqual([expect.objectContaining({ name: 'Kaffeerösterei Nord' })]); // once, not twice
  });
  it('lists, creates and updates dimensions and their items offline, then pushes them', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 29, transactions: 100 });
    stops.push(() => sandbox.stop());
    const env = await connectAndSync(sandbox.url);
    const { dimensions } = JSON.parse(await ok(['dimension', 'list', '--json'], env)) as {
      dimensions: Array<{ id: string; name: string; code: string }>;
    };
    expect(dimensions.length).toBeGreaterThan(0);
    const dimension = dimensions[0]!;
    const { items } = JSON.parse(await ok(['dimension', 'list', '--items', dimension.id, '--json'], env)) as {
      items: Array<{ id: string; name: string }>;
    };
    expect(items.length).toBeGreaterThan(0);
    const item = items[0]!;
    // An id that is no dimension here is said to be one, not shown as an empty dimension.
    const unknown = await runCli(['dimension', 'list', '--items', 'no-such-dimension'], { env });
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('No dimension "no-such-dimension" in the offline copy');

    // Refused on the option, as a usage mistake, before anything is queued; so is a missing id.
    const noCode = await runCli(['dimension', 'create', '--name', 'Projects'], { env });
    expect(noCode.code).toBe(2);
    expect(noCode.stderr).toContain('--code: ');
    const badStatus = await runCli(['dimension', 'update', dimension.id, '--status', 'SOMETIMES'], { env });
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('--status: ');
    expect((await runCli(['dimension', 'update', '--name', 'x'], { env })).code).toBe(2);

    expect(await ok(['dimension', 'create', '--name', 'Client projects', '--code', 'CLI-PRJ'], env)).toMatch(
      /^Dimension \S+ created offline; edit [0-9a-f-]{36} waits to be sent\n$/,
    );
    expect(
      await ok(['dimension', 'create-item', dimension.id, '--name', 'Audit 2026', '--code', 'CLI-A26'], env),
    ).toMatch(/^Dimension item \S+ created offline/);
    expect(
      await ok(['dimension', 'update-item', dimension.id, item.id, '--name', 'Renamed offline'], env),
    ).toMatch(new RegExp(`^Dimension item ${item.id} updated offline`));
    // The offline copy shows the edits at once, marked as waiting.
    expect(await ok(['dimension', 'list'], env)).toMatch(/CLI-PRJ +Client projects +ACTIVE; edit pending\n/);
    expect(await ok(['dimension', 'list', '--items', dimension.id], env)).toContain('Renamed offline');

    expect(await ok(['edits', 'push'], env)).toBe('3 sent, 0 failed, 0 conflicts, 0 waiting\n');
    const server = (await apiGet(sandbox, '/v1/dimensions?page_size=100')) as {
      data: Array<{ code: string; name: string }>;
    };
    expect(server.data.filter((d) => d.code === 'CLI-PRJ')).toEqual([
      expect.objectContaining({ name: 'Client projects' }),
    ]);
    const serverItems = (await apiGet(
      sandbox,
      `/v1/dimensions/${encodeURIComponent(dimension.id)}/items?page_size=100`,
    )) as { data: Array<{ id: string; code: string; name: string }> };
    expect(serverItems.data.find((d) => d.id === item.id)?.name).toBe('Renamed offline');
    expect(serverItems.data.filter((d) => d.code === 'CLI-A26')).toHaveLength(1);
    expect(await ok(['dimension', 'list'], env)).not.toContain('; edit ');
  });
});
