import { z } from 'zod';
import {
  DimensionErrorCodes,
  ErrorCodes,
  SupplierErrorCodes,
  operations,
  type Operation,
} from '../src-shared/api';

/**
 * The OpenAPI 3.1 document, generated from the operation catalogue and the shared zod
 * schemas, so it cannot drift from what the sandbox does. It also writes down the wire
 * conventions the published spec leaves open (envelopes, headers, error codes).
 */

const RATE_HEADERS = {
  'X-RateLimit-Limit': 'Maximum requests in the current window for the scope used.',
  'X-RateLimit-Remaining': 'Requests remaining in the current window.',
  'X-RateLimit-Reset': 'Unix time in seconds (UTC) at which the window resets.',
  'X-RateLimit-Scope': 'Scope bucket the limit applies to: read or write.',
} as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const clean = (schema: Record<string, unknown>): Record<string, unknown> => {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
};
const inline = (schema: z.ZodType): Record<string, unknown> =>
  clean(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);

function headersRef(extra: string[] = []): Record<string, unknown> {
  return Object.fromEntries(
    [...Object.keys(RATE_HEADERS), ...extra].map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
}

function errorResponse(description: string, extraHeaders: string[] = []) {
  return {
    description,
    headers: headersRef(extraHeaders),
    content: { 'application/json': { schema: ref('Error') } },
  };
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request: `field` names the member at fault.',
  401: 'Missing, invalid or expired bearer token.',
  403: 'The token lacks the scope.',
  404: 'No such record.',
  405: 'Method not allowed; see `Allow`.',
  406: "The Accept header excludes the answer's media type.",
  410: 'Retired operation.',
  413: 'Body too large.',
  415: 'Body media type not supported.',
  416: 'Range not satisfiable.',
  429: 'Rate limited; see `Retry-After`.',
  500: 'Server fault.',
  503: 'Temporarily unavailable.',
};

function successResponse(operation: Operation): Record<string, unknown> {
  if (operation.response === 'gone') return {};
  if (operation.response === 'file') {
    const binary = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
    const content = { 'image/png': binary, 'application/pdf': binary };
    const fileHeaders = { ...headersRef(['ETag', 'Content-Length', 'Accept-Ranges']) };
    return {
      200: { description: 'The whole file.', headers: fileHeaders, content },
      206: {
        description: 'The requested byte range.',
        headers: { ...fileHeaders, ...headersRef(['Content-Range']) },
        content,
      },
      304: { description: 'Not modified (If-None-Match matched the ETag).', headers: headersRef(['ETag']) },
    };
  }
  const id = (z.globalRegistry.get(operation.response) as { id?: string } | undefined)?.id;
  const schema = id ? ref(id) : inline(operation.response);
  return {
    [operation.status ?? 200]: {
      description: 'Success.',
      headers: headersRef(),
      content: { 'application/json': { schema } },
    },
  };
}

function parameters(operation: Operation): unknown[] {
  const path = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  const query = Object.entries(operation.query?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: !(schema as z.ZodType).safeParse(undefined).success,
    schema: inline(schema as z.ZodType),
  }));
  return [...path, ...query];
}

function codesFor(id: string): Record<string, string> {
  if (/Supplier/.test(id) && /create|update/.test(id)) return SupplierErrorCodes;
  if (/Dimension/.test(id) && /create|update/.test(id)) return DimensionErrorCodes;
  return {};
}

function operationObject(id: string, operation: Operation): Record<string, unknown> {
  const statuses = new Set<number>([...(operation.errors ?? []), 405, 406, 429, 500, 503]);
  if (operation.scope) [401, 403].forEach((s) => statuses.add(s));
  if (operation.body) [400, 413, 415].forEach((s) => statuses.add(s));
  const responses: Record<string, unknown> = { ...successResponse(operation) };
  for (const status of [...statuses].sort()) {
    responses[status] = errorResponse(
      ERROR_TEXT[status] ?? 'Error.',
      status === 429 ? ['Retry-After'] : status === 405 ? ['Allow'] : [],
    );
  }
  const codes = codesFor(id);
  const body =
    id === 'issueToken'
      ? {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                description:
                  'client_id and client_secret are required unless the client authenticates with Authorization: Basic (RFC 6749 §2.3.1); sending a client_secret with Basic is 400 invalid_request, and so is any of these fields given more than once (RFC 6749 §3.2).',
                required: ['grant_type'],
                properties: {
                  grant_type: { const: 'client_credentials' },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                  scope: { type: 'string', enum: ['read', 'write', 'read write'] },
                },
              },
            },
          },
        }
      : operation.body
        ? {
            required: true,
            content: {
              'application/json': {
                schema: ref((z.globalRegistry.get(operation.body) as { id: string }).id),
              },
            },
          }
        : undefined;
  return {
    operationId: id,
    summary: operation.summary,
    ...(Object.keys(codes).length
      ? {
          description: `Error codes:\n${Object.entries(codes)
            .map(([code, text]) => `- \`${code}\`: ${text}`)
            .join('\n')}`,
          'x-error-codes': Object.keys(codes),
        }
      : {}),
    security: operation.scope ? [{ oauth2: [operation.scope] }] : [],
    ...(operation.response === 'gone' ? { deprecated: true } : {}),
    parameters: parameters(operation),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, operation] of Object.entries(operations) as [string, Operation][]) {
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(id, operation);
  }
  const all = z.toJSONSchema(z.globalRegistry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  const schemas = Object.fromEntries(
    Object.entries(all.schemas).map(([name, schema]) => [name, clean(schema)]),
  );
  schemas.Error = {
    ...schemas.Error,
    description: `Every error answer. Codes:\n${Object.entries(ErrorCodes)
      .map(([code, text]) => `- \`${code}\`: ${text}`)
      .join('\n')}`,
  };
  const headerSchema = (description: string, type = 'integer') => ({ description, schema: { type } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Spend API (Satchel sandbox)',
      version: '1.44.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Expense and spend-management interface, as implemented by the Satchel sandbox. Money is { amount: decimal string, currency: ISO 4217 }; dates YYYY-MM-DD; timestamps ISO 8601 UTC. Lists answer { data, meta: { pagination } }.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas,
      headers: {
        'X-RateLimit-Limit': headerSchema(RATE_HEADERS['X-RateLimit-Limit']),
        'X-RateLimit-Remaining': headerSchema(RATE_HEADERS['X-RateLimit-Remaining']),
        'X-RateLimit-Reset': headerSchema(RATE_HEADERS['X-RateLimit-Reset']),
        'X-RateLimit-Scope': {
          description: RATE_HEADERS['X-RateLimit-Scope'],
          schema: { type: 'string', enum: ['read', 'write'] },
        },
        'Retry-After': headerSchema('Seconds to wait before retrying.'),
        Allow: headerSchema('Methods the path supports.', 'string'),
        ETag: headerSchema('Quoted sha256 of the file.', 'string'),
        'Content-Length': headerSchema('Bytes in the body.'),
        'Content-Range': headerSchema('bytes start-end/size, or bytes */size on 416.', 'string'),
        'Accept-Ranges': headerSchema('Always bytes.', 'string'),
      },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          flows: {
            clientCredentials: {
              tokenUrl: '/oauth2/token',
              scopes: {
                read: 'Read data (GET and search-query).',
                write: 'Create and update suppliers, dimensions and items.',
              },
            },
          },
        },
      },
    },
  };
}
