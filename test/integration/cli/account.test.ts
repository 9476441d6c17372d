import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { sandboxToken } from '../../helpers/sandbox-token';
import { useTempDirs } from '../../helpers/temp-dir';

// `--account ID` (search, export, download) takes a bank account's id; a script finds it with
// `account list`, from the offline copy, as the app's account filter offers the accounts.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('satchel account list', () => {
  it('lists the offline copy’s bank accounts, and an id it shows is what --account takes', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Accounts', { transactions: 60 });
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    // Not synced yet: no rows, and a note on stderr that says how to get them.
    const before = await runCli(['account', 'list'], { env });
    expect(before).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No bank accounts are cached; "satchel sync" brings them.\n',
    });

    expect((await runCli(['sync', '--profile', profile.id], { env })).code).toBe(0);
    const answer = await fetch(`${sandbox.url}/v1/bank-accounts`, {
      headers: { authorization: `Bearer ${await sandboxToken(sandbox)}` },
    });
    const sent = (
      (await answer.json()) as {
        data: Array<{ id: string; name: string; currency: string; status: string; accountNumber: string }>;
      }
    ).data;
    expect(sent.length).toBeGreaterThan(1);

    const json = await runCli(['account', 'list', '--json'], { env });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const { accounts } = JSON.parse(json.stdout) as { accounts: Array<{ id: string }> };
    expect(accounts).toEqual(
      expect.arrayContaining(
        sent.map(({ id, name, currency, status, accountNumber }) => ({
          id,
          name,
          currency,
          status,
          accountNumber,
        })),
      ),
    );
    expect(accounts).toHaveLength(sent.length);

    const listed = await runCli(['account', 'list'], { env });
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CURRENCY\s+STATUS$/);
    expect(lines).toHaveLength(sent.length + 1);
    for (const account of sent)
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^${account.id}\\s+${account.name}\\s+${account.currency}\\s+${account.status}$`),
        ),
      );

    // The id of an account, as listed, picks that account's transactions.
    const id = lines[1]!.split(/\s+/)[0]!;
    const search = await runCli(['search', '--account', id, '--json', '--page-size', '500'], { env });
    expect(search.code).toBe(0);
    const rows = (JSON.parse(search.stdout) as { rows: Array<{ bankAccountId: string }> }).rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.bankAccountId))).toEqual(new Set([id]));
    // The type is read in any case, as the currency is; the account's id too, as the search
    // matches it.
    const cards = await runCli(
      ['search', '--account', id.toUpperCase(), '--type', 'card', '--json', '--page-size', '500'],
      {
        env,
      },
    );
    expect(cards.code).toBe(0);
    const cardRows = (JSON.parse(cards.stdout) as { rows: Array<{ transactionType: string }> }).rows;
    expect(cardRows.length).toBeGreaterThan(0);
    expect(new Set(cardRows.map((row) => row.transactionType))).toEqual(new Set(['CARD']));

    const wrong = await runCli(['account', 'show'], { env });
    expect(wrong).toMatchObject({ code: 2, stdout: '' });
    expect(wrong.stderr).toContain('account takes list, not "show"');
  });
});
