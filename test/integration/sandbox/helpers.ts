import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src-sandbox/index';
import { sandboxToken } from '../../helpers/sandbox-token';

/** Talks to a real sandbox over HTTP, the way the app's client does. */

/** Answers are asserted field by field in the tests; a loose type keeps them readable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Api {
  sandbox: Sandbox;
  url: string;
  token(scope?: string): Promise<string>;
  /** JSON request with a bearer token (read write unless `token` is given). */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: Json }>;
}

export async function startApi(options: SandboxOptions = {}): Promise<Api> {
  const sandbox = await startSandbox({ transactions: 3000, ...options });
  const tokens = new Map<string, string>();
  const token = async (scope = 'read write'): Promise<string> => {
    const cached = tokens.get(scope);
    if (cached) return cached;
    const value = await sandboxToken(sandbox, scope);
    tokens.set(scope, value);
    return value;
  };
  const call: Api['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.token === undefined ? await token() : options.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return { sandbox, url: sandbox.url, token, call };
}

/** The first error item of a standard error body, asserting the shape on the way. */
export function firstError(body: unknown): { code: string; message: string; field?: string } {
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0)
    throw new Error(`not a standard error body: ${JSON.stringify(body)}`);
  const first = errors[0] as { code: string; message: string; field?: string };
  if (typeof first.code !== 'string' || typeof first.message !== 'string')
    throw new Error('error item without code/message');
  return first;
}

export const RATE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-scope',
];
