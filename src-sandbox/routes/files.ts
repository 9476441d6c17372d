import { DEFAULT_PAGE_SIZE, type FileSearchRequest } from '../../src-shared/api';
import { failure, notFound } from '../http/errors';
import { accepts } from '../http/negotiate';
import { damaged } from '../http/body-faults';
import type { Handler } from '../http/server';
import { meta, type RouteContext } from './context';

/**
 * Expense files: search by expense and line ids, and byte downloads with ETag (the sha256),
 * single byte ranges (206, 416) and If-None-Match (304, a weak comparison over a list).
 * Several ranges in one header are answered with the whole file, as HTTP allows.
 */
export function fileHandlers(context: RouteContext): Record<'searchFiles' | 'getFileContent', Handler> {
  const { state } = context;
  return {
    searchFiles: ({ body }) => {
      const { expenseIds, expenseLineIds, pagination } = body as FileSearchRequest;
      const expenses = expenseIds ? new Set(expenseIds.map((id) => id.toLowerCase())) : null;
      // Splits carry no files: their id stands for the parent line's files (release 1.39.2).
      const lines = expenseLineIds
        ? new Set(expenseLineIds.map((id) => state.splitParents.get(id.toLowerCase()) ?? id.toLowerCase()))
        : null;
      const found = state.files.filter(
        (file) =>
          (!expenses || expenses.has(file.expenseId)) &&
          (!lines || (file.expenseLineId !== null && lines.has(file.expenseLineId))),
      );
      const page = pagination?.page ?? 1;
      const pageSize = pagination?.pageSize ?? DEFAULT_PAGE_SIZE;
      return {
        data: found.slice((page - 1) * pageSize, page * pageSize).map(state.fileRecord),
        meta: meta(page, pageSize, found.length),
      };
    },
    getFileContent: ({ params, request, reply, bodyFault }) => {
      const spec = state.files.find((file) => file.id === params.fileId?.toLowerCase());
      if (!spec) throw notFound('File');
      if (!accepts(request.headers.accept, spec.mimeType)) {
        throw failure(406, 'NOT_ACCEPTABLE', `This file is ${spec.mimeType}; allow it in Accept.`);
      }
      const content = state.fileBytes(spec);
      const etag = `"${state.fileRecord(spec).sha256}"`;
      // The file's own headers go on answers that carry (or stand for) it: 200, 206, 304.
      const asFile = () =>
        reply
          .header('etag', etag)
          .header('accept-ranges', 'bytes')
          .header('content-type', spec.mimeType)
          .header('content-disposition', `attachment; filename="${spec.name}"`);
      if (noneMatchHits(request.headers['if-none-match'], etag)) return asFile().code(304).send();
      const range = parseRange(
        request.headers.range,
        content.length,
        request.headers['if-range'] as string | undefined,
        etag,
      );
      // A 416 is an error answer (RFC 9110 §15.5.17): the standard body and Content-Range only.
      if (range === 'unsatisfiable') {
        throw failure(416, 'RANGE_NOT_SATISFIABLE', `The file has ${content.length} bytes.`, undefined, {
          'content-range': `bytes */${content.length}`,
        });
      }
      asFile();
      if (range === null)
        return reply.code(200).header('content-length', content.length).send(damaged(content, bodyFault));
      const [start, end] = range;
      return reply
        .code(206)
        .header('content-range', `bytes ${start}-${end}/${content.length}`)
        .header('content-length', end - start + 1)
        .send(damaged(content.subarray(start, end + 1), bodyFault));
    },
  };
}

/**
 * Whether `If-None-Match` names the file's tag (RFC 9110 §13.1.2): `*`, or a list of entity
 * tags compared weakly, so `W/"x"` matches `"x"`. Tags are read whole, as a comma may sit
 * inside the quotes.
 */
function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return [...header.matchAll(/(?:W\/)?("[^"]*")/g)].some((match) => match[1] === opaque);
}

/** One `bytes=` range as [start, end] inclusive; null means send everything. */
function parseRange(
  header: string | undefined,
  size: number,
  ifRange: string | undefined,
  etag: string,
): [number, number] | null | 'unsatisfiable' {
  if (!header || (ifRange !== undefined && ifRange !== etag)) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null; // an invalid range is ignored
  if (start >= size) return 'unsatisfiable';
  return [start, end];
}
