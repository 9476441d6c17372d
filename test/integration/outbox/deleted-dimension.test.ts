import { afterEach, describe, expect, it } from 'vitest';
import { COST_CENTER_DIMENSION_ID } from '../../../src-shared/api';
import { AppError } from '../../../src-shared/errors';
import { useTempDirs } from '../../helpers/temp-dir';
import { row, syncedOutbox, type OutboxSetup } from './fixture';

// Deleting dimensions, against the real sandbox over HTTP and a real SQLite cache: what the API
// refuses is refused here before it is queued, and item edits made offline in a dimension a
// colleague deleted meanwhile come back refused, with the dimension shown deleted at once.
const tempDir = useTempDirs();
const setups: OutboxSetup[] = [];
afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.close();
});

describe('deleted dimensions', () => {
  it('deletes an ordinary dimension, and refuses a system one before queueing as the API does', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const project = sandbox.state.dimensions.find((d) => d.name === 'Project')!;

    // The API: only cost center and cost carrier cannot be deleted.
    const system = await setup.api('PATCH', `/v1/dimensions/${COST_CENTER_DIMENSION_ID}`, {
      status: 'DELETED',
    });
    expect(system.status).toBe(400);
    expect(system.body.errors[0].code).toBe('SYSTEM_DIMENSION_READ_ONLY');
    // The app says so on the field before anything is queued.
    let refusal: unknown;
    try {
      outbox.updateDimension(profileId, COST_CENTER_DIMENSION_ID, { status: 'DELETED' });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'VALIDATION_ERROR', field: 'status' });
    expect(outbox.list(profileId)).toEqual([]);

    outbox.updateDimension(profileId, project.id, { status: 'DELETED' });
    expect(await outbox.push(profileId)).toEqual({ sent: 1, failed: 0, conflicts: 0, remaining: 0 });
    expect(sandbox.state.dimensions.find((d) => d.id === project.id)).toMatchObject({ status: 'DELETED' });
  });

  it('shows item edits refused when a colleague deleted their dimension, and the dimension deleted', async () => {
    const setup = await syncedOutbox(tempDir(), setups);
    const { outbox, profileId, sandbox } = setup;
    const project = sandbox.state.dimensions.find((d) => d.name === 'Project')!;
    const items = sandbox.state.items.filter((i) => i.dimensionId === project.id);
    const [retired, gone, active] = items.filter((i) => i.status === 'ACTIVE');
    // Two items were deleted on the server before the last sync.
    for (const item of [retired!, gone!])
      expect(
        (await setup.api('PATCH', `/v1/dimensions/${project.id}/items/${item.id}`, { status: 'DELETED' }))
          .status,
      ).toBe(200);
    await setup.sync();
    const created = outbox.createDimensionItem(profileId, project.id, {
      name: 'Trade fair Paris',
      code: 'PROJ-NEW',
    });
    const revived = retired!;
    outbox.updateDimensionItem(profileId, project.id, revived.id, { status: 'ACTIVE' });
    outbox.updateDimensionItem(profileId, project.id, gone!.id, { name: 'Website relaunch 2' });
    const renamed = outbox.updateDimensionItem(profileId, project.id, active!.id, { name: 'Renamed' });
    // A colleague deletes the dimension before the push, and its items with it.
    expect((await setup.api('PATCH', `/v1/dimensions/${project.id}`, { status: 'DELETED' })).status).toBe(
      200,
    );

    expect(await outbox.push(profileId)).toEqual({ sent: 1, failed: 2, conflicts: 1, remaining: 0 });
    // The item that was still active went with the dimension: a newer server version (deleted)
    // than the one renamed here, so a conflict for the user rather than a rename sent unseen.
    expect(outbox.list(profileId).find((item) => item.operationId === renamed.operationId)).toMatchObject({
      status: 'conflict',
      server: { status: 'DELETED' },
    });
    outbox.discard(profileId, renamed.operationId);
    // The new item and the revived one are refused, with the server's reason on their status;
    // the rename of an item is not a change of its status, and the server takes it.
    expect(outbox.list(profileId).map((item) => [item.recordId, item.status, item.error])).toEqual([
      [
        created.recordId,
        'failed',
        {
          code: 'REMOTE_REJECTED',
          message: 'Project is deleted; items cannot be added.',
          field: 'status',
          remoteCode: 'DIMENSION_DELETED',
        },
      ],
      [
        revived.id,
        'failed',
        {
          code: 'REMOTE_REJECTED',
          message: 'Project is deleted; its items stay deleted.',
          field: 'status',
          remoteCode: 'DIMENSION_DELETED',
        },
      ],
    ]);
    expect(sandbox.state.items.find((i) => i.id === gone!.id)?.name).toBe('Website relaunch 2');
    // The dimension shows deleted at once, as the refusals say, not at the next sync.
    expect(row(setup.cache, 'dimensions', project.id)).toMatchObject({
      status: 'DELETED',
      local_edit_pending: 0,
    });
    // So a retry of either is checked against it and refused on its field, as a new edit would
    // be: sending them again could only be refused again. Both stay failed with the server's
    // reason, and nothing goes to the server.
    const requestsBefore = sandbox.control!.requests().length;
    const [createdEdit, revivedEdit] = outbox.list(profileId);
    const refusalOf = (operationId: string) => {
      try {
        outbox.retry(profileId, operationId);
      } catch (error) {
        return error;
      }
      return null;
    };
    expect(refusalOf(createdEdit!.operationId)).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The dimension is deleted; items cannot be added to it.',
      field: 'dimensionId',
    });
    expect(refusalOf(revivedEdit!.operationId)).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The dimension is deleted; its items stay deleted.',
      field: 'status',
    });
    expect(outbox.list(profileId).map((item) => [item.status, item.error?.message])).toEqual([
      ['failed', 'Project is deleted; items cannot be added.'],
      ['failed', 'Project is deleted; its items stay deleted.'],
    ]);
    expect(await outbox.push(profileId)).toEqual({ sent: 0, failed: 0, conflicts: 0, remaining: 0 });
    expect(sandbox.control!.requests().length).toBe(requestsBefore);
    // A change of the refused create is checked against it too, and refused before it is queued.
    expect(() =>
      outbox.edit(profileId, outbox.list(profileId)[0]!.operationId, { name: 'Paris', code: 'P' }),
    ).toThrow('The dimension is deleted; items cannot be added to it.');
    // Discarding them leaves the cache as the server has it.
    for (const item of outbox.list(profileId)) outbox.discard(profileId, item.operationId);
    expect(row(setup.cache, 'dimension_items', created.recordId)).toBeUndefined();
    expect(row(setup.cache, 'dimension_items', revived.id)).toMatchObject({
      status: 'DELETED',
      local_edit_pending: 0,
    });
  });
});
