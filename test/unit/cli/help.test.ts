import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli';

// What a script author reads before writing the script: `satchel COMMAND --help` names every
// option the command takes, with what it takes and its default, and a call with no command at
// all is a mistake said on stderr. None of these opens a data folder.

async function satchel(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(args, { stdout, stderr, stdin: new PassThrough(), env: {} });
  return { code, stdout: out, stderr: err };
}

/** Every option each command's parser accepts (src-main/cli/*.ts). */
const OPTIONS: Record<string, string[]> = {
  profile: ['name', 'url', 'client-id', 'client-secret-stdin', 'token-stdin', 'demo', 'json', 'force'],
  sync: ['profile', 'full', 'limit', 'json'],
  search: [
    ...['profile', 'text', 'from', 'to', 'account', 'matched', 'reviewed', 'flagged', 'tag', 'type'],
    ...['currency', 'sort', 'asc', 'page', 'page-size', 'json', 'min-amount', 'max-amount'],
    ...['ignore-sign', 'has-note'],
  ],
  export: [
    ...['profile', 'out', 'asc', 'locale', 'delimiter', 'decimal', 'force', 'text', 'from', 'to'],
    ...['account', 'matched', 'reviewed', 'flagged', 'tag', 'type', 'currency', 'sort', 'has-file'],
    ...['booked-on', 'has-note'],
  ],
  expense: [
    ...['profile', 'text', 'reviewed', 'flagged', 'tag', 'has-note', 'has-file', 'booked-on', 'account'],
    ...['all', 'sort', 'asc', 'page', 'page-size', 'json'],
  ],
  download: [
    ...['profile', 'to', 'template', 'layout', 'transaction', 'expense', 'file', 'until', 'text'],
    ...['from', 'account', 'matched', 'reviewed', 'flagged', 'tag', 'type', 'currency'],
  ],
  review: [
    ...['profile', 'id', 'expenses', 'reviewed', 'unreviewed', 'flag', 'unflag', 'note', 'clear-note'],
    ...['tag', 'untag', 'is-reviewed', 'json', 'out', 'force'],
  ],
  account: ['profile', 'json'],
  supplier: ['profile', 'name', 'code', 'status', 'vat-id', 'iban', 'bic', 'currency', 'text', 'all', 'json'],
  dimension: ['profile', 'name', 'code', 'status', 'items', 'all', 'json'],
  edits: ['profile', 'json', 'mine', 'theirs'],
  status: ['json'],
  show: ['profile', 'json'],
};

describe('satchel COMMAND --help', () => {
  it('describes each option of each command, with its default where it has one', async () => {
    for (const [command, options] of Object.entries(OPTIONS)) {
      for (const args of [
        [command, '--help'],
        ['help', command],
        [command, '-h'],
      ]) {
        const result = await satchel(args);
        expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
        expect(result.stdout.startsWith(`satchel ${command} `), args.join(' ')).toBe(true);
        // Only this command's synopsis, not every command's.
        expect(result.stdout).not.toMatch(new RegExp(`^satchel (?!${command} )`, 'm'));
        for (const option of options)
          expect(result.stdout, `${command}: --${option}`).toMatch(
            new RegExp(`^ {2}(.*\\s)?--${option}\\b`, 'm'),
          );
      }
    }
    const search = (await satchel(['search', '--help'])).stdout;
    expect(search).toMatch(/--page-size N .*\(default 50\)/);
    expect(search).toMatch(/--page N .*\(default 1\)/);
    expect(search).toContain('CARD, PAYOUT, TOP_UP, WITHDRAWAL, REPAYMENT');
    expect(search).toMatch(/--sort FIELD[\s\S]*\(default bookingDate\)/);
    const download = (await satchel(['download', '--help'])).stdout;
    expect(download).toMatch(/--layout L +flat, month, account, supplier[\s\S]*\(default flat\)/);
    expect(download).toContain('(default "{bookingDate}_{counterparty}_{amount}_{currency}_{originalName}")');
    expect((await satchel(['export', '--help'])).stdout).toMatch(/\(default expenseTime\)/);
  });

  it('keeps the full usage for --help alone, and says a missing command on stderr', async () => {
    const full = await satchel(['--help']);
    expect(full.code).toBe(0);
    expect(full.stdout).toContain('satchel COMMAND --help');
    for (const command of Object.keys(OPTIONS)) expect(full.stdout).toContain(`satchel ${command} `);

    const none = await satchel([]);
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toMatch(/^Usage: satchel/);

    const unknown = await satchel(['help', 'fly']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('unknown command "fly"');
  });
});
