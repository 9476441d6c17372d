import { eq, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { z } from 'zod';
import {
  departments,
  dimensionItems,
  dimensions,
  expenseAccounts,
  paymentTerms,
  taxRates,
  teams,
  users,
} from '../store';
import { fetchAllPages, parseEach } from './paging';
import type { ResourceContext, ResourceSync } from './types';
import {
  WireDepartment,
  WireDimension,
  WireDimensionItem,
  WireExpenseAccount,
  WirePaymentTerm,
  WireTaxRate,
  WireTeam,
  WireUser,
} from './wire';
import { markUnseenDeleted, upsertRows } from './write';

/**
 * Small reference lists, read in full every sync: a few requests each, and a complete read
 * is the only way to learn that an entry is gone. The whole list is written in one
 * transaction, so a kill leaves the previous complete list in place.
 */

interface ListSpec<T> {
  resource: string;
  path: string;
  schema: z.ZodType<T>;
  table: SQLiteTable;
  toRow(record: T): Record<string, unknown>;
}

const text = (value: unknown) =>
  typeof value === 'string' ? value : value === undefined || value === null ? null : String(value);

async function pullList<T>(
  context: ResourceContext,
  spec: ListSpec<T>,
  /** Which rows the list covers, when it is one part of a table (one dimension's items). */
  scope?: SQL,
) {
  const readStartedAt = context.now().toISOString();
  const list = await fetchAllPages(context, spec.path);
  const { parsed, unread } = parseEach(context, spec.schema, list.records);
  context.commitPage(
    (tx, db) => {
      const syncedAt = context.now().toISOString();
      const rows = parsed.map((entry) => ({
        ...spec.toRow(entry.record),
        raw: JSON.stringify(entry.raw),
        syncedAt,
        deletedAt: null,
      }));
      const written = upsertRows(db, spec.table, rows);
      // A list that kept changing while it was paged may lack a record that is there.
      if (list.complete) markUnseenDeleted(tx, spec.table, scope, readStartedAt, syncedAt, unread);
      return written;
    },
    { completedAt: context.now().toISOString() },
  );
  return parsed.map((entry) => entry.record);
}

function listSync<T>(spec: ListSpec<T>): ResourceSync {
  return { resource: spec.resource, pull: async (context) => void (await pullList(context, spec)) };
}

export const expenseAccountsSync = listSync({
  resource: 'expenseAccounts',
  path: '/v1/expense-accounts',
  schema: WireExpenseAccount,
  table: expenseAccounts,
  toRow: (r) => ({ id: r.id, name: text(r.name), code: text(r.number), status: text(r.status) }),
});

export const taxRatesSync = listSync({
  resource: 'taxRates',
  path: '/v1/tax-rates',
  schema: WireTaxRate,
  table: taxRates,
  toRow: (r) => ({
    id: r.id,
    name: text(r.name),
    code: null,
    type: text(r.type),
    rate: text(r.rate),
    status: text(r.status),
  }),
});

export const usersSync = listSync({
  resource: 'users',
  path: '/v1/users',
  schema: WireUser,
  table: users,
  toRow: (r) => ({
    id: r.id,
    name: [r.firstName, r.lastName].filter(Boolean).join(' ') || null,
    email: text(r.email),
    status: text(r.status),
  }),
});

export const teamsSync = listSync({
  resource: 'teams',
  path: '/v1/teams',
  schema: WireTeam,
  table: teams,
  toRow: (r) => ({ id: r.id, name: text(r.name) }),
});

export const departmentsSync = listSync({
  resource: 'departments',
  path: '/v1/departments',
  schema: WireDepartment,
  table: departments,
  toRow: (r) => ({ id: r.id, name: text(r.name), code: text(r.code) }),
});

export const paymentTermsSync = listSync({
  resource: 'paymentTerms',
  path: '/v1/payment-terms',
  schema: WirePaymentTerm,
  table: paymentTerms,
  toRow: (r) => ({ id: r.id, name: text(r.name) }),
});

/** Dimensions (deleted ones included, as the API lists them) and each dimension's items. */
export const dimensionsSync: ResourceSync = {
  resource: 'dimensions',
  async pull(context) {
    const list = await pullList(context, {
      resource: 'dimensions',
      path: '/v1/dimensions',
      schema: WireDimension,
      table: dimensions,
      toRow: (r) => ({
        id: r.id,
        name: text(r.name),
        code: text(r.code),
        status: text(r.status),
        createTime: text(r.createTime),
        updateTime: text(r.updateTime),
      }),
    });
    for (const dimension of list) {
      await pullList(
        context,
        {
          resource: 'dimensions',
          path: `/v1/dimensions/${encodeURIComponent(dimension.id)}/items`,
          schema: WireDimensionItem,
          table: dimensionItems,
          toRow: (r) => ({
            id: r.id,
            dimensionId: dimension.id,
            name: text(r.name),
            code: text(r.code),
            status: text(r.status),
            createTime: text(r.createTime),
            updateTime: text(r.updateTime),
          }),
        },
        eq(dimensionItems.dimensionId, dimension.id),
      );
    }
  },
};
