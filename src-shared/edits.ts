import { z } from 'zod';
import { DimensionCreate, DimensionItemCreate, DimensionItemUpdate, DimensionUpdate } from './api';
import { SupplierCreateInput, SupplierUpdateInput } from './bank-details';
import { AppErrorShape } from './errors';

/**
 * Offline edits over IPC: what the renderer may ask (the API's own request schemas, with the
 * checks of a supplier's VAT id, IBAN and BIC of bank-details.ts, so a field is refused in the
 * renderer's words before it reaches the outbox) and what it sees of
 * the outbox: each open edit with its status, the error on its field, and for a conflict the
 * server's newer record.
 */

const Profile = { profileId: z.uuid() };
const Operation = { profileId: z.uuid(), operationId: z.uuid() };
const RecordId = z.string().min(1).max(100);

export const EditInputs = {
  'suppliers.create': z.object({ ...Profile, input: SupplierCreateInput }).strict(),
  'suppliers.update': z.object({ ...Profile, id: RecordId, input: SupplierUpdateInput }).strict(),
  'dimensions.create': z.object({ ...Profile, input: DimensionCreate }).strict(),
  'dimensions.update': z.object({ ...Profile, id: RecordId, input: DimensionUpdate }).strict(),
  'dimensionItems.create': z
    .object({ ...Profile, dimensionId: RecordId, input: DimensionItemCreate })
    .strict(),
  'dimensionItems.update': z
    .object({ ...Profile, dimensionId: RecordId, id: RecordId, input: DimensionItemUpdate })
    .strict(),
};

export const EditResult = z.object({
  operationId: z.string(),
  recordId: z.string(),
  record: z.record(z.string(), z.unknown()),
});

export const OutboxItemShape = z.object({
  operationId: z.string(),
  resource: z.enum(['supplier', 'dimension', 'dimensionItem']),
  operation: z.enum(['create', 'update']),
  recordId: z.string(),
  parentId: z.string().nullable(),
  /** The record's name as the offline copy shows it now. */
  name: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  basedOn: z.string().nullable(),
  /**
   * `sending`: on its way with a live push; `interrupted`: left on its way by a push that is no
   * more, so it may or may not have reached the server (the next push or sync finds out).
   */
  status: z.enum(['pending', 'sending', 'interrupted', 'failed', 'conflict']),
  attempts: z.number().int(),
  /** `remoteCode`: the API's own code, when the API refused the edit (AppErrorShape). */
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
      remoteCode: z.string().optional(),
    })
    .nullable(),
  server: z.record(z.string(), z.unknown()).nullable(),
  /** The server's record the edit was made on (null for a create, or when not known). */
  before: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

type EditStatus = z.infer<typeof OutboxItemShape>['status'];

/** How much each state of a waiting edit needs the user, least first. */
const NEED: Record<EditStatus, number> = { pending: 0, sending: 0, interrupted: 1, failed: 2, conflict: 3 };

/**
 * Per record, the waiting edit whose state most needs the user: a conflict, then a refusal,
 * then an interrupted edit (it may have reached the server), then one waiting or on its way.
 * A record's row says that one, in the window (`EditStateBadge`) and on the command line
 * (`satchel dimension list`) alike; of two in the same state, the earlier.
 */
export function mostPressingEdits<T extends { recordId: string; status: EditStatus }>(
  items: readonly T[],
): Map<string, T> {
  const edits = new Map<string, T>();
  for (const item of items) {
    const known = edits.get(item.recordId);
    if (known === undefined || NEED[item.status] > NEED[known.status]) edits.set(item.recordId, item);
  }
  return edits;
}

export const PushSummaryShape = z.object({
  sent: z.number().int(),
  failed: z.number().int(),
  conflicts: z.number().int(),
  remaining: z.number().int(),
  stoppedBy: AppErrorShape.optional(),
});

export const OutboxCommandInputs = {
  list: z.object(Profile).strict(),
  push: z.object(Profile).strict(),
  operation: z.object(Operation).strict(),
  edit: z.object({ ...Operation, input: z.record(z.string(), z.unknown()) }).strict(),
  resolve: z
    .object({
      ...Operation,
      resolution: z.union([
        z.enum(['mine', 'theirs']),
        z.object({ merged: z.record(z.string(), z.unknown()) }).strict(),
      ]),
    })
    .strict(),
};
