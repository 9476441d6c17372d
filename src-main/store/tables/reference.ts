import { sql } from 'drizzle-orm';
import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { deletedAt, jsonCheck, localEditPending, recordColumns } from './columns';

/*
 * Suppliers, dimensions and the small reference lists. The wire convention names only a few
 * members of most of these records, so each table parses what the screens show (name, code or
 * number, status) and keeps the rest in `raw`; a later migration can add a column and
 * back-fill it from `raw` with json_extract, without a re-sync.
 *
 * Name indexes use NOCASE so that "sort by name" and prefix look-ups match what a person
 * expects; queries must say `ORDER BY name COLLATE NOCASE` to use them.
 */

const nocase = (column: string) => sql.raw(`"${column}" COLLATE NOCASE`);

/** Editable: the outbox sets `local_edit_pending`; sync leaves such rows alone. */
export const suppliers = sqliteTable(
  'suppliers',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    number: text('number'),
    status: text('status'),
    vatIdNo: text('vat_id_no'),
    currency: text('currency'),
    iban: text('iban'),
    bic: text('bic'),
    createTime: text('create_time'),
    updateTime: text('update_time'),
    ...recordColumns(),
    deletedAt: deletedAt(),
    localEditPending: localEditPending(),
  },
  (t) => [
    jsonCheck('suppliers', 'raw'),
    index('suppliers_name_idx').on(nocase('name'), t.id),
    index('suppliers_number_idx').on(t.number),
    index('suppliers_update_time_idx').on(t.updateTime, t.id),
  ],
);

/** Editable. The list includes deleted dimensions (status says so). */
export const dimensions = sqliteTable(
  'dimensions',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    code: text('code'),
    status: text('status'),
    createTime: text('create_time'),
    updateTime: text('update_time'),
    ...recordColumns(),
    deletedAt: deletedAt(),
    localEditPending: localEditPending(),
  },
  (t) => [jsonCheck('dimensions', 'raw'), index('dimensions_name_idx').on(nocase('name'), t.id)],
);

/**
 * Editable. No foreign key to dimensions: items are read per dimension, and an item must not
 * disappear with a dimension row before the outbox has sent its edit.
 */
export const dimensionItems = sqliteTable(
  'dimension_items',
  {
    id: text('id').primaryKey(),
    dimensionId: text('dimension_id').notNull(),
    name: text('name'),
    code: text('code'),
    status: text('status'),
    createTime: text('create_time'),
    updateTime: text('update_time'),
    ...recordColumns(),
    deletedAt: deletedAt(),
    localEditPending: localEditPending(),
  },
  (t) => [
    jsonCheck('dimension_items', 'raw'),
    index('dimension_items_dimension_idx').on(t.dimensionId, nocase('name'), t.id),
    index('dimension_items_code_idx').on(t.dimensionId, t.code),
  ],
);

export const expenseAccounts = sqliteTable(
  'expense_accounts',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    code: text('code'),
    status: text('status'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  (t) => [jsonCheck('expense_accounts', 'raw'), index('expense_accounts_code_idx').on(t.code)],
);

/** `GET /v1/tax-rates?type=…`. `rate` is the decimal text as received, never a float. */
export const taxRates = sqliteTable(
  'tax_rates',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    code: text('code'),
    type: text('type'),
    rate: text('rate'),
    status: text('status'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  (t) => [jsonCheck('tax_rates', 'raw'), index('tax_rates_type_idx').on(t.type)],
);

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    email: text('email'),
    status: text('status'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  (t) => [jsonCheck('users', 'raw'), index('users_name_idx').on(nocase('name'), t.id)],
);

export const teams = sqliteTable(
  'teams',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  () => [jsonCheck('teams', 'raw')],
);

export const departments = sqliteTable(
  'departments',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    code: text('code'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  () => [jsonCheck('departments', 'raw')],
);

export const paymentTerms = sqliteTable(
  'payment_terms',
  {
    id: text('id').primaryKey(),
    name: text('name'),
    ...recordColumns(),
    deletedAt: deletedAt(),
  },
  () => [jsonCheck('payment_terms', 'raw')],
);
