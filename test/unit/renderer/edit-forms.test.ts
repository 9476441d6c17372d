import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-shared/errors';
import {
  fieldOf,
  formOf,
  payloadOf,
  queuedEditForm,
  serverValue,
  supplierWarnings,
  valuesFrom,
} from '../../../src-renderer/features/edits/forms';

describe('the forms of offline edits', () => {
  it('sends every filled field of a create, and only what changed in an update', () => {
    const { fields, defaults, schema } = formOf('supplier', true);
    const blank = valuesFrom(fields, {}, defaults);
    expect(blank).toMatchObject({ name: '', code: '', status: 'ACTIVE', vatIdNo: '' });
    const create = payloadOf(fields, { ...blank, name: ' Kaffee Nord ', code: 'K-1' }, blank, 'create');
    expect(create).toEqual({ name: 'Kaffee Nord', code: 'K-1', status: 'ACTIVE' });
    expect(schema.safeParse(create).success).toBe(true);

    const update = formOf('supplier', false);
    const initial = valuesFrom(update.fields, { name: 'Kaffee Nord', code: 'K-1', vatIdNo: 'DE1' });
    // Emptying a field the API clears sends null; an unchanged field is not sent.
    expect(
      payloadOf(update.fields, { ...initial, name: 'Kaffee Süd', vatIdNo: '' }, initial, 'update'),
    ).toEqual({
      name: 'Kaffee Süd',
      vatIdNo: null,
    });
    expect(payloadOf(update.fields, initial, initial, 'update')).toEqual({});
  });

  it('replaces a queued update with exactly the fields it shows', () => {
    // A queued update of the name only: its form shows the name, and changing it sends the
    // name alone, with no status the user never chose.
    const { fields, schema } = formOf('dimension', false);
    const shown = fields.filter((field) => field.key in { name: 'Projects' });
    const values = valuesFrom(shown, { name: 'Projects' });
    expect(values).toEqual({ name: 'Projects' });
    expect(payloadOf(shown, { name: 'Client projects' }, values, 'replace')).toEqual({
      name: 'Client projects',
    });
    // Emptied, a required field is sent empty so the schema names it, not dropped.
    const emptied = payloadOf(shown, { name: '  ' }, values, 'replace');
    expect(emptied).toEqual({ name: '' });
    const parsed = schema.safeParse(emptied);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['name']);
  });

  it('changes a queued update in the fields it changes, keeping the members it does not show', () => {
    const queued = queuedEditForm({
      resource: 'supplier',
      operation: 'update',
      payload: { vatIdNo: null, externalUserId: 'erp-7' },
    });
    expect(queued.fields.map((field) => field.key)).toEqual(['vatIdNo']);
    expect(queued.initial).toEqual({ vatIdNo: '' });
    const sent = payloadOf(queued.fields, { vatIdNo: 'DE123456789' }, queued.initial, queued.mode);
    expect(queued.input(sent)).toEqual({ vatIdNo: 'DE123456789', externalUserId: 'erp-7' });
    expect(queued.schema.safeParse(queued.input(sent)).success).toBe(true);

    // A queued create opens with every field, the defaults filled in.
    const create = queuedEditForm({
      resource: 'dimensionItem',
      operation: 'create',
      payload: { name: 'North', code: 'N' },
    });
    expect(create.initial).toEqual({ name: 'North', code: 'N', status: 'ACTIVE' });
    expect(create.mode).toBe('create');
  });

  it("opens a refused edit's form with the server's reason on the field it names", () => {
    const refused = (field: string | undefined, status: 'failed' | 'pending' = 'failed') =>
      queuedEditForm({
        resource: 'supplier',
        operation: 'update',
        payload: { code: 'TAKEN-1' },
        status,
        error: {
          code: 'REMOTE_REJECTED',
          message: 'Another supplier already has code TAKEN-1.',
          ...(field ? { field } : {}),
        },
      }).refusal;
    expect(refused('code')).toEqual({ code: 'Another supplier already has code TAKEN-1.' });
    expect(refused('input.code')).toEqual({ code: 'Another supplier already has code TAKEN-1.' });
    // A field the form does not show, no field, or an edit that was not refused: nothing marked.
    expect(refused('name')).toEqual({});
    expect(refused(undefined)).toEqual({});
    expect(refused('code', 'pending')).toEqual({});
    // A new item refused because its dimension was deleted: the status the API names is shown.
    expect(
      queuedEditForm({
        resource: 'dimensionItem',
        operation: 'create',
        payload: { name: 'Paris', code: 'P' },
        status: 'failed',
        error: {
          code: 'REMOTE_REJECTED',
          message: 'Project is deleted; items cannot be added.',
          field: 'status',
        },
      }).refusal,
    ).toEqual({ status: 'Project is deleted; items cannot be added.' });
  });

  it('offers Deleted only when changing a dimension or item, and checks codes as the API does', () => {
    const statuses = (creating: boolean) =>
      formOf('dimensionItem', creating)
        .fields.find((field) => field.key === 'status')
        ?.options?.map((o) => o.value);
    expect(statuses(true)).toEqual(['ACTIVE', 'INACTIVE']);
    expect(statuses(false)).toEqual(['ACTIVE', 'INACTIVE', 'DELETED']);
    const { schema } = formOf('dimensionItem', true);
    expect(schema.safeParse({ name: 'North', code: 'N' }).success).toBe(true);
    const noCode = schema.safeParse({ name: 'North' });
    expect(noCode.error?.issues[0]?.path).toEqual(['code']);
    expect(schema.safeParse({ name: 'North', code: 'x'.repeat(51) }).success).toBe(false);
  });

  it("reads the server's side of a conflict by the edit's field names", () => {
    // Suppliers are edited with `code` and answered with `number`; dimensions use `code`.
    expect(serverValue('supplier', { number: '70001', code: 'ignored' }, 'code')).toBe('70001');
    expect(serverValue('dimension', { code: 'PROJ-2' }, 'code')).toBe('PROJ-2');
    expect(serverValue('dimensionItem', { code: 'P-7', name: 'Audit' }, 'name')).toBe('Audit');
  });

  it('puts an error of the core on the field it names', () => {
    expect(fieldOf(new AppError('VALIDATION_ERROR', 'taken', 'input.code'))).toBe('code');
    expect(fieldOf(new AppError('VALIDATION_ERROR', 'no field'))).toBeUndefined();
    expect(fieldOf(new Error('plain'))).toBeUndefined();
  });
});

describe('the supplier form’s bank details', () => {
  it('shows an IBAN in groups of four and counts only a real change of it as a change', () => {
    const { fields } = formOf('supplier', false);
    // A synced supplier whose IBAN the server holds malformed: left alone, it is not sent,
    // so not checked, and the name can be changed.
    const initial = valuesFrom(fields, { name: 'Kaffee Nord', iban: 'DE00123' });
    expect(initial['iban']).toBe('DE00 123');
    expect(payloadOf(fields, { ...initial, name: 'Kaffee Süd' }, initial, 'update')).toEqual({
      name: 'Kaffee Süd',
    });
    const valid = valuesFrom(fields, { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' });
    expect(valid['iban']).toBe('DE89 3704 0044 0532 0130 00');
    // Retyped without spaces or in lower case: the same IBAN, not a change.
    for (const typed of ['DE89370400440532013000', 'de89 3704 0044 0532 0130 00'])
      expect(payloadOf(fields, { ...valid, iban: typed }, valid, 'update')).toEqual({});
    expect(payloadOf(fields, { ...valid, bic: 'cobadeffxxx' }, valid, 'update')).toEqual({});
  });

  it('refuses a mistyped IBAN on its field, and warns of a BIC of another country', () => {
    const { fields, schema } = formOf('supplier', false);
    const initial = valuesFrom(fields, { name: 'Kaffee Nord', iban: null, bic: null });
    const typed = { ...initial, iban: 'DE89 3704 0044 0532 0130 01' };
    const parsed = schema.safeParse(payloadOf(fields, typed, initial, 'update'));
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['iban'],
      message: "The IBAN's check digits do not match: a character is probably mistyped.",
    });
    const monaco = { ...initial, iban: 'MC58 1122 2000 0101 2345 6789 030', bic: 'BNPAFRPP' };
    expect(schema.safeParse(payloadOf(fields, monaco, initial, 'update')).success).toBe(true);
    expect(supplierWarnings(fields, monaco, initial, 'update')).toEqual({
      bic: expect.stringContaining('The BIC is of a bank in FR and the IBAN of an account in MC'),
    });
    // The server's own pair, untouched, is not for this form to question.
    expect(supplierWarnings(fields, monaco, monaco, 'update')).toEqual({});
  });

  it('saves a VAT id not in its EU prefix’s format as typed, warning of it beside the field', () => {
    const { fields, schema } = formOf('supplier', false);
    const initial = valuesFrom(fields, { name: 'Kaffee Nord', vatIdNo: 'DE-THEIRS' });
    // The server's value, untouched, is not warned of: only a VAT id this form changes.
    expect(supplierWarnings(fields, { ...initial, name: 'Kaffee Süd' }, initial, 'update')).toEqual({});
    const typed = { ...initial, vatIdNo: 'DE 1234 5678' };
    expect(supplierWarnings(fields, typed, initial, 'update')).toEqual({
      vatIdNo:
        'This does not look like a German VAT id (DE followed by 9 digits); it is saved as typed — check it if it is meant to be one.',
    });
    expect(schema.parse(payloadOf(fields, typed, initial, 'update'))).toEqual({ vatIdNo: 'DE 1234 5678' });
    // A Mexican RFC is warned of the same way, and saved as typed.
    const { fields: created, schema: creating } = formOf('supplier', true);
    const blank = valuesFrom(created, {}, { status: 'ACTIVE' });
    const rfc = { ...blank, name: 'Franco SA de CV', code: 'MX-1', vatIdNo: 'FRAN800101AB1' };
    expect(supplierWarnings(created, rfc, blank, 'create')).toEqual({
      vatIdNo: expect.stringContaining('This does not look like a French VAT id'),
    });
    expect(creating.parse(payloadOf(created, rfc, blank, 'create'))).toMatchObject({
      vatIdNo: 'FRAN800101AB1',
    });
    const valid = { ...initial, vatIdNo: 'de 123 456 789' };
    expect(supplierWarnings(fields, valid, initial, 'update')).toEqual({});
    expect(schema.parse(payloadOf(fields, valid, initial, 'update'))).toEqual({ vatIdNo: 'DE123456789' });
  });
});
