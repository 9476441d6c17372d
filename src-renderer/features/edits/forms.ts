import type { z } from 'zod';
import {
  DimensionCreate,
  DimensionItemCreate,
  DimensionItemUpdate,
  DimensionUpdate,
} from '../../../src-shared/api';
import {
  bankCountryWarning,
  compactCode,
  formatIban,
  SupplierCreateInput,
  SupplierUpdateInput,
  vatIdWarning,
} from '../../../src-shared/bank-details';
import type { OutboxItemShape } from '../../../src-shared/edits';
import { AppError } from '../../../src-shared/errors';

type OutboxItem = z.infer<typeof OutboxItemShape>;
export type OutboxResource = OutboxItem['resource'];

/** One field of an editable record: a text input, or a choice when it has options. */
export interface FieldSpec {
  key: string;
  label: string;
  hint?: string;
  options?: Array<{ value: string; label: string }>;
  /** Emptied, it is sent as null (the API clears it); otherwise an empty field is left out. */
  nullable?: boolean;
  /** The value as the form shows it (an IBAN in groups of four). */
  format?: (value: string) => string;
  /**
   * The value as compared with the one the form opened with, to tell whether the user changed
   * it: an IBAN retyped without its spaces is the same IBAN, not a change.
   */
  normalize?: (value: string) => string;
}

export type RecordValues = Record<string, string>;

/**
 * What a form sends. `create`: every filled field. `update`: only what differs from the
 * values the form opened with. `replace` (a queued edit changed before it is sent): every
 * field shown, since the new payload replaces the old one whole.
 */
export type PayloadMode = 'create' | 'update' | 'replace';

/** The form's values of a record (or of a queued edit's payload): every field a string. */
export function valuesFrom(
  fields: FieldSpec[],
  source: Record<string, unknown>,
  defaults: RecordValues = {},
): RecordValues {
  return Object.fromEntries(
    fields.map((field) => {
      const value = source[field.key];
      if (value === null || value === undefined) return [field.key, defaults[field.key] ?? ''];
      return [field.key, field.format ? field.format(String(value)) : String(value)];
    }),
  );
}

/**
 * What a form sends, and so what is checked: in an update only the fields the user changed
 * (compared with `normalize`), so a value the server holds and the user left alone (a synced
 * supplier's malformed IBAN) is neither sent nor checked.
 */
export function payloadOf(
  fields: FieldSpec[],
  values: RecordValues,
  initial: RecordValues,
  mode: PayloadMode,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const field of fields) {
    const value = (values[field.key] ?? '').trim();
    const same = field.normalize ?? ((text: string) => text);
    if (mode === 'update' && same(value) === same((initial[field.key] ?? '').trim())) continue;
    if (mode === 'create' && value === '') continue;
    payload[field.key] = value === '' && field.nullable ? null : value;
  }
  return payload;
}

/** Which field an error names: "input.code" and "code" are both the code field. */
export function fieldOf(error: unknown): string | undefined {
  if (!(error instanceof AppError) || !error.field) return undefined;
  return error.field.split('.').at(-1);
}

/** The form of each editable record, for a create or an update, and the schema that checks it. */
export function formOf(resource: OutboxResource, creating: boolean) {
  if (resource === 'supplier')
    return {
      fields: [
        { key: 'name', label: 'Name' },
        { key: 'code', label: 'Supplier number', hint: 'Required unless the ERP numbers suppliers.' },
        {
          key: 'status',
          label: 'Status',
          options: [
            { value: 'ACTIVE', label: 'Active' },
            { value: 'DEACTIVATED', label: 'Deactivated' },
            { value: 'DELETED', label: 'Deleted' },
          ],
        },
        { key: 'vatIdNo', label: 'VAT id', nullable: true },
        { key: 'iban', label: 'IBAN', nullable: true, format: formatIban, normalize: compactCode },
        { key: 'bic', label: 'BIC', nullable: true, normalize: compactCode },
        {
          key: 'currency',
          label: 'Currency',
          hint: creating ? 'EUR when left empty.' : 'Left empty: unchanged.',
        },
      ] satisfies FieldSpec[],
      defaults: { status: 'ACTIVE' },
      schema: creating ? SupplierCreateInput : SupplierUpdateInput,
      warnings: supplierWarnings,
    };
  const item = resource === 'dimensionItem';
  return {
    fields: [
      { key: 'name', label: 'Name' },
      {
        key: 'code',
        label: 'Code',
        hint: item ? 'Unique within the dimension.' : 'Unique among the dimensions.',
      },
      {
        key: 'status',
        label: 'Status',
        // A new record is active or inactive; deleting is a change of an existing one.
        options: [
          { value: 'ACTIVE', label: 'Active' },
          { value: 'INACTIVE', label: 'Inactive' },
          ...(creating ? [] : [{ value: 'DELETED', label: 'Deleted' }]),
        ],
      },
    ] satisfies FieldSpec[],
    defaults: { status: 'ACTIVE' },
    schema: item
      ? creating
        ? DimensionItemCreate
        : DimensionItemUpdate
      : creating
        ? DimensionCreate
        : DimensionUpdate,
  };
}

/**
 * Warnings that do not stop saving, by field: a VAT id with an EU prefix but not that
 * country's format, when this form changed it; a BIC of another country than the IBAN's, once
 * both are well formed and this form changed one of them.
 */
export function supplierWarnings(
  fields: FieldSpec[],
  values: RecordValues,
  initial: RecordValues,
  mode: PayloadMode,
): Record<string, string> {
  const sent = payloadOf(fields, values, initial, mode);
  const warnings: Record<string, string> = {};
  const vatId = 'vatIdNo' in sent ? vatIdWarning(values['vatIdNo']) : undefined;
  if (vatId) warnings['vatIdNo'] = vatId;
  const bank =
    'iban' in sent || 'bic' in sent ? bankCountryWarning(values['iban'], values['bic']) : undefined;
  if (bank) warnings['bic'] = bank;
  return warnings;
}

/**
 * A record's field as the server sends it back, by the name the edit uses: suppliers are
 * edited with `code` and answered with `number`; dimensions use `code` both ways.
 */
export function serverValue(
  resource: OutboxResource,
  server: Record<string, unknown>,
  field: string,
): unknown {
  return resource === 'supplier' && field === 'code' ? server['number'] : server[field];
}

/**
 * The form for changing a queued edit. A queued create is edited as a create. A queued update
 * shows only the fields it changes (a form with every field would add changes the user never
 * made: the status alone would send a deactivated supplier back as active), and what is saved
 * replaces its payload whole, members the form does not show (externalUserId) kept as they were.
 */
export function queuedEditForm(item: {
  resource: OutboxResource;
  operation: 'create' | 'update';
  payload: Record<string, unknown>;
  status?: OutboxItem['status'];
  error?: OutboxItem['error'];
}) {
  const creating = item.operation === 'create';
  const form = formOf(item.resource, creating);
  const fields = creating ? form.fields : form.fields.filter((field) => field.key in item.payload);
  const unshown = Object.fromEntries(
    Object.entries(item.payload).filter(([key]) => !fields.some((field) => field.key === key)),
  );
  const refusedField = item.status === 'failed' ? item.error?.field?.split('.').at(-1) : undefined;
  return {
    fields,
    schema: form.schema,
    warnings: 'warnings' in form ? form.warnings : undefined,
    initial: valuesFrom(fields, item.payload, creating ? form.defaults : {}),
    mode: (creating ? 'create' : 'replace') as PayloadMode,
    /**
     * The server's refusal of a failed edit, on the field it names, so the form opens with the
     * field to fix marked (a field the form does not show is left to the list's own words).
     */
    refusal:
      refusedField && item.error && fields.some((field) => field.key === refusedField)
        ? { [refusedField]: item.error.message }
        : {},
    /** The new payload from what the form sends. */
    input: (payload: Record<string, unknown>) => ({ ...unshown, ...payload }),
  };
}
