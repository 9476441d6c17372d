import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DimensionErrorCodes, ErrorCodes, SupplierErrorCodes, operations } from '../../../src-shared/api';
import { startApi, type Api } from './helpers';

let api: Api;
let document: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
beforeAll(async () => {
  api = await startApi({ transactions: 100 });
  const response = await fetch(`${api.url}/openapi.json`);
  document = (await response.json()) as typeof document;
});
afterAll(() => api.sandbox.stop());

describe('OpenAPI document', () => {
  test('is served without a token and validates as OpenAPI 3.1', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  test('info.version is 1.44.0', () => {
    expect(document.info.version).toBe('1.44.0');
  });

  test('documents every operation of the sandbox', () => {
    for (const [id, operation] of Object.entries(operations)) {
      const documented = document.paths[operation.path]?.[operation.method.toLowerCase()];
      expect(documented?.operationId, id).toBe(id);
    }
  });

  test('documents the rate-limit headers on every answer and Retry-After on 429', () => {
    for (const path of Object.values(document.paths) as Record<
      string,
      { responses: Record<string, { headers?: Record<string, unknown> }> }
    >[]) {
      for (const operation of Object.values(path)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(Object.keys(response.headers ?? {}), status).toEqual(
            expect.arrayContaining([
              'X-RateLimit-Limit',
              'X-RateLimit-Remaining',
              'X-RateLimit-Reset',
              'X-RateLimit-Scope',
            ]),
          );
          if (status === '429') expect(Object.keys(response.headers ?? {})).toContain('Retry-After');
        }
      }
    }
  });

  test('documents every error code', () => {
    const text = JSON.stringify(document);
    for (const code of [
      ...Object.keys(ErrorCodes),
      ...Object.keys(SupplierErrorCodes),
      ...Object.keys(DimensionErrorCodes),
    ]) {
      expect(text, code).toContain(`\`${code}\``);
    }
  });

  test('schemas include the wire records', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'BankTransaction',
        'Money',
        'Expense',
        'ExpenseLine',
        'Supplier',
        'Dimension',
        'DimensionItem',
        'Error',
        'TokenResponse',
      ]),
    );
  });
});
