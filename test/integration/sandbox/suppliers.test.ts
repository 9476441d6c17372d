import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Supplier, SupplierPage } from '../../../src-shared/api';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
let clock = Date.parse('2026-11-01T10:00:00Z');
beforeAll(async () => {
  api = await startApi({ now: () => clock, control: true, writeLimit: 1000 });
});
afterAll(() => api.sandbox.stop());

describe('suppliers', () => {
  test('there are hundreds of suppliers, paged with page and page_size', async () => {
    const body = SupplierPage.parse((await api.call('GET', '/v1/suppliers?page=2&page_size=50')).body);
    expect(body.meta.pagination).toMatchObject({
      page: 2,
      pageSize: 50,
      totalItems: 300,
      totalPages: 6,
      hasMore: true,
    });
    expect(body.data).toHaveLength(50);
  });

  test('page_size over 100 is 400 naming page_size', async () => {
    const response = await api.call('GET', '/v1/suppliers?page_size=500');
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('page_size');
  });

  test('responses have id, name, number and the deprecated supplierId, supplierName, supplierNumber', async () => {
    const [supplier] = SupplierPage.parse((await api.call('GET', '/v1/suppliers?page_size=1')).body).data;
    expect(supplier!.supplierId).toBe(supplier!.id);
    expect(supplier!.supplierName).toBe(supplier!.name);
    expect(supplier!.supplierNumber).toBe(supplier!.number);
  });

  test('get by id', async () => {
    const known = api.sandbox.state.suppliers[5]!;
    const supplier = Supplier.parse((await api.call('GET', `/v1/suppliers/${known.id}`)).body);
    expect(supplier.name).toBe(known.name);
  });

  test('create_date__gte and create_date__lte bound createTime inclusively', async () => {
    const body = SupplierPage.parse(
      (
        await api.call(
          'GET',
          '/v1/suppliers?create_date__gte=2025-01-01&create_date__lte=2025-06-30&page_size=100',
        )
      ).body,
    );
    expect(body.meta.pagination.totalItems).toBeGreaterThan(0);
    expect(body.data.every((s) => s.createTime >= '2025-01-01' && s.createTime < '2025-07-01')).toBe(true);
  });

  test('update_time__gte returns only suppliers changed since, ordered by updateTime', async () => {
    const body = SupplierPage.parse(
      (await api.call('GET', '/v1/suppliers?update_time__gte=2026-06-01T00:00:00Z&page_size=100')).body,
    );
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((s) => s.updateTime >= '2026-06-01T00:00:00Z')).toBe(true);
    expect(body.data.map((s) => s.updateTime)).toEqual([...body.data.map((s) => s.updateTime)].sort());
  });

  test('update_time__lte bounds from above', async () => {
    const body = SupplierPage.parse(
      (await api.call('GET', '/v1/suppliers?update_time__lte=2024-06-01T00:00:00Z&page_size=100')).body,
    );
    expect(body.data.every((s) => s.updateTime <= '2024-06-01T00:00:00Z')).toBe(true);
  });

  test('a malformed temporal filter is 400 naming it', async () => {
    const response = await api.call('GET', '/v1/suppliers?update_time__gte=yesterday');
    expect(response.status).toBe(400);
    expect(firstError(response.body).field).toBe('update_time__gte');
  });

  test('a lower temporal bound after its upper one is 400 naming the lower; equal bounds are a range', async () => {
    for (const [query, field] of [
      ['update_time__gte=2026-06-02&update_time__lte=2026-06-01', 'update_time__gte'],
      ['create_date__gte=2025-06-30T00:00:01Z&create_date__lte=2025-06-30T00:00:00Z', 'create_date__gte'],
      ['create_date__gte=2025-07-01T00:00:00Z&create_date__lte=2025-06-30', 'create_date__gte'],
    ] as const) {
      const response = await api.call('GET', `/v1/suppliers?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.errors, query).toEqual([
        { code: 'VALIDATION_ERROR', message: `${field} is after ${field.replace('gte', 'lte')}.`, field },
      ]);
    }
    for (const query of [
      'update_time__gte=2026-06-01&update_time__lte=2026-06-01',
      'create_date__gte=2025-06-30T23:59:59.5Z&create_date__lte=2025-06-30',
      'update_time__gte=2026-06-01T00:00:00%2B02:00&update_time__lte=2026-05-31T22:00:00Z',
    ]) {
      expect((await api.call('GET', `/v1/suppliers?${query}`)).status, query).toBe(200);
    }
    const expenses = await api.call(
      'GET',
      '/v1/expenses?update_time__gte=2026-10-30&update_time__lte=2026-10-01',
    );
    expect(firstError(expenses.body)).toMatchObject({ code: 'VALIDATION_ERROR', field: 'update_time__gte' });
  });

  test('a malformed or impossible temporal bound says what the filter takes', async () => {
    for (const query of [
      'update_time__gte=yesterday',
      'update_time__lte=2026-03-31T09:30:00',
      'create_date__gte=2026-02-30',
      'create_date__lte=2026-03-31T24:00:00Z',
    ]) {
      const response = await api.call('GET', `/v1/suppliers?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.errors, query).toEqual([
        {
          code: 'VALIDATION_ERROR',
          message: 'Use a date like 2026-03-31 or a timestamp with offset like 2026-03-31T09:30:00Z.',
          field: query.split('=')[0],
        },
      ]);
    }
  });

  test('create: 201, status defaults to ACTIVE, code becomes number', async () => {
    const response = await api.call('POST', '/v1/suppliers', {
      body: { name: 'Neu Lieferant GmbH', code: 'N-1001' },
    });
    expect(response.status).toBe(201);
    const supplier = Supplier.parse(response.body);
    expect(supplier.status).toBe('ACTIVE');
    expect(supplier.number).toBe('N-1001');
    expect(supplier.supplierNumber).toBe('N-1001');
    expect((await api.call('GET', `/v1/suppliers/${supplier.id}`)).body.name).toBe('Neu Lieferant GmbH');
  });

  test('create without code is 400 naming code when numbers are kept by hand', async () => {
    const response = await api.call('POST', '/v1/suppliers', { body: { name: 'No Code Ltd' } });
    expect(response.status).toBe(400);
    expect(firstError(response.body)).toMatchObject({ code: 'CODE_REQUIRED', field: 'code' });
  });

  test('create with a duplicate code is 400 naming code', async () => {
    const taken = api.sandbox.state.suppliers[0]!.number;
    const response = await api.call('POST', '/v1/suppliers', { body: { name: 'Copy AG', code: taken } });
    expect(response.status).toBe(400);
    expect(firstError(response.body)).toMatchObject({ code: 'DUPLICATE_CODE', field: 'code' });
  });

  test('create with a blank name is 400 naming name', async () => {
    const response = await api.call('POST', '/v1/suppliers', { body: { name: '  ', code: 'B-1' } });
    expect(firstError(response.body)).toMatchObject({ code: 'NAME_REQUIRED', field: 'name' });
  });

  test('when the ERP generates numbers, code is omitted and the name stands as temporary number', async () => {
    api.sandbox.control!.setErpSupplierNumbers(true);
    try {
      const created = Supplier.parse(
        (await api.call('POST', '/v1/suppliers', { body: { name: 'ERP Numbered GmbH' } })).body,
      );
      expect(created.number).toBe('ERP Numbered GmbH');
      expect(created.status).toBe('ACTIVE');
      const withCode = await api.call('POST', '/v1/suppliers', {
        body: { name: 'ERP Coded GmbH', code: 'X-1' },
      });
      expect(withCode.status).toBe(400);
      expect(firstError(withCode.body)).toMatchObject({ code: 'CODE_NOT_ALLOWED', field: 'code' });
    } finally {
      api.sandbox.control!.setErpSupplierNumbers(false);
    }
  });

  test('the temporary number stays what the name was at creation: a rename keeps it until the ERP numbers it', async () => {
    api.sandbox.control!.setErpSupplierNumbers(true);
    try {
      const created = Supplier.parse(
        (await api.call('POST', '/v1/suppliers', { body: { name: 'ERP Renamed GmbH' } })).body,
      );
      const renamed = Supplier.parse(
        (await api.call('PATCH', `/v1/suppliers/${created.id}`, { body: { name: 'ERP Renamed AG' } })).body,
      );
      expect(renamed).toMatchObject({
        name: 'ERP Renamed AG',
        number: 'ERP Renamed GmbH',
        supplierNumber: 'ERP Renamed GmbH',
      });
      // The ERP's own number replaces the temporary one (here: the control surface stands for it).
      api.sandbox.control!.updateSupplier(created.id, { number: 'ERP-1001' });
      const numbered = Supplier.parse((await api.call('GET', `/v1/suppliers/${created.id}`)).body);
      expect(numbered).toMatchObject({ name: 'ERP Renamed AG', number: 'ERP-1001' });
    } finally {
      api.sandbox.control!.setErpSupplierNumbers(false);
    }
  });

  test('PATCH changes the given fields and updateTime', async () => {
    const target = api.sandbox.state.suppliers[10]!;
    const before = target.updateTime;
    clock += 60_000;
    const response = await api.call('PATCH', `/v1/suppliers/${target.id}`, {
      body: { name: 'Renamed Supplier SE', status: 'DEACTIVATED' },
    });
    expect(response.status).toBe(200);
    const updated = Supplier.parse(response.body);
    expect(updated).toMatchObject({
      name: 'Renamed Supplier SE',
      supplierName: 'Renamed Supplier SE',
      status: 'DEACTIVATED',
      number: target.number,
    });
    expect(updated.updateTime > before).toBe(true);
  });

  test('PATCH code renumbers, keeping the deprecated supplierNumber in step; its own code is no duplicate', async () => {
    const target = api.sandbox.state.suppliers[20]!;
    const renumbered = Supplier.parse(
      (await api.call('PATCH', `/v1/suppliers/${target.id}`, { body: { code: 'R-2020' } })).body,
    );
    expect(renumbered).toMatchObject({ number: 'R-2020', supplierNumber: 'R-2020', supplierId: target.id });
    const again = await api.call('PATCH', `/v1/suppliers/${target.id}`, { body: { code: 'R-2020' } });
    expect(again.status).toBe(200);
  });

  test('PATCH with code is CODE_NOT_ALLOWED while the ERP numbers suppliers', async () => {
    api.sandbox.control!.setErpSupplierNumbers(true);
    try {
      const target = api.sandbox.state.suppliers[21]!;
      const response = await api.call('PATCH', `/v1/suppliers/${target.id}`, { body: { code: 'R-2121' } });
      expect(response.status).toBe(400);
      expect(firstError(response.body)).toMatchObject({ code: 'CODE_NOT_ALLOWED', field: 'code' });
      expect(api.sandbox.state.suppliers[21]!.number).toBe(target.number);
    } finally {
      api.sandbox.control!.setErpSupplierNumbers(false);
    }
  });

  test('name and code are trimmed; over 200 and 50 characters they are NAME_TOO_LONG and CODE_TOO_LONG', async () => {
    const created = Supplier.parse(
      (await api.call('POST', '/v1/suppliers', { body: { name: '  Trim GmbH ', code: ' T-1 ' } })).body,
    );
    expect(created).toMatchObject({ name: 'Trim GmbH', number: 'T-1' });
    const duplicate = await api.call('POST', '/v1/suppliers', { body: { name: 'Other', code: 'T-1  ' } });
    expect(firstError(duplicate.body)).toMatchObject({ code: 'DUPLICATE_CODE', field: 'code' });
    const longName = await api.call('POST', '/v1/suppliers', {
      body: { name: 'n'.repeat(201), code: 'T-2' },
    });
    expect(firstError(longName.body)).toMatchObject({ code: 'NAME_TOO_LONG', field: 'name' });
    const longCode = await api.call('PATCH', `/v1/suppliers/${created.id}`, {
      body: { code: 'c'.repeat(51) },
    });
    expect(firstError(longCode.body)).toMatchObject({ code: 'CODE_TOO_LONG', field: 'code' });
    const empty = await api.call('PATCH', `/v1/suppliers/${created.id}`, { body: {} });
    expect(firstError(empty.body).code).toBe('EMPTY_UPDATE');
  });

  test('temporal filters with fractional seconds are exact at both bounds', async () => {
    const target = api.sandbox.state.suppliers[12]!;
    clock = Math.floor(clock / 1000) * 1000 + 61_000;
    const patched = await api.call('PATCH', `/v1/suppliers/${target.id}`, {
      body: { name: 'Exact Time AG' },
    });
    const at = Date.parse(Supplier.parse(patched.body).updateTime);
    expect(at).toBe(clock);
    const iso = (offsetMs: number) => new Date(at + offsetMs).toISOString();
    const ids = async (gte: number, lte: number) =>
      SupplierPage.parse(
        (
          await api.call(
            'GET',
            `/v1/suppliers?update_time__gte=${iso(gte)}&update_time__lte=${iso(lte)}&page_size=100`,
          )
        ).body,
      ).data.map((s) => s.id);
    expect(await ids(-500, 500)).toEqual([target.id]);
    expect(await ids(0, 0)).toEqual([target.id]);
    expect(await ids(500, 1500)).toEqual([]);
    expect(await ids(1, 999)).toEqual([]);
    expect(await ids(-1500, -500)).toEqual([]);
  });

  test('PATCH with a duplicate code is 400 naming code', async () => {
    const [a, b] = api.sandbox.state.suppliers;
    const response = await api.call('PATCH', `/v1/suppliers/${a!.id}`, { body: { code: b!.number } });
    expect(firstError(response.body)).toMatchObject({ code: 'DUPLICATE_CODE', field: 'code' });
  });

  test('PATCH with an invalid status is 400 naming status', async () => {
    const response = await api.call('PATCH', `/v1/suppliers/${api.sandbox.state.suppliers[1]!.id}`, {
      body: { status: 'GONE' },
    });
    expect(firstError(response.body)).toMatchObject({ code: 'INVALID_STATUS', field: 'status' });
  });

  test('PATCH of an unknown supplier is 404', async () => {
    expect(
      (await api.call('PATCH', '/v1/suppliers/11111111-2222-4333-8444-555555555555', { body: { name: 'x' } }))
        .status,
    ).toBe(404);
  });
});
