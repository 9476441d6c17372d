import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets } from '../../src-main/secrets';
import type { EventName } from '../../src-shared/ipc';
import { startSandbox } from '../../src-sandbox';
import { runCli } from '../helpers/cli';
import { useTempDirs } from '../helpers/temp-dir';

// After a full sync, a search, an edit push, an export and a bulk download of receipts through
// the CLI, and the same work through the IPC handler table, neither the API secret nor any access
// token is found in the data folder, the exported file, the downloaded files and their manifest,
// the logs and output, or any IPC answer or event. The secret is only in the keychain.

const tempDir = useTempDirs();
const secrets = createKeychainSecrets(); // the CLI uses the default keychain service
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** Every access token the sandbox issues: `sbx_` and 32 base64url characters. */
const TOKEN = /sbx_[A-Za-z0-9_-]{20,}/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

async function ok(args: string[], env: NodeJS.ProcessEnv, stdin?: string) {
  const result = await runCli(args, { env, ...(stdin === undefined ? {} : { stdin }) });
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return `${result.stdout}\n${result.stderr}`;
}

describe('secret scan', () => {
  it('finds neither the API secret nor a token anywhere but the keychain', async () => {
    const clientSecret = `sk_scan_${randomUUID().replaceAll('-', '')}`;
    const sandbox = await startSandbox({
      port: 0,
      seed: 31,
      transactions: 600,
      clientId: 'kid_scan',
      clientSecret,
      readLimit: 100_000,
    });
    stops.push(() => sandbox.stop());
    const dataDir = path.join(tempDir(), 'data');
    const env = { SATCHEL_DATA_DIR: dataDir };
    const outputs: string[] = [];

    // The command line: connect (secret on standard input), sync, search, edit, push, export.
    outputs.push(
      await ok(
        [
          'profile',
          'add',
          '--name',
          'Scan',
          '--url',
          sandbox.url,
          '--client-id',
          'kid_scan',
          '--client-secret-stdin',
        ],
        env,
        `${clientSecret}\n`,
      ),
    );
    outputs.push(await ok(['sync', '--full'], env));
    outputs.push(await ok(['search', '--text', 'rewe', '--json'], env));
    outputs.push(await ok(['supplier', 'create', '--name', 'Scan Supplies Ltd', '--code', 'SCAN-1'], env));
    outputs.push(await ok(['edits', 'push'], env));
    const csv = path.join(tempDir(), 'export.csv');
    outputs.push(await ok(['export', '--out', csv, '--matched', 'false'], env));
    const downloads = path.join(tempDir(), 'receipts');
    outputs.push(await ok(['download', '--to', downloads, '--matched', 'true', '--layout', 'month'], env));
    outputs.push(await ok(['status', '--json'], env));
    outputs.push(await ok(['profile', 'list', '--json'], env));

    // The same data folder through the IPC handler table, with the core's log captured.
    const logged: string[] = [];
    const console_ = { error: console.error, warn: console.warn, log: console.log, info: console.info };
    for (const level of ['error', 'warn', 'log', 'info'] as const)
      console[level] = (...args: unknown[]) => logged.push(args.map(String).join(' '));
    const answers: unknown[] = [];
    const ipcDownloads = path.join(tempDir(), 'receipts-ipc');
    const events: Array<{ name: EventName; payload: unknown }> = [];
    try {
      // The folder dialog, answered with a new folder: downloads go only where one was picked.
      const pickFolder = () => {
        mkdirSync(ipcDownloads, { recursive: true });
        return Promise.resolve(ipcDownloads);
      };
      const core = createCore({ dataDir, secrets, pickFolder });
      core.events.subscribe((name, payload) => events.push({ name, payload }));
      const handlers = createHandlers(core);
      const ask = async (command: string, input: unknown) => {
        const answer = await dispatch(handlers, command, input);
        answers.push(answer);
        return answer;
      };
      const profiles = (await ask('profiles.list', {})) as {
        ok: true;
        value: { profiles: Array<{ id: string }> };
      };
      const profileId = profiles.value.profiles[0]!.id;
      stops.push(async () => void (await secrets.delete(`profile:${profileId}`))); // only this test's entry
      expect(await ask('sync.start', { profileId, full: true })).toMatchObject({
        ok: true,
        value: { outcome: 'succeeded' },
      });
      for (const [command, input] of [
        ['app.info', {}],
        ['app.online', {}],
        ['keychain.status', {}],
        ['transactions.search', { profileId, search: { filters: { freeText: 'a' } } }],
        ['expenses.search', { profileId, search: {} }],
        ['suppliers.search', { profileId, search: {} }],
        ['review.attention', { profileId }],
        ['suppliers.create', { profileId, input: { name: 'Scan Two GmbH', code: 'SCAN-2' } }],
        ['edits.list', { profileId }],
        ['edits.push', { profileId }],
        ['files.offlineScope.get', { profileId }],
        ['downloads.status', { profileId }],
        ['sync.history', { profileId, limit: 50 }],
        [
          'profiles.reauthenticate',
          { id: profileId, auth: { kind: 'client', clientId: 'kid_scan', clientSecret } },
        ],
        ['sync.start', { profileId, full: false }],
        ['profiles.list', {}],
      ] as const)
        expect(await ask(command, input), command).toMatchObject({ ok: true });
      // A bulk download through IPC (with its progress events), and one file fetched for preview.
      expect(await ask('dialog.pickFolder', {})).toMatchObject({ ok: true });
      const started = (await ask('downloads.start', {
        profileId,
        scope: { by: 'dateRange', from: '2000-01-01' },
        destination: ipcDownloads,
      })) as { ok: true; value: { job: { id: string } } };
      expect(started).toMatchObject({ ok: true });
      const jobId = started.value.job.id;
      let job: { status: string; files: { done: number; total: number; failed: number } } | undefined;
      for (let waited = 0; waited < 60_000 && job?.status !== 'completed'; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const status = (await dispatch(handlers, 'downloads.status', { profileId, jobId })) as {
          ok: true;
          value: { jobs: Array<NonNullable<typeof job>> };
        };
        job = status.value.jobs[0];
      }
      answers.push(job);
      expect(job).toMatchObject({ status: 'completed', files: { failed: 0 } });
      expect(job!.files.done).toBeGreaterThan(0);
      await core.close();
    } finally {
      Object.assign(console, console_);
    }

    // The secret is where it belongs, and the token pattern does match a real token.
    const connected = (
      JSON.parse(readFileSync(path.join(dataDir, 'profiles.json'), 'utf8')) as {
        profiles: Array<{ id: string }>;
      }
    ).profiles[0]!.id;
    expect(await secrets.get(`profile:${connected}`)).toBe(clientSecret);
    const token = (await (
      await fetch(`${sandbox.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'kid_scan',
          client_secret: clientSecret,
          scope: 'read',
        }),
      })
    ).json()) as { access_token: string };
    expect(token.access_token).toMatch(TOKEN);

    const places: Array<[string, string]> = [
      ...[...filesUnder(dataDir), ...filesUnder(downloads), ...filesUnder(ipcDownloads), csv].map(
        (file): [string, string] => [file, readFileSync(file).toString('latin1')],
      ),
      ['CLI output and log', outputs.join('\n')],
      ['core log', logged.join('\n')],
      ['IPC answers', JSON.stringify(answers)],
      ['IPC events', JSON.stringify(events)],
    ];
    expect(places.some(([where]) => where.endsWith('.sqlite') || where.includes('caches'))).toBe(true);
    expect(events.some((event) => event.name === 'sync.finished')).toBe(true);
    expect(events.some((event) => event.name === 'downloads.progress')).toBe(true);
    // The downloads are really there: receipts under month folders and the manifest.
    const downloaded = filesUnder(downloads);
    expect(downloaded.some((file) => /\.(pdf|png)$/.test(file))).toBe(true);
    expect(downloaded.some((file) => file.endsWith('.csv'))).toBe(true);
    for (const [where, text] of places) {
      expect(text.includes(clientSecret), `the secret in ${where}`).toBe(false);
      expect(TOKEN.exec(text)?.[0], `a token in ${where}`).toBeUndefined();
    }
  }, 120_000);

  it('refuses an API address that carries credentials, in the window and on the command line', async () => {
    const keychain = createKeychainSecrets({ service: `Satchel-scan-${randomUUID()}` });
    const dataDir = path.join(tempDir(), 'data');
    const core = createCore({ dataDir, secrets: keychain });
    const handlers = createHandlers(core);
    const auth = { kind: 'client', clientId: 'kid_url', clientSecret: 'sk_form_secret' };
    const inAddress = 'sk_in_the_address';
    const answers: unknown[] = [];
    try {
      for (const baseUrl of [
        `https://kid_url:${inAddress}@api.acme.test`,
        `https://${inAddress}@api.acme.test/v1`,
        `http://:${inAddress}@127.0.0.1:9`,
      ]) {
        const answer = await dispatch(handlers, 'profiles.add', { name: 'Acme', baseUrl, auth });
        answers.push(answer);
        expect(answer, baseUrl).toMatchObject({
          ok: false,
          error: { code: 'VALIDATION_ERROR', field: 'baseUrl' },
        });
      }
      expect(await keychain.list()).toEqual([]);
      expect(core.profiles.list()).toEqual([]);
    } finally {
      await core.close();
      for (const account of await keychain.list()) await keychain.delete(account);
    }
    const cli = await runCli(
      [
        'profile',
        'add',
        '--name',
        'Acme',
        '--url',
        `https://kid_url:${inAddress}@api.acme.test`,
        '--client-id',
        'kid_url',
        '--client-secret-stdin',
      ],
      { env: { SATCHEL_DATA_DIR: dataDir }, stdin: 'sk_form_secret\n' },
    );
    // Refused as a mistake in --url, before the secret is read.
    expect(cli.code, cli.stderr).toBe(2);
    expect(cli.stderr).toMatch(/--url: Enter the address without a user name or password/);
    const places = [
      ...filesUnder(dataDir).map((file) => readFileSync(file, 'utf8')),
      JSON.stringify(answers),
      cli.stdout,
      cli.stderr,
    ];
    for (const text of places) expect(text).not.toContain(inAddress);
  });

  it('passes on no secret or token that a server quotes back in an error', async () => {
    const clientSecret = `sk_echo_${randomUUID().replaceAll('-', '')}`;
    const sandbox = await startSandbox({
      port: 0,
      seed: 7,
      transactions: 50,
      clientId: 'kid_echo',
      clientSecret,
      control: true,
    });
    stops.push(() => sandbox.stop());
    const control = sandbox.control!;
    const keychain = createKeychainSecrets({ service: `Satchel-scan-${randomUUID()}` });
    stops.push(async () => {
      for (const account of await keychain.list()) await keychain.delete(account);
    });
    const auth = { kind: 'client', clientId: 'kid_echo', clientSecret } as const;

    // The fault does quote the secret back (501: an answer the client does not retry).
    control.addFault({ match: '/oauth2/token', status: 501, echoRequest: true, times: 1 });
    const echoed = await fetch(`${sandbox.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'kid_echo',
        client_secret: clientSecret,
      }),
    });
    expect(await echoed.text()).toContain(clientSecret);

    const dataDir = path.join(tempDir(), 'data');
    const logged: string[] = [];
    const console_ = { error: console.error, warn: console.warn, log: console.log, info: console.info };
    for (const level of ['error', 'warn', 'log', 'info'] as const)
      console[level] = (...args: unknown[]) => logged.push(args.map(String).join(' '));
    const answers: unknown[] = [];
    const events: unknown[] = [];
    try {
      const core = createCore({ dataDir, secrets: keychain });
      core.events.subscribe((name, payload) => events.push({ name, payload }));
      const handlers = createHandlers(core);
      const ask = async (command: string, input: unknown) => {
        const answer = await dispatch(handlers, command, input);
        answers.push(answer);
        return answer;
      };
      const added = (await ask('profiles.add', { name: 'Echo', baseUrl: sandbox.url, auth })) as {
        ok: true;
        value: { id: string };
      };
      expect(added).toMatchObject({ ok: true });
      const profileId = added.value.id;

      // A read answered with the request (and so the access token) quoted in the error.
      const read = control.addFault({ match: '/v1/bank-accounts', status: 501, echoRequest: true });
      await ask('sync.start', { profileId, full: true });
      expect(control.faultFired(read)).toBeGreaterThan(0);
      control.clearFaults();

      // A sign-in answered with the form (and so the client secret) quoted in the error.
      const signIn = control.addFault({ match: '/oauth2/token', status: 501, echoRequest: true });
      expect(await ask('profiles.reauthenticate', { id: profileId, auth })).toMatchObject({ ok: true });
      await ask('sync.start', { profileId, full: false });
      expect(control.faultFired(signIn)).toBeGreaterThan(0);
      control.clearFaults();

      const history = (await ask('sync.history', { profileId, limit: 10 })) as {
        ok: true;
        value: { runs: Array<{ errors: Array<{ message: string }> }> };
      };
      // Both failures are told, with what the server said less the secrets.
      const told = history.value.runs.flatMap((run) => run.errors.map((error) => error.message));
      expect(told.some((message) => /Injected fault/.test(message))).toBe(true);
      expect(told.some((message) => /sign-in/i.test(message))).toBe(true);
      await core.close();
    } finally {
      Object.assign(console, console_);
    }

    const places: Array<[string, string]> = [
      ...filesUnder(dataDir).map((file): [string, string] => [file, readFileSync(file).toString('latin1')]),
      ['core log', logged.join('\n')],
      ['IPC answers', JSON.stringify(answers)],
      ['IPC events', JSON.stringify(events)],
    ];
    for (const [where, text] of places) {
      expect(text.includes(clientSecret), `the secret in ${where}`).toBe(false);
      expect(TOKEN.exec(text)?.[0], `a token in ${where}`).toBeUndefined();
    }
  }, 60_000);
});
