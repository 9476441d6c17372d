import { z } from 'zod';
import { CurrencyCode, Id, Timestamp, listEnvelope, requiredText } from './common';

export const SupplierStatus = z.enum(['ACTIVE', 'DEACTIVATED', 'DELETED']);

export const Address = z.looseObject({
  street: z.string(),
  postalCode: z.string(),
  city: z.string(),
  country: z.string(),
});

export const Supplier = z
  .looseObject({
    id: Id,
    name: z.string(),
    /** The supplier number; the name stands in as a temporary number while the ERP has not assigned one. */
    number: z.string(),
    status: SupplierStatus,
    vatIdNo: z.string().nullable(),
    currency: CurrencyCode,
    iban: z.string().nullable(),
    bic: z.string().nullable(),
    address: Address.nullable(),
    externalUserId: z.string().nullable(),
    createTime: Timestamp,
    updateTime: Timestamp,
    /** @deprecated same value as `id`. */
    supplierId: Id,
    /** @deprecated same value as `name`. */
    supplierName: z.string(),
    /** @deprecated same value as `number`. */
    supplierNumber: z.string(),
  })
  .meta({ id: 'Supplier' });
export type Supplier = z.infer<typeof Supplier>;

export const SupplierPage = listEnvelope(Supplier).meta({ id: 'SupplierPage' });

const editable = {
  name: requiredText('Enter a name.')
    .trim()
    .min(1, { error: 'Enter a name.' })
    .max(200, { error: 'Use at most 200 characters.' }),
  /** Becomes `number`. Omitted when the ERP generates supplier numbers. */
  code: requiredText('Enter a supplier number.')
    .trim()
    .min(1, { error: 'Enter a supplier number.' })
    .max(50, { error: 'Use at most 50 characters.' }),
  status: SupplierStatus,
  vatIdNo: z.string().max(50, { error: 'Use at most 50 characters.' }).nullable(),
  currency: CurrencyCode,
  iban: z.string().max(50, { error: 'Use at most 50 characters.' }).nullable(),
  bic: z.string().max(20, { error: 'Use at most 20 characters.' }).nullable(),
  address: z
    .strictObject({
      street: z.string().max(200),
      postalCode: z.string().max(20),
      city: z.string().max(100),
      country: z.string().regex(/^[A-Z]{2}$/, 'Use an ISO 3166 country code like DE.'),
    })
    .nullable(),
  externalUserId: z.string().max(100).nullable(),
};

export const SupplierCreate = z
  .strictObject({
    ...editable,
    code: editable.code.optional(),
    status: editable.status.default('ACTIVE'),
    vatIdNo: editable.vatIdNo.optional(),
    currency: editable.currency.default('EUR'),
    iban: editable.iban.optional(),
    bic: editable.bic.optional(),
    address: editable.address.optional(),
    externalUserId: editable.externalUserId.optional(),
  })
  .meta({ id: 'SupplierCreate' });
export type SupplierCreate = z.infer<typeof SupplierCreate>;

export const SupplierUpdate = z.strictObject(editable).partial().meta({ id: 'SupplierUpdate' });
export type SupplierUpdate = z.infer<typeof SupplierUpdate>;

export const SupplierErrorCodes = {
  CODE_REQUIRED: 'Supplier numbers are kept by hand in this organisation: send `code` (also: blank code).',
  CODE_TOO_LONG: '`code` is longer than 50 characters.',
  NAME_REQUIRED: '`name` is missing or blank.',
  NAME_TOO_LONG: '`name` is longer than 200 characters.',
  INVALID_STATUS: '`status` is not ACTIVE, DEACTIVATED or DELETED.',
  UNKNOWN_FIELD: 'The body has a member the operation does not know; `field` names it.',
  EMPTY_UPDATE: 'A PATCH names no field to change.',
  VALIDATION_ERROR: 'Any other invalid member (currency, address, …); `field` names it.',
  DUPLICATE_CODE: 'Another supplier already has this `code`.',
  CODE_NOT_ALLOWED: 'The ERP generates supplier numbers in this organisation: omit `code`.',
} as const;
