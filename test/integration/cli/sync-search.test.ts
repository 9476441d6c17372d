import { afterEach, describe, expect, it } from 'vitest';
import { createKeychainSecrets } from '../../../src-main/secrets';
import { startSandbox } from '../../../src-sandbox';
import { runCli } from '../../helpers/cli';
import { deleteProfileSecrets } from '../../helpers/keychain';
import { useTempDirs } from '../../helpers/temp-dir';

// The CLI end to end: connect the demo organisation, sync, search offline, against the real
// sandbox and the real keychain.
const tempDir = useTempDirs();
const secrets = createKeychainSecrets();
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await deleteProfileSecrets(secrets, tempDir.list()); // only this test's entries
});

async function v0(url: string, clientId: string, clientSecret: string, body: object) {
  const token = (await (
    await fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
    })
  ).json()) as { access_token: string };
  const answer = await fetch(`${url}/v0/bank-transactions/search-query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await answer.json()) as {
    data: Array<{ id: string }>;
    meta: { pagination: { totalItems: number } };
  };
}

// Eleven `satchel` processes through tsx, one after the other: about 25 s on a loaded
// machine, too close to the project's 30 s for one test.
describe('satchel CLI: sync and search', { timeout: 120_000 }, () => {
  it('connects the demo organisation, syncs with plain progress lines, and searches offline like the API', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 21, transactions: 1200 });
    stops.push(() => sandbox.stop());
    const env = { SATCHEL_DATA_DIR: tempDir() };

    const added = await runCli(['profile', 'add', '--name', 'Demo', '--demo', '--url', sandbox.url], { env });
    expect(added).toMatchObject({ code: 0, stdout: '', stderr: `Connected "Demo" (${sandbox.url}).\n` });
    // `status` shows each organisation's last sync: none yet.
    const before = await runCli(['status'], { env });
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^ORGANISATION\s+URL\s+LAST SYNC\s+OFFLINE COPY$/m);
    expect(before.stdout).toMatch(/^Demo\s+http:\S+\s+never\s+writable$/m);

    const synced = await runCli(['sync'], { env });
    expect(synced.code).toBe(0);
    // stdout holds the outcome alone; what it is doing goes to stderr, a line per resource when
    // stderr is not a terminal.
    expect(synced.stdout).toMatch(/^Demo: succeeded, \d+ records written\n$/);
    expect(synced.stderr).toMatch(/^Syncing Demo\nbankAccounts…\n(\w+…\n)+$/);
    expect(synced.stderr).toContain('bankTransactions…');
    expect(synced.stderr).not.toContain('\r'); // not a terminal: plain lines
    const after = await runCli(['status'], { env });
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(
      /^Demo\s+http:\S+\s+succeeded, \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+writable$/m,
    );

    await sandbox.stop();
    stops.length = 0;
    // Offline now: the search answers from the cache alone.
    const search = await runCli(
      [
        'search',
        '--text',
        'hotel',
        '--from',
        '2025-01-01',
        '--matched',
        'false',
        '--json',
        '--page-size',
        '100',
      ],
      { env },
    );
    expect(search.stderr).toBe('');
    expect(search.code).toBe(0);
    const local = JSON.parse(search.stdout) as { rows: Array<{ id: string }>; totals: { count: number } };

    const again = await startSandbox({ port: 0, seed: 21, transactions: 1200 });
    stops.push(() => again.stop());
    const remote = await v0(again.url, again.clientId, again.clientSecret, {
      freeText: 'hotel',
      bookingDateFrom: '2025-01-01',
      matched: false,
      pagination: { page: 1, pageSize: 100 },
    });
    expect(remote.data.length).toBeGreaterThan(0);
    expect(local.rows.map((row) => row.id)).toEqual(remote.data.map((row) => row.id));
    expect(local.totals.count).toBe(remote.meta.pagination.totalItems);

    const human = await runCli(['search', '--text', 'hotel'], { env });
    expect(human.stdout).toMatch(/^BOOKED\s+AMOUNT\s+COUNTERPARTY/);
    expect(human.stderr).toMatch(/^\d+ transactions · /);
    // One found is one transaction ("1 transactions" was said).
    const one = await runCli(['search', '--text', local.rows[0]!.id], { env });
    expect(one.stderr).toMatch(/^1 transaction · [^\n]+ · page 1\n$/);
    const oneCsv = await runCli(['export', '--out', '-', '--text', local.rows[0]!.id], { env });
    expect(oneCsv.stderr).toMatch(/^1 transaction written to standard output \(\d+ bytes\)\n$/);
    // A date that is no date names the option it was given to, as a mistake of usage.
    const bad = await runCli(['search', '--from', '2025-13-01'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from takes a calendar date as YYYY-MM-DD, not "2025-13-01"');
    const badEnd = await runCli(['export', '--out', 'never.csv', '--to', '2025-02-30'], { env });
    expect(badEnd.code).toBe(2);
    expect(badEnd.stderr).toContain('--to takes a calendar date');
    const badUntil = await runCli(['download', '--to', 'never', '--until', '31.12.2025'], { env });
    expect(badUntil.code).toBe(2);
    expect(badUntil.stderr).toContain('--until takes a calendar date as YYYY-MM-DD, not "31.12.2025"');
    // So does a page that is no page number.
    const badPage = await runCli(['search', '--page', '0'], { env });
    expect(badPage.code).toBe(2);
    expect(badPage.stderr).toContain('--page takes a whole number from 1 to 1000000, not "0"');
    const badSize = await runCli(['search', '--page-size', '1e2'], { env });
    expect(badSize.code).toBe(2);
    expect(badSize.stderr).toContain('--page-size takes a whole number from 1 to 500, not "1e2"');
  });
});
