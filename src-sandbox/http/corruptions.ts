import { z } from 'zod';
import { Id, type OperationId } from '../../src-shared/api';

/**
 * Malformed records on demand, for tests of a client's tolerance: a patch (any JSON) merged
 * over one record every time an operation of its resource serves it. The stored record is
 * never changed; only the answer is, so clearing the corruption serves the record intact.
 */

export const CorruptedResource = z.enum([
  'bankTransactions',
  'expenses',
  'suppliers',
  'files',
  'bankAccounts',
  'users',
]);
export type CorruptedResource = z.infer<typeof CorruptedResource>;

export const Corruption = z.strictObject({
  resource: CorruptedResource,
  id: Id,
  /** Members merged over the record as served (shallow: a member given replaces the record's). */
  patch: z.record(z.string(), z.unknown()),
});
export type Corruption = z.infer<typeof Corruption>;

/** The operations that serve each resource's records. */
const SERVED_BY: Record<CorruptedResource, readonly OperationId[]> = {
  bankTransactions: ['searchBankTransactionsV1', 'searchBankTransactionsV0'],
  expenses: ['listExpenses'],
  suppliers: ['listSuppliers', 'getSupplier', 'createSupplier', 'updateSupplier'],
  files: ['searchFiles'],
  bankAccounts: ['listBankAccounts'],
  users: ['listUsers', 'getUser'],
};

export interface Corruptions {
  add(corruption: Corruption): void;
  clear(): void;
  list(): Corruption[];
  /** The answer of `operationId` with every corrupted record patched (a copy; `result` is untouched). */
  apply(operationId: OperationId, result: unknown): unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function createCorruptions(): Corruptions {
  const byId = new Map<string, Corruption>();
  const patched = (operationId: OperationId, record: unknown): unknown => {
    if (!isRecord(record) || typeof record.id !== 'string') return record;
    const corruption = byId.get(record.id.toLowerCase());
    if (!corruption || !SERVED_BY[corruption.resource].includes(operationId)) return record;
    return { ...record, ...corruption.patch };
  };
  return {
    add(corruption) {
      byId.set(corruption.id.toLowerCase(), corruption);
    },
    clear() {
      byId.clear();
    },
    list: () => [...byId.values()],
    apply(operationId, result) {
      if (byId.size === 0 || !isRecord(result)) return result;
      if (Array.isArray(result.data))
        return { ...result, data: result.data.map((record) => patched(operationId, record)) };
      return patched(operationId, result);
    },
  };
}
