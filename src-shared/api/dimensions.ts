import { z } from 'zod';
import { Id, Timestamp, listEnvelope, requiredText } from './common';

export const DimensionStatus = z.enum(['ACTIVE', 'INACTIVE', 'DELETED']);

export const Dimension = z
  .looseObject({
    id: Id,
    name: z.string(),
    code: z.string(),
    status: DimensionStatus,
    createTime: Timestamp,
    updateTime: Timestamp,
    deleteTime: Timestamp.nullable(),
  })
  .meta({ id: 'Dimension' });
export type Dimension = z.infer<typeof Dimension>;

export const DimensionItem = z
  .looseObject({
    id: Id,
    dimensionId: Id,
    name: z.string(),
    code: z.string(),
    status: DimensionStatus,
    createTime: Timestamp,
    updateTime: Timestamp,
    deleteTime: Timestamp.nullable(),
  })
  .meta({ id: 'DimensionItem' });
export type DimensionItem = z.infer<typeof DimensionItem>;

export const DimensionPage = listEnvelope(Dimension).meta({ id: 'DimensionPage' });
export const DimensionItemPage = listEnvelope(DimensionItem).meta({ id: 'DimensionItemPage' });

const name = requiredText('Enter a name.')
  .trim()
  .min(1, { error: 'Enter a name.' })
  .max(200, { error: 'Use at most 200 characters.' });
const code = requiredText('Enter a code.')
  .trim()
  .min(1, { error: 'Enter a code.' })
  .max(50, { error: 'Use at most 50 characters.' });

export const DimensionCreate = z
  .strictObject({
    name,
    code,
    status: DimensionStatus.default('ACTIVE'),
    externalUserId: z.string().max(100).optional(),
  })
  .meta({ id: 'DimensionCreate' });
export const DimensionUpdate = z
  .strictObject({
    name: name.optional(),
    code: code.optional(),
    status: DimensionStatus.optional(),
    externalUserId: z.string().max(100).optional(),
  })
  .meta({ id: 'DimensionUpdate' });
export const DimensionItemCreate = z
  .strictObject({
    name,
    code,
    status: DimensionStatus.default('ACTIVE'),
    externalUserId: z.string().max(100).optional(),
  })
  .meta({ id: 'DimensionItemCreate' });
export const DimensionItemUpdate = z
  .strictObject({
    name: name.optional(),
    code: code.optional(),
    status: DimensionStatus.optional(),
    externalUserId: z.string().max(100).optional(),
  })
  .meta({ id: 'DimensionItemUpdate' });
export type DimensionCreate = z.infer<typeof DimensionCreate>;
export type DimensionUpdate = z.infer<typeof DimensionUpdate>;

/** Documented error codes of dimension and dimension-item creates and updates. */
export const DimensionErrorCodes = {
  NAME_REQUIRED: '`name` is missing, blank or not a string (400, field name).',
  NAME_TOO_LONG: '`name` is longer than 200 characters (400, field name).',
  CODE_TOO_LONG: '`code` is longer than 50 characters (400, field code).',
  UNKNOWN_FIELD: 'The body has a member the operation does not know (400, field names it).',
  VALIDATION_ERROR:
    'Any other invalid member, such as externalUserId over 100 characters (400, field names it).',
  INVALID_JSON: 'The body is not well-formed JSON (400).',
  CODE_REQUIRED: '`code` is missing, blank or not a string (400, field code).',
  DUPLICATE_CODE:
    'Another dimension, or another item of the same dimension, has this `code` (400, field code).',
  INVALID_STATUS: '`status` is not ACTIVE, INACTIVE or DELETED (400, field status).',
  EMPTY_UPDATE: 'An update names no field to change (400).',
  SYSTEM_DIMENSION_READ_ONLY:
    'Cost center and cost carrier dimensions cannot be renamed, recoded or deleted; their items can (400).',
  DIMENSION_DELETED: 'Items cannot be created in or moved out of a deleted dimension (400, field status).',
  DIMENSION_NOT_FOUND: 'No dimension with this id (404).',
  DIMENSION_ITEM_NOT_FOUND: 'No item with this id in this dimension (404).',
} as const;
