import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { useTempDirs } from '../../helpers/temp-dir';

// "satchel profile recover": a list of organisations that cannot be read is set aside (never
// deleted) and written again from the offline copies; without --yes it only says what it would
// do. The real CLI in a child process, real SQLite files, the real sandbox and keychain.

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

describe('satchel profile recover', () => {
  it('says what it would do, then does it with --yes, keeping the copy, its edit and its key', async () => {
    const { dataDir, core, profile, sandbox } = await connect('Acme GmbH', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const supplierId = sandbox.state.suppliers[0]!.id;
    core.outbox.updateSupplier(profile.id, supplierId, { name: 'Recovered Offline KG' });
    await core.close();
    const listFile = path.join(dataDir, 'profiles.json');
    writeFileSync(listFile, 'not a list');
    const caches = path.join(dataDir, 'caches');
    writeFileSync(path.join(caches, 'stray.sqlite'), 'not a copy');
    const env = { SATCHEL_DATA_DIR: dataDir };
    const line = `  Acme GmbH (${sandbox.url}), offline copy ${profile.id}.sqlite with 1 unsent edit and 0 review marks; its key is in the keychain.\n`;
    const untied = `This file in ${caches} cannot be tied to an organisation and stays where it is, nothing deleted: stray.sqlite.\n`;

    const asked = await runCli(['profile', 'recover'], { env });
    expect(asked).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        `The damaged list ${listFile} will be renamed beside itself (nothing is deleted) and a new list written with 1 organisation found in its offline copy, each with its copy, its unsent edits and review marks as they are:\n` +
        line +
        untied +
        'Nothing was changed. Run "satchel profile recover --yes" to do it.\n',
    });
    expect(readFileSync(listFile, 'utf8')).toBe('not a list');

    const done = await runCli(['profile', 'recover', '--yes'], { env });
    const aside = /aside as (\S+\.json) /.exec(done.stderr)?.[1];
    expect(aside).toBe(path.join(dataDir, path.basename(aside ?? '')));
    expect(path.basename(aside!)).toMatch(/^profiles\.damaged-[\dT-]+Z\.json$/);
    expect(done).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        `Set the damaged list of organisations aside as ${aside} (nothing was deleted) and listed 1 organisation again from its offline copy:\n` +
        line +
        untied,
    });
    expect(readFileSync(aside!, 'utf8')).toBe('not a list');
    expect(readFileSync(path.join(caches, 'stray.sqlite'), 'utf8')).toBe('not a copy');

    // The organisation is back as it was: the key from the keychain sends the kept edit.
    const sync = await runCli(['sync'], { env });
    expect(sync.code).toBe(0);
    expect(sandbox.state.suppliers.find((s) => s.id === supplierId)?.name).toBe('Recovered Offline KG');
    // A list that reads has nothing to recover.
    expect(await runCli(['profile', 'recover', '--yes'], { env })).toMatchObject({
      code: 1,
      stderr: `satchel: The list of organisations (${listFile}) can be read; there is nothing to recover.\n`,
    });
  }, 90_000);

  it('gives the plan, then what it did, as JSON on stdout with --json, the words on stderr', async () => {
    const { dataDir, core, profile, sandbox } = await connect('Json GmbH', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    core.outbox.updateSupplier(profile.id, sandbox.state.suppliers[0]!.id, { name: 'Kept KG' });
    await core.close();
    const listFile = path.join(dataDir, 'profiles.json');
    writeFileSync(listFile, '{"profiles": [');
    const caches = path.join(dataDir, 'caches');
    writeFileSync(path.join(caches, 'stray.sqlite'), 'not a copy');
    const env = { SATCHEL_DATA_DIR: dataDir };
    const organisation = {
      id: profile.id,
      name: 'Json GmbH',
      baseUrl: sandbox.url,
      file: `${profile.id}.sqlite`,
      keyFound: true,
      edits: 1,
      marks: 0,
    };

    // Without --yes it never asks, whatever stdin is: the plan, nothing changed, exit 0.
    const asked = await runCli(['profile', 'recover', '--json'], { env, stdin: 'y\n' });
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout)).toEqual({
      recovered: false,
      setAside: null,
      listFile,
      cachesFolder: caches,
      organisations: [expect.objectContaining(organisation)],
      untied: ['stray.sqlite'],
      keychainProblem: null,
    });
    expect(asked.stderr).toMatch(/^The damaged list .+ will be renamed beside itself/);
    expect(asked.stderr).toMatch(/\nNothing was changed\. Run "satchel profile recover --yes" to do it\.\n$/);
    expect(readFileSync(listFile, 'utf8')).toBe('{"profiles": [');

    const done = await runCli(['profile', 'recover', '--yes', '--json'], { env });
    expect(done.code).toBe(0);
    const result = JSON.parse(done.stdout) as { setAside: string };
    expect(result).toEqual({
      recovered: true,
      setAside: expect.stringMatching(/profiles\.damaged-[\dT-]+Z\.json$/),
      listFile,
      cachesFolder: caches,
      organisations: [expect.objectContaining(organisation)],
      untied: ['stray.sqlite'],
      keychainProblem: null,
    });
    expect(path.dirname(result.setAside)).toBe(dataDir);
    expect(readFileSync(result.setAside, 'utf8')).toBe('{"profiles": [');
    expect(done.stderr).toMatch(/^Set the damaged list of organisations aside as /);
    const listed = await runCli(['profile', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: profile.id, name: 'Json GmbH' }]);

    // Nothing to recover: the same failure as without --json, and nothing on stdout.
    expect(await runCli(['profile', 'recover', '--json'], { env })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `satchel: The list of organisations (${listFile}) can be read; there is nothing to recover.\n`,
    });
  }, 90_000);
});
