import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { currencyDecimals } from '../../../src-shared/money';
import { startApi, type Api, type Json } from './helpers';

/**
 * Wire formats every answer keeps (wire-conventions "Money and dates"): Money with the
 * currency's own decimals, dates `YYYY-MM-DD`, timestamps in UTC with `Z`, ids as UUIDs.
 * Checked over every record of every resource the sandbox serves, not a sample.
 */

let api: Api;
const records = new Map<string, Json[]>();
beforeAll(async () => {
  api = await startApi({ transactions: 3000 });
  const pages = async (path: string, body?: Json): Promise<Json[]> => {
    const out: Json[] = [];
    for (let page = 1; ; page++) {
      const answer = body
        ? await api.call('POST', path, { body: { ...body, pagination: { page, pageSize: 100 } } })
        : await api.call('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=100`);
      expect(answer.status, path).toBe(200);
      out.push(...answer.body.data);
      if (!answer.body.meta.pagination.hasMore) return out;
    }
  };
  records.set('bankTransactions', await pages('/v0/bank-transactions/search-query', {}));
  records.set('expenses', await pages('/v1/expenses'));
  records.set('files', await pages('/v1/files/search-query', {}));
  records.set('suppliers', await pages('/v1/suppliers'));
  const dimensions = await pages('/v1/dimensions');
  records.set('dimensions', dimensions);
  const items: Json[] = [];
  for (const dimension of dimensions) items.push(...(await pages(`/v1/dimensions/${dimension.id}/items`)));
  records.set('dimensionItems', items);
  for (const path of ['expense-accounts', 'tax-rates', 'users', 'teams', 'departments', 'payment-terms'])
    records.set(path, await pages(`/v1/${path}`));
  const accounts = (await api.call('GET', '/v1/bank-accounts')).body.data as Json[];
  records.set('bankAccounts', accounts);
  const balances: Json[] = [];
  for (const account of accounts)
    balances.push((await api.call('GET', `/v1/bank-accounts/${account.id}/balance`)).body);
  records.set('balances', balances);
});
afterAll(() => api.sandbox.stop());

/** Every value in `value` with its path, depth first. */
function* walk(value: Json, path: string): Generator<[string, Json]> {
  yield [path, value];
  if (value !== null && typeof value === 'object')
    for (const [key, member] of Object.entries(value)) yield* walk(member, `${path}.${key}`);
}
const everything = () => [...records].flatMap(([resource, list]) => [...walk(list, resource)]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('wire formats', () => {
  test('every resource was read, in the currencies the demo data uses', () => {
    for (const [resource, list] of records) expect(list.length, resource).toBeGreaterThan(0);
    const currencies = new Set(
      everything()
        .filter(([path]) => path.endsWith('.currency'))
        .map(([, value]) => value),
    );
    // JPY has no decimals: the money format must not assume two.
    expect([...currencies].sort()).toEqual(
      expect.arrayContaining(['CHF', 'EUR', 'GBP', 'JPY', 'SEK', 'USD']),
    );
  });

  test('Money is a decimal string with exactly the currency’s own decimals, never -0', () => {
    const money = everything().filter(
      ([, value]) =>
        value !== null &&
        typeof value === 'object' &&
        typeof value.amount === 'string' &&
        typeof value.currency === 'string',
    );
    expect(money.length).toBeGreaterThan(10_000);
    const bad = money.filter(([, { amount, currency }]) => {
      const decimals = currencyDecimals(currency);
      const shape = decimals === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${decimals}}$`);
      return !shape.test(amount) || /^-0+(\.0+)?$/.test(amount) || /^-?0\d/.test(amount);
    });
    expect(bad.slice(0, 5)).toEqual([]);
  });

  test('timestamps are UTC with Z and whole seconds; dates are YYYY-MM-DD', () => {
    const all = everything();
    const timestamps = all.filter(([path, value]) => /Time$/.test(path) && value !== null);
    expect(timestamps.length).toBeGreaterThan(1000);
    expect(
      timestamps.filter(
        ([, value]) => !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(value) || Number.isNaN(Date.parse(value)),
      ),
    ).toEqual([]);
    const dates = all.filter(([path]) => /\.(bookingDate|valueDate)$/.test(path));
    expect(dates.length).toBe(2 * records.get('bankTransactions')!.length);
    expect(dates.filter(([, value]) => !/^\d{4}-\d\d-\d\d$/.test(value))).toEqual([]);
  });

  test('identifiers are lower-case UUIDs', () => {
    const ids = everything().filter(([path, value]) => /(\.id|Id)$/.test(path) && typeof value === 'string');
    expect(ids.length).toBeGreaterThan(10_000);
    expect(ids.filter(([, value]) => !UUID.test(value)).slice(0, 5)).toEqual([]);
  });
});
