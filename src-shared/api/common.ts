import { z } from 'zod';

/**
 * Building blocks of the spend API wire format (spec 1.44.0 and wire-conventions.md).
 * Records the API returns are loose objects: unknown members are kept, so a client parsing
 * with these schemas tolerates a newer server. Requests are strict: the sandbox answers an
 * unknown member with a 400 naming it, so a misspelt filter never silently matches everything.
 */

/** Identifiers are 8-4-4-4-12 hex strings; fixed ids such as the cost-center dimension are not RFC 4122 versions. */
export const Id = z.guid();

export const IsoDate = z
  .string()
  // A shape that is not a date is one error, not a second "Not a calendar date." as well.
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Use a date like 2026-03-31.', abort: true })
  .refine((value) => {
    const time = Date.parse(`${value}T00:00:00Z`);
    return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
  }, 'Not a calendar date.');

/** ISO 8601 with offset; the API sends UTC (`2026-07-15T09:30:00Z`). */
export const Timestamp = z.iso.datetime({ offset: true });

/**
 * A required text member of an edit, its own words for a member left out, as for one left blank
 * (a form leaves an empty field out): "Enter a name.", never the schema library's wording.
 */
export const requiredText = (missing: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? missing : undefined) });

export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'Use an ISO 4217 code like EUR.');

export const Money = z
  .looseObject({
    amount: z.string().regex(/^-?\d+(\.\d+)?$/, 'Use a decimal string like -12.30.'),
    currency: CurrencyCode,
  })
  .meta({
    id: 'Money',
    description:
      'Amount as a decimal string in major units, sign included (money leaving the wallet is negative).',
  });
export type Money = z.infer<typeof Money>;

export const ApiErrorItem = z.looseObject({
  code: z.string(),
  message: z.string(),
  field: z.string().optional(),
});
export type ApiErrorItem = z.infer<typeof ApiErrorItem>;

export const ApiErrorBody = z.looseObject({ errors: z.array(ApiErrorItem).min(1) }).meta({
  id: 'Error',
  description: 'Every error answer: at least one item; `field` names the public request field at fault.',
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

export const TokenResponse = z
  .looseObject({
    access_token: z.string().min(1),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().positive(),
    scope: z.string(),
  })
  .meta({ id: 'TokenResponse' });
export type TokenResponse = z.infer<typeof TokenResponse>;

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export const PaginationMeta = z
  .looseObject({
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1),
    totalItems: z.number().int().min(0),
    totalPages: z.number().int().min(0),
    hasMore: z.boolean(),
  })
  .meta({ id: 'PaginationMeta' });
export type PaginationMeta = z.infer<typeof PaginationMeta>;

/** `{ data: [...], meta: { pagination } }`, the envelope of every paginated list. */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.looseObject({ data: z.array(item), meta: z.looseObject({ pagination: PaginationMeta }) });
}

/** Pagination member of search bodies. Pages count from 1. */
export const SearchPagination = z.strictObject({
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});

export const SortDirection = z.enum(['ASC', 'DESC']);

/** A whole number from 1 as a query string; a value of another shape is one error, not a range error too. */
const wholeFromOne = () =>
  z.string().regex(/^[1-9]\d*$/, { message: 'Use a whole number from 1.', abort: true });

/**
 * Query parameters of GET lists: `page`, `page_size` (strings on the wire). `page` has the
 * range of the search bodies' page (a page past the end is empty, however far).
 */
export const PageQuery = {
  page: wholeFromOne()
    .refine((value) => Number.isSafeInteger(Number(value)), `At most ${Number.MAX_SAFE_INTEGER}.`)
    .optional(),
  page_size: wholeFromOne()
    .refine((value) => Number(value) <= MAX_PAGE_SIZE, `At most ${MAX_PAGE_SIZE}.`)
    .optional(),
};

/** A bound of a temporal filter: a date (`2026-03-31`) or a timestamp with offset. */
const TIME_BOUND = 'Use a date like 2026-03-31 or a timestamp with offset like 2026-03-31T09:30:00Z.';
// The message sits on both: a value that cannot be a date fails with the timestamp's issue alone.
export const TimeBound = z.union([IsoDate, z.iso.datetime({ offset: true, error: TIME_BOUND })], {
  error: TIME_BOUND,
});

export const UpdateTimeQuery = {
  update_time__gte: TimeBound.optional(),
  update_time__lte: TimeBound.optional(),
};

/** Error codes the API answers with (upper snake case). Resource-specific codes live beside their resource. */
export const ErrorCodes = {
  VALIDATION_ERROR: 'A request field is missing or invalid; `field` names it.',
  INVALID_JSON: 'The body is not well-formed JSON.',
  UNAUTHORIZED: 'No bearer token, or an invalid or expired one.',
  FORBIDDEN: 'The token lacks the scope the operation needs.',
  NOT_FOUND: 'No such path or record.',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method; `Allow` lists the methods.',
  NOT_ACCEPTABLE: 'The `Accept` header excludes every media type the operation can answer with.',
  GONE: 'A retired operation.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not JSON (form-encoded for the token endpoint).',
  PAYLOAD_TOO_LARGE: 'The body is larger than the server accepts.',
  RANGE_NOT_SATISFIABLE: 'The `Range` lies outside the file.',
  RATE_LIMITED: 'The scope bucket is empty until the window resets; see `Retry-After`.',
  INTERNAL_ERROR: 'A server fault.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable; retry later.',
  INVALID_CLIENT: 'Token endpoint: unknown client id or wrong secret (OAuth `error`: invalid_client).',
  INVALID_REQUEST: 'Token endpoint: a required form field is missing (OAuth `error`: invalid_request).',
  UNSUPPORTED_GRANT_TYPE: 'Token endpoint: only client_credentials (OAuth `error`: unsupported_grant_type).',
  INVALID_SCOPE: 'Token endpoint: scope must be read, write or "read write" (OAuth `error`: invalid_scope).',
} as const;
export type ErrorCode = keyof typeof ErrorCodes;
