import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Scope } from '../../src-shared/api';
import { failure, type ApiFailure } from './errors';

/**
 * OAuth 2.0 client credentials with one API key. Tokens are opaque random strings kept in
 * memory with their scopes and expiry; the sandbox forgets them when it stops.
 */

export interface Grant {
  clientId: string;
  scopes: Set<Scope>;
  expiresAtMs: number;
}

export interface Auth {
  /** The one API key every token belongs to (the key of its rate-limit buckets). */
  readonly clientId: string;
  /**
   * A token for the client authenticated either by the form's `client_id` and `client_secret`
   * or by `Authorization: Basic` (RFC 6749 §2.3.1), never by both at once.
   */
  issue(
    form: Record<string, string | undefined>,
    authorization?: string,
  ): { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } | ApiFailure;
  verify(authorization: string | undefined): Grant | ApiFailure;
  expireAll(): void;
  /**
   * The organisation replaces its API key's secret: the old one is refused from now on and
   * every token issued with it is invalid.
   */
  replaceSecret(secret: string): void;
}

export interface AuthOptions {
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds: number;
  now: () => number;
}

function oauthFailure(status: number, error: string, message: string, field?: string): ApiFailure {
  const code = error.toUpperCase();
  const value = failure(
    status,
    code,
    message,
    field,
    status === 401 ? { 'www-authenticate': 'Basic realm="token"' } : undefined,
  );
  return { ...value, extra: { error, error_description: message } };
}

/** The parameters the token endpoint reads; any other is ignored (RFC 6749 §3.2). */
const TOKEN_PARAMETERS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;

/**
 * A token request's form body as its fields, or its failure: a parameter the endpoint reads
 * may come only once (RFC 6749 §3.2), so none of its values is silently chosen over another.
 */
export function tokenForm(body: string): Record<string, string> | ApiFailure {
  const params = new URLSearchParams(body);
  for (const name of TOKEN_PARAMETERS) {
    if (params.getAll(name).length > 1)
      return oauthFailure(400, 'invalid_request', `${name} is given more than once.`, name);
  }
  return Object.fromEntries(params);
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `read`, `write` or both, space-separated in any order; nothing means read. */
function parseScope(value: string | undefined): Set<Scope> | null {
  const words = (value ?? 'read').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return new Set(['read']);
  if (!words.every((word) => word === 'read' || word === 'write')) return null;
  return new Set(words as Scope[]);
}

/** RFC 6749 Appendix B: `+` is a space, then percent-decoding as UTF-8; null if malformed. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * The client credentials of an `Authorization: Basic` header: base64 of the form-urlencoded id
 * and secret joined by the first colon. Undefined without a Basic header; null when its
 * credentials cannot be read.
 */
function basicCredentials(
  authorization: string | undefined,
): { id: string; secret: string } | null | undefined {
  const match = /^Basic(?:\s+(\S*))?\s*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const encoded = match[1] ?? '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id && secret !== null ? { id, secret } : null;
}

/** The client id and secret of a token request, from the form or from Basic, or its failure. */
function clientCredentials(
  form: Record<string, string | undefined>,
  authorization: string | undefined,
): { id: string; secret: string } | ApiFailure {
  const basic = basicCredentials(authorization);
  if (basic === undefined) {
    for (const field of ['client_id', 'client_secret'] as const) {
      if (!form[field]) return oauthFailure(400, 'invalid_request', `${field} is required.`, field);
    }
    return { id: form.client_id ?? '', secret: form.client_secret ?? '' };
  }
  if (basic === null)
    return oauthFailure(
      401,
      'invalid_client',
      'Authorization: Basic must hold base64 of the form-urlencoded client id and secret joined by ":".',
    );
  // RFC 6749 §2.3: one authentication method per request.
  if (form.client_secret !== undefined)
    return oauthFailure(
      400,
      'invalid_request',
      'Send the client secret either in Authorization: Basic or as client_secret, not both.',
      'client_secret',
    );
  // A client_id beside Basic only identifies the client (§3.2.1); it must be the same one.
  if (form.client_id !== undefined && form.client_id !== basic.id)
    return oauthFailure(
      400,
      'invalid_request',
      'client_id differs from the client id in Authorization: Basic.',
      'client_id',
    );
  return basic;
}

export function createAuth(options: AuthOptions): Auth {
  const tokens = new Map<string, Grant>();
  let clientSecret = options.clientSecret;
  return {
    clientId: options.clientId,
    issue(form, authorization) {
      if (!form.grant_type)
        return oauthFailure(400, 'invalid_request', 'grant_type is required.', 'grant_type');
      const client = clientCredentials(form, authorization);
      if ('apiFailure' in client) return client;
      if (form.grant_type !== 'client_credentials') {
        return oauthFailure(
          400,
          'unsupported_grant_type',
          'Only grant_type=client_credentials is supported.',
          'grant_type',
        );
      }
      if (client.id !== options.clientId || !sameSecret(client.secret, clientSecret)) {
        return oauthFailure(401, 'invalid_client', 'Unknown client id or wrong client secret.');
      }
      const scopes = parseScope(form.scope);
      if (!scopes)
        return oauthFailure(400, 'invalid_scope', 'scope must be read, write or "read write".', 'scope');
      const accessToken = `sbx_${randomBytes(24).toString('base64url')}`;
      tokens.set(accessToken, {
        clientId: options.clientId,
        scopes,
        expiresAtMs: options.now() + options.tokenTtlSeconds * 1000,
      });
      const scope = (['read', 'write'] as const).filter((s) => scopes.has(s)).join(' ');
      return { access_token: accessToken, token_type: 'Bearer', expires_in: options.tokenTtlSeconds, scope };
    },
    verify(authorization) {
      const challenge = (error: string) => ({
        'www-authenticate': `Bearer realm="spend-api"${error ? `, error="${error}"` : ''}`,
      });
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (!match)
        return failure(
          401,
          'UNAUTHORIZED',
          'Send Authorization: Bearer <access_token>; get a token from POST /oauth2/token.',
          undefined,
          challenge(''),
        );
      const grant = tokens.get(match[1] ?? '');
      if (!grant)
        return failure(
          401,
          'UNAUTHORIZED',
          'The access token is not valid. Get a new one from POST /oauth2/token.',
          undefined,
          challenge('invalid_token'),
        );
      if (options.now() >= grant.expiresAtMs) {
        tokens.delete(match[1] ?? '');
        return failure(
          401,
          'UNAUTHORIZED',
          'The access token has expired. Get a new one from POST /oauth2/token.',
          undefined,
          challenge('invalid_token'),
        );
      }
      return grant;
    },
    expireAll() {
      tokens.clear();
    },
    replaceSecret(secret) {
      clientSecret = secret;
      tokens.clear();
    },
  };
}
