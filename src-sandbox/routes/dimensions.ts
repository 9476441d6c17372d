import { randomUUID } from 'node:crypto';
import {
  COST_CARRIER_DIMENSION_ID,
  COST_CENTER_DIMENSION_ID,
  type Dimension,
  type DimensionCreate,
  type DimensionItem,
  type DimensionUpdate,
} from '../../src-shared/api';
import { failure } from '../http/errors';
import type { Handler } from '../http/server';
import { nowIso, pageOf, type RouteContext } from './context';

/**
 * Dimensions and their items. Lists include deleted records. Every way a write can fail has
 * its own documented code (DimensionErrorCodes). Cost center and cost carrier are system
 * dimensions with fixed ids: their items can be managed, the dimensions themselves not.
 *
 * Deleting a dimension deletes its items with it (_sandbox_: the spec says nothing of them):
 * each item not deleted yet gets the dimension's `deleteTime` and a new `updateTime`, so a
 * client that re-reads the items sees them go. Restoring the dimension leaves them deleted;
 * they are revived one by one, which a deleted dimension refuses (DIMENSION_DELETED).
 */

type Ops =
  | 'listDimensions'
  | 'getDimension'
  | 'createDimension'
  | 'updateDimension'
  | 'retiredUpdateDimension'
  | 'listDimensionItems'
  | 'getDimensionItem'
  | 'createDimensionItem'
  | 'updateDimensionItem'
  | 'retiredUpdateDimensionItem';

const SYSTEM = new Set([COST_CENTER_DIMENSION_ID, COST_CARRIER_DIMENSION_ID]);

export function dimensionHandlers(context: RouteContext): Record<Ops, Handler> {
  const { state } = context;
  const dimension = (id: string | undefined): Dimension => {
    const found = state.dimensions.find((d) => d.id === id?.toLowerCase());
    if (!found) throw failure(404, 'DIMENSION_NOT_FOUND', 'No dimension with this id.');
    return found;
  };
  const item = (dimensionId: string | undefined, itemId: string | undefined): DimensionItem => {
    const parent = dimension(dimensionId);
    const found = state.items.find((i) => i.id === itemId?.toLowerCase() && i.dimensionId === parent.id);
    if (!found) throw failure(404, 'DIMENSION_ITEM_NOT_FOUND', 'No item with this id in this dimension.');
    return found;
  };
  const duplicate = (code: string) => failure(400, 'DUPLICATE_CODE', `Code ${code} is already used.`, 'code');
  /** Applies name/code/status, keeping updateTime and deleteTime true to the change. */
  const apply = <T extends Dimension | DimensionItem>(record: T, input: DimensionUpdate): T => {
    const stamp = nowIso(context);
    if (input.name !== undefined) record.name = input.name;
    if (input.code !== undefined) record.code = input.code;
    if (input.status !== undefined && input.status !== record.status) {
      record.deleteTime = input.status === 'DELETED' ? stamp : null;
      record.status = input.status;
    }
    record.updateTime = stamp;
    return record;
  };
  const requireChange = (input: DimensionUpdate) => {
    if (Object.keys(input).filter((key) => key !== 'externalUserId').length === 0)
      throw failure(400, 'EMPTY_UPDATE', 'Name at least one of name, code, status.');
  };
  return {
    listDimensions: ({ query }) => pageOf(state.dimensions, query),
    getDimension: ({ params }) => dimension(params.dimensionId),
    createDimension: ({ body }) => {
      const input = body as DimensionCreate;
      if (state.dimensions.some((d) => d.code === input.code)) throw duplicate(input.code);
      const stamp = nowIso(context);
      const record: Dimension = {
        id: randomUUID(),
        name: input.name,
        code: input.code,
        status: input.status,
        createTime: stamp,
        updateTime: stamp,
        deleteTime: input.status === 'DELETED' ? stamp : null,
      };
      state.dimensions.push(record);
      return record;
    },
    updateDimension: ({ params, body }) => {
      const record = dimension(params.dimensionId);
      const input = body as DimensionUpdate;
      requireChange(input);
      if (SYSTEM.has(record.id))
        throw failure(
          400,
          'SYSTEM_DIMENSION_READ_ONLY',
          `${record.name} is a system dimension; manage its items instead.`,
        );
      if (
        input.code !== undefined &&
        state.dimensions.some((d) => d.code === input.code && d.id !== record.id)
      )
        throw duplicate(input.code);
      const wasDeleted = record.status === 'DELETED';
      const updated = apply(record, input);
      if (!wasDeleted && updated.status === 'DELETED')
        for (const child of state.items)
          if (child.dimensionId === updated.id && child.status !== 'DELETED')
            Object.assign(child, {
              status: 'DELETED',
              deleteTime: updated.deleteTime,
              updateTime: updated.updateTime,
            });
      return updated;
    },
    retiredUpdateDimension: () => undefined,
    listDimensionItems: ({ params, query }) => {
      const parent = dimension(params.dimensionId);
      return pageOf(
        state.items.filter((i) => i.dimensionId === parent.id),
        query,
      );
    },
    getDimensionItem: ({ params }) => item(params.dimensionId, params.itemId),
    createDimensionItem: ({ params, body }) => {
      const parent = dimension(params.dimensionId);
      const input = body as DimensionCreate;
      if (parent.status === 'DELETED')
        throw failure(
          400,
          'DIMENSION_DELETED',
          `${parent.name} is deleted; items cannot be added.`,
          'status',
        );
      if (state.items.some((i) => i.dimensionId === parent.id && i.code === input.code))
        throw duplicate(input.code);
      const stamp = nowIso(context);
      const record: DimensionItem = {
        id: randomUUID(),
        dimensionId: parent.id,
        name: input.name,
        code: input.code,
        status: input.status,
        createTime: stamp,
        updateTime: stamp,
        deleteTime: input.status === 'DELETED' ? stamp : null,
      };
      state.items.push(record);
      return record;
    },
    updateDimensionItem: ({ params, body }) => {
      const record = item(params.dimensionId, params.itemId);
      const input = body as DimensionUpdate;
      requireChange(input);
      const parent = dimension(params.dimensionId);
      if (parent.status === 'DELETED' && input.status !== undefined && input.status !== 'DELETED') {
        throw failure(
          400,
          'DIMENSION_DELETED',
          `${parent.name} is deleted; its items stay deleted.`,
          'status',
        );
      }
      if (
        input.code !== undefined &&
        state.items.some((i) => i.dimensionId === parent.id && i.code === input.code && i.id !== record.id)
      )
        throw duplicate(input.code);
      return apply(record, input);
    },
    retiredUpdateDimensionItem: () => undefined,
  };
}
