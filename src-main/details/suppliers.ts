import { AppError } from '../../src-shared/errors';
import type { SupplierRow } from '../../src-shared/search';
import { prepared } from '../search/sql';
import type { CacheDb } from '../store';

/** A supplier as the Suppliers list shows it, with when the server last changed it. */
export interface SupplierDetail extends SupplierRow {
  createTime: string | null;
  updateTime: string | null;
  /** An offline edit of it waits in the outbox (the cached row shows the edit). */
  editPending: boolean;
}

/** One supplier of the offline copy, deleted ones included. */
export function supplierDetail(cache: CacheDb, id: string): SupplierDetail {
  const row = prepared(
    cache.sqlite,
    `SELECT id, name, number, status, vat_id_no AS vatIdNo, iban, bic, currency, deleted_at AS deletedAt,
       create_time AS createTime, update_time AS updateTime, local_edit_pending AS pending
     FROM suppliers WHERE id = @id`,
  ).get({ id }) as (Omit<SupplierDetail, 'editPending'> & { pending: number }) | undefined;
  if (!row)
    throw new AppError('NOT_FOUND', `Supplier ${id} is not in the offline copy. Sync, then try again.`);
  const { pending, ...supplier } = row;
  return { ...supplier, editPending: pending === 1 };
}
