import { and, eq, isNull, ne } from 'drizzle-orm';
import { COST_CARRIER_DIMENSION_ID, COST_CENTER_DIMENSION_ID } from '../../src-shared/api';
import { BANK_FIELDS } from '../../src-shared/bank-details';
import { AppError, validationError } from '../../src-shared/errors';
import { dimensionItems, dimensions, suppliers } from '../store';
import type { Tx } from '../sync/types';
import { supplierNumbering } from './queue';
import { sameJson, specs, type OutboxResource, type Payload, type Raw } from './records';

/**
 * Offline edits are checked with the rules the API enforces, so a mistake is shown on its field
 * while the user is still looking at it, not after the next push: the shared request schemas
 * (required members, lengths, status values, unknown members), `code` as the organisation's
 * supplier numbering demands, codes unique as far as the cache knows, and the rules on system
 * and deleted dimensions, and a supplier's VAT id, IBAN and BIC as typed (bank-details.ts). What only the server can know (a code taken since the last sync) comes
 * back from the push as a failed edit naming the field.
 */

const SYSTEM_DIMENSIONS = new Set([COST_CENTER_DIMENSION_ID, COST_CARRIER_DIMENSION_ID]);

const invalid = (message: string, field?: string) => new AppError('VALIDATION_ERROR', message, field);

export interface EditTarget {
  resource: OutboxResource;
  operation: 'create' | 'update';
  /** The record edited (its provisional id for a local create); excluded from duplicate checks. */
  recordId?: string;
  /** The dimension of a dimension item. */
  parentId?: string | null;
}

/** The VAT id, IBAN and BIC of a supplier edit that are the server record's own values. */
function serverHeld(resource: OutboxResource, input: unknown, server: Raw | undefined): Payload {
  if (resource !== 'supplier' || !server || typeof input !== 'object' || input === null) return {};
  return Object.fromEntries(
    Object.entries(input as Payload).filter(
      ([key, value]) =>
        (BANK_FIELDS as readonly string[]).includes(key) &&
        sameJson(specs.supplier.fieldValue(server, key), value),
    ),
  );
}

/**
 * `server`: the server's record the values of a merge were partly taken from. A VAT id, IBAN or
 * BIC taken from it is the server's value, not one the user typed, and is not checked again.
 */
export function validateEdit(tx: Tx, target: EditTarget, input: unknown, server?: Raw): Payload {
  const spec = specs[target.resource];
  const schema = target.operation === 'create' ? spec.createSchema : spec.updateSchema;
  const held = serverHeld(target.resource, input, server);
  const parsed = schema.safeParse(
    Object.keys(held).length === 0
      ? input
      : Object.fromEntries(Object.entries(input as Payload).filter(([key]) => !(key in held))),
  );
  if (!parsed.success) {
    // An unknown member is named as the field, as the API does.
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys' && issue.keys[0])
      throw invalid(`Unknown field ${issue.keys[0]}.`, [...issue.path, issue.keys[0]].join('.'));
    throw validationError(parsed.error);
  }
  const payload = { ...parsed.data, ...held };
  if (target.operation === 'update') {
    const changes = Object.keys(payload).filter(
      (key) => key !== 'externalUserId' || target.resource === 'supplier',
    );
    if (changes.length === 0) throw invalid('Change at least one field.');
  }
  const code = typeof payload.code === 'string' ? payload.code : undefined;
  const except = target.recordId ?? '';

  if (target.resource === 'supplier') {
    const erp = supplierNumbering(tx) === 'erp';
    if (erp && code !== undefined)
      throw invalid('The ERP numbers suppliers in this organisation: leave the number empty.', 'code');
    if (!erp && target.operation === 'create' && code === undefined)
      throw invalid('Enter the supplier number.', 'code');
    if (code !== undefined) {
      const taken = tx
        .select({ id: suppliers.id })
        .from(suppliers)
        .where(and(eq(suppliers.number, code), ne(suppliers.id, except), isNull(suppliers.deletedAt)))
        .get();
      if (taken) throw invalid(`Another supplier already has the number ${code}.`, 'code');
    }
    return payload;
  }

  if (target.resource === 'dimension') {
    if (target.operation === 'update' && SYSTEM_DIMENSIONS.has(except)) {
      throw invalid(
        'Cost center and cost carrier are system dimensions: edit their items instead.',
        Object.keys(payload)[0],
      );
    }
    if (code !== undefined) {
      const taken = tx
        .select({ id: dimensions.id })
        .from(dimensions)
        .where(and(eq(dimensions.code, code), ne(dimensions.id, except), isNull(dimensions.deletedAt)))
        .get();
      if (taken) throw invalid(`Another dimension already has the code ${code}.`, 'code');
    }
    return payload;
  }

  // Dimension items.
  const parentId = target.parentId ?? '';
  const parent = tx
    .select({ status: dimensions.status })
    .from(dimensions)
    .where(and(eq(dimensions.id, parentId), isNull(dimensions.deletedAt)))
    .get();
  if (!parent)
    throw new AppError('NOT_FOUND', `No dimension ${parentId} is in the offline copy. Sync, then try again.`);
  if (parent.status === 'DELETED') {
    if (target.operation === 'create')
      throw invalid('The dimension is deleted; items cannot be added to it.', 'dimensionId');
    if (payload.status !== undefined && payload.status !== 'DELETED')
      throw invalid('The dimension is deleted; its items stay deleted.', 'status');
  }
  if (code !== undefined) {
    const taken = tx
      .select({ id: dimensionItems.id })
      .from(dimensionItems)
      .where(
        and(
          eq(dimensionItems.dimensionId, parentId),
          eq(dimensionItems.code, code),
          ne(dimensionItems.id, except),
          isNull(dimensionItems.deletedAt),
        ),
      )
      .get();
    if (taken) throw invalid(`Another item of this dimension already has the code ${code}.`, 'code');
  }
  return payload;
}
