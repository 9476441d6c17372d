import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PaginationMeta } from '../../../src-shared/api';
import { firstError, startApi, type Api } from './helpers';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.sandbox.stop());

/** Every paginated GET list of the catalogue (the bank-account list is not paginated). */
const LISTS = [
  '/v1/expenses',
  '/v1/suppliers',
  '/v1/dimensions',
  '/v1/expense-accounts',
  '/v1/tax-rates',
  '/v1/users',
  '/v1/teams',
  '/v1/departments',
  '/v1/payment-terms',
];

describe('GET lists', () => {
  test('every list answers { data, meta.pagination } with page 1 of 20 by default', async () => {
    for (const path of LISTS) {
      const response = await api.call('GET', path);
      expect(response.status, path).toBe(200);
      const pagination = PaginationMeta.parse(response.body.meta.pagination);
      expect(pagination.page, path).toBe(1);
      expect(pagination.pageSize, path).toBe(20);
      expect(response.body.data.length, path).toBe(Math.min(20, pagination.totalItems));
      expect(pagination.totalPages, path).toBe(Math.ceil(pagination.totalItems / 20));
      expect(pagination.hasMore, path).toBe(pagination.totalPages > 1);
    }
  });

  test('page_size takes 1 to 100; 0 and 101 are 400 naming page_size', async () => {
    expect((await api.call('GET', '/v1/users?page_size=1')).body.data).toHaveLength(1);
    expect((await api.call('GET', '/v1/suppliers?page_size=100')).body.data).toHaveLength(100);
    for (const size of ['0', '101']) {
      const response = await api.call('GET', `/v1/suppliers?page_size=${size}`);
      expect(response.status, size).toBe(400);
      expect(firstError(response.body).field, size).toBe('page_size');
    }
  });

  test('a malformed page or page_size is one error that says what to send', async () => {
    for (const [query, field, message] of [
      ['page_size=abc', 'page_size', 'Use a whole number from 1.'],
      ['page_size=1e2', 'page_size', 'Use a whole number from 1.'],
      ['page_size=1000000000', 'page_size', 'At most 100.'],
      ['page=0', 'page', 'Use a whole number from 1.'],
      ['page=-1', 'page', 'Use a whole number from 1.'],
      ['page=', 'page', 'Use a whole number from 1.'],
    ] as const) {
      const response = await api.call('GET', `/v1/suppliers?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.errors, query).toEqual([{ code: 'VALIDATION_ERROR', message, field }]);
    }
  });

  test('a query parameter given more than once is 400 naming it, whatever the values', async () => {
    for (const [path, field] of [
      ['/v1/suppliers?page=1&page=2', 'page'],
      ['/v1/users?page_size=5&page_size=5', 'page_size'],
      ['/v1/suppliers?update_time__gte=2026-01-01&page=1&update_time__gte=2026-02-01', 'update_time__gte'],
    ] as const) {
      const response = await api.call('GET', path);
      expect(response.status, path).toBe(400);
      expect(response.body.errors, path).toEqual([
        { code: 'VALIDATION_ERROR', message: `${field} is given more than once.`, field },
      ]);
    }
  });

  test('a page past the end is empty with the right meta, however far', async () => {
    for (const page of ['16', '1000000000', '9007199254740991']) {
      const response = await api.call('GET', `/v1/suppliers?page=${page}`);
      expect(response.status, page).toBe(200);
      expect(response.body.data, page).toEqual([]);
      expect(response.body.meta.pagination, page).toEqual({
        page: Number(page),
        pageSize: 20,
        totalItems: 300,
        totalPages: 15,
        hasMore: false,
      });
    }
  });
});
