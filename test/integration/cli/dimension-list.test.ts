import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { useCliProfiles } from '../../helpers/cli-profile';
import { colleagueApi, sandboxToken } from '../../helpers/sandbox-token';
import { useTempDirs } from '../../helpers/temp-dir';

// `satchel dimension list` marks a record with a waiting edit by the state of that edit, in the
// words of `satchel edits list`: a conflict, a refusal or an edit that may have been sent is
// not "waiting".

const tempDir = useTempDirs();
const connect = useCliProfiles(tempDir);

/** A process id that no process has (above Linux's largest): a push killed mid-request. */
const GONE = 2 ** 22 + 17;

describe('satchel dimension list', () => {
  it('says the state of each record’s waiting edit as the edits list does', async () => {
    const { sandbox, dataDir, core, profile } = await connect('Dimensions', { transactions: 20 });
    expect((await core.sync.sync(profile.id)).outcome).toBe('succeeded');
    const byCode = (code: string) => sandbox.state.dimensions.find((d) => d.code === code)!;
    const [project, region] = [byCode('PROJ'), byCode('REG')];
    const api = colleagueApi(sandbox, await sandboxToken(sandbox, 'read write'));

    // A colleague renames the project dimension and takes a code after the sync: the push
    // meets a conflict and a refusal.
    core.outbox.updateDimension(profile.id, project.id, { name: 'Projects (mine)' });
    core.outbox.createDimension(profile.id, { name: 'Mine too', code: 'TAKEN' });
    expect(await api('PATCH', `/v1/dimensions/${project.id}`, { name: 'Projects (theirs)' })).toBe(200);
    expect(await api('POST', '/v1/dimensions', { name: 'Theirs', code: 'TAKEN' })).toBeLessThan(300);
    expect(await core.outbox.push(profile.id)).toMatchObject({ sent: 0, failed: 1, conflicts: 1 });

    // Then one update and one create left on their way by a push whose process is gone, and
    // one of each that simply waits.
    const interrupted = [
      core.outbox.updateDimension(profile.id, region.id, { name: 'Regions' }),
      core.outbox.createDimension(profile.id, { name: 'Half sent', code: 'HALF' }),
    ];
    core.outbox.createDimension(profile.id, { name: 'Waiting', code: 'WAIT' });
    const item = core.outbox.createDimensionItem(profile.id, project.id, { name: 'Audit', code: 'AUD' });
    const claim = JSON.stringify({ id: `claim-of-${GONE}`, pid: GONE, host: hostname() });
    for (const edit of interrupted)
      core
        .cacheOf(profile.id)
        .sqlite.prepare(
          `UPDATE outbox SET status = 'sending', attempts = attempts + 1, sent_at = ?, claimed_by = ? WHERE operation_id = ?`,
        )
        .run(new Date().toISOString(), claim, edit.operationId);
    const edits = core.outbox.list(profile.id);
    await core.close();
    const env = { SATCHEL_DATA_DIR: dataDir };

    const listed = await runCli(['dimension', 'list'], { env });
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const status = (code: string) =>
      listed.stdout
        .split('\n')
        .find((line) => line.split(/\s{2,}/)[1] === code)
        ?.split(/\s{2,}/)[3];
    expect(status('PROJ')).toBe('ACTIVE; edit conflict');
    expect(status('TAKEN')).toBe('ACTIVE; edit failed');
    expect(status('REG')).toBe('INACTIVE; edit interrupted (maybe sent; checked before sending again)');
    expect(status('HALF')).toBe(
      'ACTIVE; edit interrupted (maybe sent; looked up before sending again; sync to find out)',
    );
    expect(status('WAIT')).toBe('ACTIVE; edit pending');
    expect(status('KOST1')).toBe('ACTIVE');

    const items = await runCli(['dimension', 'list', '--items', project.id], { env });
    expect(items.code).toBe(0);
    expect(items.stdout).toMatch(new RegExp(`${item.recordId} +AUD +Audit +ACTIVE; edit pending\\n`));

    // In JSON the same state is `edit`, with the operation id "edits resolve|retry" takes;
    // `editPending` stays as it was.
    const json = await runCli(['dimension', 'list', '--json'], { env });
    expect(json).toMatchObject({ code: 0, stderr: '' });
    type Listed = {
      code: string;
      editPending: boolean;
      edit: { operationId: string; status: string } | null;
    };
    const rows = (JSON.parse(json.stdout) as { dimensions: Listed[] }).dimensions;
    const row = (code: string) => rows.find((listed) => listed.code === code);
    const operationOf = (status: string) => edits.find((edit) => edit.status === status)?.operationId;
    expect(row('PROJ')).toMatchObject({
      editPending: true,
      edit: { operationId: operationOf('conflict'), operation: 'update', status: 'conflict' },
    });
    expect(row('TAKEN')).toMatchObject({
      editPending: true,
      edit: { operation: 'create', status: 'failed' },
    });
    expect(row('REG')).toMatchObject({
      editPending: true,
      edit: { operationId: interrupted[0]!.operationId, operation: 'update', status: 'interrupted' },
    });
    expect(row('HALF')?.edit).toMatchObject({ operation: 'create', status: 'interrupted' });
    expect(row('WAIT')?.edit).toMatchObject({ operation: 'create', status: 'pending' });
    expect(row('KOST1')).toMatchObject({ editPending: false, edit: null });
    const itemsJson = await runCli(['dimension', 'list', '--items', project.id, '--json'], { env });
    expect(JSON.parse(itemsJson.stdout)).toMatchObject({
      items: expect.arrayContaining([
        expect.objectContaining({
          id: item.recordId,
          editPending: true,
          edit: { operationId: item.operationId, operation: 'create', status: 'pending' },
        }),
      ]),
    });
  });
});
