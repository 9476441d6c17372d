import { randomUUID } from 'node:crypto';
import type { Supplier, SupplierCreate, SupplierUpdate } from '../../src-shared/api';
import { failure } from '../http/errors';
import type { Handler } from '../http/server';
import { byId, byUpdateTime, nowIso, pageOf, within, type RouteContext } from './context';

/**
 * Suppliers. The organisation setting `erpSupplierNumbers` decides who numbers them: when the
 * ERP does, creates omit `code` and the name stands as a temporary number (release 1.19.1),
 * kept through renames until the ERP numbers the supplier (an identifier does not follow a
 * display name); otherwise `code` is required and unique. Errors name the public field `code`.
 */
export function supplierHandlers(
  context: RouteContext,
): Record<'listSuppliers' | 'getSupplier' | 'createSupplier' | 'updateSupplier', Handler> {
  const { state } = context;
  const codeTaken = (code: string, except?: string) =>
    state.suppliers.some((s) => s.number === code && s.id !== except);
  return {
    listSuppliers: ({ query }) => {
      const created = within(state.suppliers, (s) => s.createTime, query, 'create_date');
      const updated = within(created, (s) => s.updateTime, query, 'update_time');
      return pageOf(byUpdateTime(updated), query);
    },
    getSupplier: ({ params }) => byId(state.suppliers, params.supplierId, 'Supplier'),
    createSupplier: ({ body }) => {
      const input = body as SupplierCreate;
      let number: string;
      if (state.options.erpSupplierNumbers) {
        if (input.code !== undefined)
          throw failure(
            400,
            'CODE_NOT_ALLOWED',
            'The ERP generates supplier numbers in this organisation: omit code.',
            'code',
          );
        number = input.name;
      } else {
        if (input.code === undefined)
          throw failure(400, 'CODE_REQUIRED', 'Send the supplier number as code.', 'code');
        if (codeTaken(input.code))
          throw failure(400, 'DUPLICATE_CODE', `Another supplier already has code ${input.code}.`, 'code');
        number = input.code;
      }
      const id = randomUUID();
      const stamp = nowIso(context);
      const supplier: Supplier = {
        id,
        name: input.name,
        number,
        status: input.status,
        vatIdNo: input.vatIdNo ?? null,
        currency: input.currency,
        iban: input.iban ?? null,
        bic: input.bic ?? null,
        address: input.address ?? null,
        externalUserId: input.externalUserId ?? null,
        createTime: stamp,
        updateTime: stamp,
        supplierId: id,
        supplierName: input.name,
        supplierNumber: number,
      };
      state.suppliers.push(supplier);
      return supplier;
    },
    updateSupplier: ({ params, body }) => {
      const supplier = byId(state.suppliers, params.supplierId, 'Supplier');
      const input = body as SupplierUpdate;
      if (Object.keys(input).length === 0)
        throw failure(400, 'EMPTY_UPDATE', 'Name at least one field to change.');
      if (input.code !== undefined) {
        if (state.options.erpSupplierNumbers)
          throw failure(
            400,
            'CODE_NOT_ALLOWED',
            'The ERP generates supplier numbers in this organisation: omit code.',
            'code',
          );
        if (codeTaken(input.code, supplier.id))
          throw failure(400, 'DUPLICATE_CODE', `Another supplier already has code ${input.code}.`, 'code');
      }
      const { code, ...rest } = input;
      Object.assign(supplier, rest, code === undefined ? {} : { number: code, supplierNumber: code });
      supplier.supplierName = supplier.name;
      supplier.updateTime = nowIso(context);
      return supplier;
    },
  };
}
