import { suppliers } from '../store';
import { pullSinceHighWater } from './high-water';
import type { ResourceSync } from './types';
import { WireSupplier } from './wire';
import { upsertRows } from './write';

/** Suppliers by `update_time__gte`; rows with an unsent offline edit are left alone. */
export const suppliersSync: ResourceSync = {
  resource: 'suppliers',
  pull: (context) =>
    pullSinceHighWater(context, {
      path: '/v1/suppliers',
      schema: WireSupplier,
      updateTime: (record) => record.updateTime,
      write: (db, records, syncedAt) =>
        upsertRows(
          db,
          suppliers,
          records.map(({ record, raw }) => ({
            id: record.id,
            name: record.name ?? null,
            number: record.number ?? null,
            status: record.status ?? null,
            vatIdNo: record.vatIdNo ?? null,
            currency: record.currency ?? null,
            iban: record.iban ?? null,
            bic: record.bic ?? null,
            createTime: record.createTime ?? null,
            updateTime: record.updateTime ?? null,
            raw: JSON.stringify(raw),
            syncedAt,
            deletedAt: null,
          })),
        ),
    }),
};
