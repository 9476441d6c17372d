import type { z } from 'zod';
import {
  DimensionCreate,
  DimensionItemCreate,
  DimensionItemUpdate,
  DimensionUpdate,
} from '../../src-shared/api';
import { SupplierCreateInput, SupplierUpdateInput } from '../../src-shared/bank-details';
import { dimensionItems, dimensions, suppliers } from '../store';
import { WireDimension, WireDimensionItem, WireSupplier } from '../sync/wire';

/**
 * What the outbox needs to know about each editable resource: where it lives in the cache and
 * on the API, its request schemas, and how an edit changes its record — the same way the API
 * would, so the cache shows the edit at once and a discarded edit can be undone offline.
 */

export type OutboxResource = 'supplier' | 'dimension' | 'dimensionItem';
export type Raw = Record<string, unknown>;
export type Payload = Record<string, unknown>;

/** Provisional ids of records created offline; the server's id replaces them after the push. */
export const LOCAL_ID_PREFIX = 'local-';
export const isLocalId = (id: string | null | undefined): boolean =>
  typeof id === 'string' && id.startsWith(LOCAL_ID_PREFIX);

export interface ResourceSpec {
  resource: OutboxResource;
  label: string;
  table: typeof suppliers | typeof dimensions | typeof dimensionItems;
  createSchema: z.ZodType<Payload>;
  updateSchema: z.ZodType<Payload>;
  wire: z.ZodType<Raw & { id: string; updateTime?: string | undefined }>;
  collectionPath(parentId: string | null): string;
  recordPath(id: string, parentId: string | null): string;
  /** The record a create makes, as the API would make it (before it has times). */
  applyCreate(payload: Payload, id: string, parentId: string | null): Raw;
  applyUpdate(raw: Raw, payload: Payload): Raw;
  /** Cache columns of a record (without `raw`, `synced_at`, the flags). */
  columns(raw: Raw): Record<string, unknown>;
  /** Whether `raw` is the record this create would have made (code and name agree). */
  isCreatedBy(raw: Raw, payload: Payload): boolean;
  /** Whether the server record already holds every value of this update. */
  holds(raw: Raw, payload: Payload): boolean;
  /** The record's value of an update's field (a supplier's `code` is its `number`). */
  fieldValue(raw: Raw, field: string): unknown;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : value === undefined || value === null ? null : String(value);

/** Structural equality of JSON values (object key order ignored); undefined counts as null. */
export function sameJson(a: unknown, b: unknown): boolean {
  if ((a ?? null) === null || (b ?? null) === null) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!sameJson(left[key], right[key])) return false;
  return true;
}

/** `updateTime`s compared as instants (`…Z` and `…+00:00` are the same version). */
export function sameVersion(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return a === b;
  const [x, y] = [Date.parse(a), Date.parse(b)];
  return Number.isNaN(x) || Number.isNaN(y) ? a === b : x === y;
}

const supplier: ResourceSpec = {
  resource: 'supplier',
  label: 'supplier',
  table: suppliers,
  createSchema: SupplierCreateInput as z.ZodType<Payload>,
  updateSchema: SupplierUpdateInput as z.ZodType<Payload>,
  wire: WireSupplier as z.ZodType<Raw & { id: string; updateTime?: string | undefined }>,
  collectionPath: () => '/v1/suppliers',
  recordPath: (id) => `/v1/suppliers/${encodeURIComponent(id)}`,
  applyCreate(payload, id) {
    const name = String(payload.name);
    // Under ERP numbering the API stands the name in as a temporary number.
    const number = text(payload.code) ?? name;
    return {
      id,
      name,
      number,
      status: payload.status ?? 'ACTIVE',
      vatIdNo: payload.vatIdNo ?? null,
      currency: payload.currency ?? 'EUR',
      iban: payload.iban ?? null,
      bic: payload.bic ?? null,
      address: payload.address ?? null,
      externalUserId: payload.externalUserId ?? null,
      createTime: null,
      updateTime: null,
      supplierId: id,
      supplierName: name,
      supplierNumber: number,
    };
  },
  applyUpdate(raw, payload) {
    const { code, ...rest } = payload;
    const next: Raw = { ...raw, ...rest };
    if (code !== undefined) Object.assign(next, { number: code, supplierNumber: code });
    if (rest.name !== undefined) next.supplierName = rest.name;
    return next;
  },
  columns: (raw) => ({
    id: String(raw.id),
    name: text(raw.name),
    number: text(raw.number),
    status: text(raw.status),
    vatIdNo: text(raw.vatIdNo),
    currency: text(raw.currency),
    iban: text(raw.iban),
    bic: text(raw.bic),
    createTime: text(raw.createTime),
    updateTime: text(raw.updateTime),
  }),
  isCreatedBy: (raw, payload) =>
    raw.name === payload.name && raw.number === (text(payload.code) ?? payload.name),
  holds: (raw, payload) =>
    Object.entries(payload).every(([key, value]) =>
      key === 'code' ? raw.number === value : sameJson(raw[key], value),
    ),
  fieldValue: (raw, field) => (field === 'code' ? raw.number : raw[field]),
};

function dimensionLike(
  resource: 'dimension' | 'dimensionItem',
  schemas: { create: z.ZodType; update: z.ZodType },
): ResourceSpec {
  const item = resource === 'dimensionItem';
  return {
    resource,
    label: item ? 'dimension item' : 'dimension',
    table: item ? dimensionItems : dimensions,
    createSchema: schemas.create as z.ZodType<Payload>,
    updateSchema: schemas.update as z.ZodType<Payload>,
    wire: (item ? WireDimensionItem : WireDimension) as z.ZodType<
      Raw & { id: string; updateTime?: string | undefined }
    >,
    collectionPath: (parentId) =>
      item ? `/v1/dimensions/${encodeURIComponent(parentId ?? '')}/items` : '/v1/dimensions',
    recordPath: (id, parentId) =>
      item
        ? `/v1/dimensions/${encodeURIComponent(parentId ?? '')}/items/${encodeURIComponent(id)}`
        : `/v1/dimensions/${encodeURIComponent(id)}`,
    applyCreate: (payload, id, parentId) => ({
      id,
      ...(item ? { dimensionId: parentId } : {}),
      name: payload.name,
      code: payload.code,
      status: payload.status ?? 'ACTIVE',
      createTime: null,
      updateTime: null,
      deleteTime: null,
    }),
    applyUpdate(raw, payload) {
      // externalUserId is not part of the record the API returns.
      const { externalUserId: _ignored, ...rest } = payload;
      return { ...raw, ...rest };
    },
    columns: (raw) => ({
      id: String(raw.id),
      ...(item ? { dimensionId: String(raw.dimensionId) } : {}),
      name: text(raw.name),
      code: text(raw.code),
      status: text(raw.status),
      createTime: text(raw.createTime),
      updateTime: text(raw.updateTime),
    }),
    isCreatedBy: (raw, payload) => raw.name === payload.name && raw.code === payload.code,
    holds: (raw, payload) =>
      Object.entries(payload).every(([key, value]) => key === 'externalUserId' || sameJson(raw[key], value)),
    fieldValue: (raw, field) => raw[field],
  };
}

export const specs: Record<OutboxResource, ResourceSpec> = {
  supplier,
  dimension: dimensionLike('dimension', { create: DimensionCreate, update: DimensionUpdate }),
  dimensionItem: dimensionLike('dimensionItem', { create: DimensionItemCreate, update: DimensionItemUpdate }),
};
