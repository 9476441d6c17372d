import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  COST_CARRIER_DIMENSION_ID,
  COST_CENTER_DIMENSION_ID,
  Dimension,
  DimensionItem,
  DimensionItemPage,
  DimensionPage,
} from '../../../src-shared/api';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
beforeAll(async () => {
  api = await startApi({ writeLimit: 1000 }); // writes are many here; limits are tested elsewhere
});
afterAll(() => api.sandbox.stop());

const items = (dimensionId: string) => `/v1/dimensions/${dimensionId}/items`;

describe('dimensions and items', () => {
  test('list includes deleted dimensions', async () => {
    const page = DimensionPage.parse((await api.call('GET', '/v1/dimensions')).body);
    expect(page.data.some((d) => d.status === 'DELETED' && d.deleteTime !== null)).toBe(true);
  });

  test('cost center and cost carrier are dimensions with fixed ids', async () => {
    const center = Dimension.parse(
      (await api.call('GET', `/v1/dimensions/${COST_CENTER_DIMENSION_ID}`)).body,
    );
    const carrier = Dimension.parse(
      (await api.call('GET', `/v1/dimensions/${COST_CARRIER_DIMENSION_ID}`)).body,
    );
    expect(center.name).toBe('Cost center');
    expect(carrier.name).toBe('Cost carrier');
  });

  test('items of a dimension are listed, deleted included', async () => {
    const deleted = api.sandbox.state.dimensions.find((d) => d.status === 'DELETED')!;
    const page = DimensionItemPage.parse((await api.call('GET', items(deleted.id))).body);
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((i) => i.dimensionId === deleted.id && i.status === 'DELETED')).toBe(true);
  });

  test('get item by id', async () => {
    const item = api.sandbox.state.items[0]!;
    expect(
      DimensionItem.parse((await api.call('GET', `${items(item.dimensionId)}/${item.id}`)).body).id,
    ).toBe(item.id);
  });

  test('create dimension: 201 with status ACTIVE by default', async () => {
    const response = await api.call('POST', '/v1/dimensions', { body: { name: 'Vehicle', code: 'VEH' } });
    expect(response.status).toBe(201);
    expect(Dimension.parse(response.body).status).toBe('ACTIVE');
  });

  test('create item: 201 with status ACTIVE by default', async () => {
    const response = await api.call('POST', items(COST_CENTER_DIMENSION_ID), {
      body: { name: '9100 New team', code: 'KOST1-NEW' },
    });
    expect(response.status).toBe(201);
    expect(DimensionItem.parse(response.body)).toMatchObject({
      status: 'ACTIVE',
      dimensionId: COST_CENTER_DIMENSION_ID,
    });
  });

  test('create without name is NAME_REQUIRED', async () => {
    expect(
      firstError((await api.call('POST', '/v1/dimensions', { body: { code: 'NN' } })).body),
    ).toMatchObject({ code: 'NAME_REQUIRED', field: 'name' });
  });

  test('create without code is CODE_REQUIRED', async () => {
    expect(
      firstError((await api.call('POST', items(COST_CENTER_DIMENSION_ID), { body: { name: 'x' } })).body),
    ).toMatchObject({ code: 'CODE_REQUIRED', field: 'code' });
  });

  test('name over 200 characters is NAME_TOO_LONG', async () => {
    expect(
      firstError(
        (await api.call('POST', '/v1/dimensions', { body: { name: 'n'.repeat(201), code: 'LONG' } })).body,
      ).code,
    ).toBe('NAME_TOO_LONG');
  });

  test('duplicate code is DUPLICATE_CODE', async () => {
    expect(
      firstError((await api.call('POST', '/v1/dimensions', { body: { name: 'Again', code: 'PROJ' } })).body),
    ).toMatchObject({ code: 'DUPLICATE_CODE', field: 'code' });
    const existing = api.sandbox.state.items.find((i) => i.dimensionId === COST_CENTER_DIMENSION_ID)!;
    expect(
      firstError(
        (
          await api.call('POST', items(COST_CENTER_DIMENSION_ID), {
            body: { name: 'Again', code: existing.code },
          })
        ).body,
      ).code,
    ).toBe('DUPLICATE_CODE');
  });

  test('invalid status is INVALID_STATUS', async () => {
    expect(
      firstError(
        (await api.call('POST', '/v1/dimensions', { body: { name: 'S', code: 'S1', status: 'ARCHIVED' } }))
          .body,
      ),
    ).toMatchObject({ code: 'INVALID_STATUS', field: 'status' });
  });

  test('unknown member is UNKNOWN_FIELD', async () => {
    expect(
      firstError(
        (await api.call('POST', '/v1/dimensions', { body: { name: 'S', code: 'S2', colour: 'red' } })).body,
      ),
    ).toMatchObject({ code: 'UNKNOWN_FIELD', field: 'colour' });
  });

  test('empty update is EMPTY_UPDATE', async () => {
    const project = api.sandbox.state.dimensions[2]!;
    expect(
      firstError((await api.call('PATCH', `/v1/dimensions/${project.id}`, { body: {} })).body).code,
    ).toBe('EMPTY_UPDATE');
  });

  test('system dimensions cannot be renamed: SYSTEM_DIMENSION_READ_ONLY', async () => {
    expect(
      firstError(
        (
          await api.call('PATCH', `/v1/dimensions/${COST_CENTER_DIMENSION_ID}`, {
            body: { name: 'Kostenstelle' },
          })
        ).body,
      ).code,
    ).toBe('SYSTEM_DIMENSION_READ_ONLY');
  });

  test('items cannot be added to a deleted dimension: DIMENSION_DELETED naming status', async () => {
    const deleted = api.sandbox.state.dimensions.find((d) => d.status === 'DELETED')!;
    const response = await api.call('POST', items(deleted.id), { body: { name: 'x', code: 'X' } });
    expect(response.status).toBe(400);
    expect(firstError(response.body)).toMatchObject({ code: 'DIMENSION_DELETED', field: 'status' });
  });

  test('unknown dimension is 404 DIMENSION_NOT_FOUND; unknown item 404 DIMENSION_ITEM_NOT_FOUND', async () => {
    const unknown = '11111111-2222-4333-8444-555555555555';
    const a = await api.call('PATCH', `/v1/dimensions/${unknown}`, { body: { name: 'x' } });
    expect(a.status).toBe(404);
    expect(firstError(a.body).code).toBe('DIMENSION_NOT_FOUND');
    const b = await api.call('PATCH', `${items(COST_CENTER_DIMENSION_ID)}/${unknown}`, {
      body: { name: 'x' },
    });
    expect(b.status).toBe(404);
    expect(firstError(b.body).code).toBe('DIMENSION_ITEM_NOT_FOUND');
  });

  test('PATCH updates a dimension and deleting sets deleteTime', async () => {
    const project = api.sandbox.state.dimensions[2]!;
    const renamed = Dimension.parse(
      (await api.call('PATCH', `/v1/dimensions/${project.id}`, { body: { name: 'Projects' } })).body,
    );
    expect(renamed.name).toBe('Projects');
    const deleted = Dimension.parse(
      (await api.call('PATCH', `/v1/dimensions/${project.id}`, { body: { status: 'DELETED' } })).body,
    );
    expect(deleted.deleteTime).not.toBeNull();
  });

  test('deleting a dimension deletes its items with it; restoring it leaves them deleted', async () => {
    const created = Dimension.parse(
      (await api.call('POST', '/v1/dimensions', { body: { name: 'Cascade', code: 'CASCADE' } })).body,
    );
    const made = [];
    for (const [code, status] of [
      ['C1', 'ACTIVE'],
      ['C2', 'INACTIVE'],
      ['C3', 'DELETED'],
    ] as const)
      made.push(
        DimensionItem.parse(
          (await api.call('POST', items(created.id), { body: { name: `Item ${code}`, code, status } })).body,
        ),
      );
    const deleted = Dimension.parse(
      (await api.call('PATCH', `/v1/dimensions/${created.id}`, { body: { status: 'DELETED' } })).body,
    );
    const listed = DimensionItemPage.parse((await api.call('GET', items(created.id))).body).data;
    expect(listed.map((i) => [i.code, i.status])).toEqual([
      ['C1', 'DELETED'],
      ['C2', 'DELETED'],
      ['C3', 'DELETED'],
    ]);
    // Deleted with the dimension: its deleteTime, and a new updateTime a re-read sees. The one
    // deleted before keeps its own.
    for (const item of listed.slice(0, 2))
      expect(item).toMatchObject({ deleteTime: deleted.deleteTime, updateTime: deleted.updateTime });
    expect(listed[2]).toMatchObject({ deleteTime: made[2]!.deleteTime, updateTime: made[2]!.updateTime });

    await api.call('PATCH', `/v1/dimensions/${created.id}`, { body: { status: 'ACTIVE' } });
    const after = DimensionItemPage.parse((await api.call('GET', items(created.id))).body).data;
    expect(after.map((i) => i.status)).toEqual(['DELETED', 'DELETED', 'DELETED']);
    const revived = await api.call('PATCH', `${items(created.id)}/${made[0]!.id}`, {
      body: { status: 'ACTIVE' },
    });
    expect(revived.status).toBe(200);
  });

  test('PATCH to a taken code is DUPLICATE_CODE; item codes are unique within their dimension only', async () => {
    const [first, second] = api.sandbox.state.dimensions.filter(
      (d) => d.status !== 'DELETED' && !/^0{8}/.test(d.id),
    );
    const clash = await api.call('PATCH', `/v1/dimensions/${second!.id}`, { body: { code: first!.code } });
    expect(firstError(clash.body)).toMatchObject({ code: 'DUPLICATE_CODE', field: 'code' });
    expect(
      (await api.call('PATCH', `/v1/dimensions/${first!.id}`, { body: { code: first!.code } })).status,
    ).toBe(200);
    const [a, b] = api.sandbox.state.items.filter((i) => i.dimensionId === COST_CENTER_DIMENSION_ID);
    const itemClash = await api.call('PATCH', `${items(COST_CENTER_DIMENSION_ID)}/${b!.id}`, {
      body: { code: a!.code },
    });
    expect(firstError(itemClash.body)).toMatchObject({ code: 'DUPLICATE_CODE', field: 'code' });
    const elsewhere = await api.call('POST', items(COST_CARRIER_DIMENSION_ID), {
      body: { name: 'Same code, other dimension', code: a!.code },
    });
    expect(elsewhere.status).toBe(201);
  });

  test('restoring a deleted dimension clears deleteTime; its items stay deleted while it is', async () => {
    const created = Dimension.parse(
      (await api.call('POST', '/v1/dimensions', { body: { name: 'Temp', code: 'TEMP-R' } })).body,
    );
    const item = DimensionItem.parse(
      (await api.call('POST', items(created.id), { body: { name: 'Temp item', code: 'TI' } })).body,
    );
    const deleted = Dimension.parse(
      (await api.call('PATCH', `/v1/dimensions/${created.id}`, { body: { status: 'DELETED' } })).body,
    );
    expect(deleted.deleteTime).not.toBeNull();
    await api.call('PATCH', `${items(created.id)}/${item.id}`, { body: { status: 'DELETED' } });
    const revive = await api.call('PATCH', `${items(created.id)}/${item.id}`, { body: { status: 'ACTIVE' } });
    expect(firstError(revive.body)).toMatchObject({ code: 'DIMENSION_DELETED', field: 'status' });
    const renamed = await api.call('PATCH', `${items(created.id)}/${item.id}`, { body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    const restored = Dimension.parse(
      (await api.call('PATCH', `/v1/dimensions/${created.id}`, { body: { status: 'ACTIVE' } })).body,
    );
    expect(restored).toMatchObject({ status: 'ACTIVE', deleteTime: null });
  });

  test('code over 50 characters is CODE_TOO_LONG; externalUserId alone is no change (EMPTY_UPDATE)', async () => {
    const long = await api.call('POST', '/v1/dimensions', { body: { name: 'L', code: 'c'.repeat(51) } });
    expect(firstError(long.body)).toMatchObject({ code: 'CODE_TOO_LONG', field: 'code' });
    const project = api.sandbox.state.dimensions[2]!;
    const who = await api.call('PATCH', `/v1/dimensions/${project.id}`, { body: { externalUserId: 'u-1' } });
    expect(firstError(who.body).code).toBe('EMPTY_UPDATE');
  });

  test('PATCH updates an item', async () => {
    const item = api.sandbox.state.items.find((i) => i.dimensionId === COST_CARRIER_DIMENSION_ID)!;
    const updated = DimensionItem.parse(
      (
        await api.call('PATCH', `${items(COST_CARRIER_DIMENSION_ID)}/${item.id}`, {
          body: { status: 'INACTIVE', code: 'KOST2-X' },
        })
      ).body,
    );
    expect(updated).toMatchObject({ status: 'INACTIVE', code: 'KOST2-X' });
  });

  test('retired PUT on a dimension is 410 Gone', async () => {
    const response = await api.call('PUT', `/v1/dimensions/${COST_CENTER_DIMENSION_ID}`, {
      body: { name: 'x' },
    });
    expect(response.status).toBe(410);
    expect(firstError(response.body).code).toBe('GONE');
  });

  test('retired PUT on a dimension item is 410 Gone', async () => {
    const item = api.sandbox.state.items[0]!;
    expect((await api.call('PUT', `${items(item.dimensionId)}/${item.id}`, { body: {} })).status).toBe(410);
  });
});
