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
  issue(
    form: Record<string, string | undefined>,
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

export function createAuth(options: AuthOptions): Auth {
  const tokens = new Map<string, Grant>();
  let clientSecret = options.clientSecret;
  return {
    clientId: options.clientId,
    issue(form) {
      for (const field of ['grant_type', 'client_id', 'client_secret'] as const) {
        if (!form[field]) return oauthFailure(400, 'invalid_request', `${field} is required.`, field);
      }
      if (form.grant_type !== 'client_credentials') {
        return oauthFailure(
          400,
          'unsupported_grant_type',
          'Only grant_type=client_credentials is supported.',
          'grant_type',
        );
      }
      if (form.client_id !== options.clientId || !sameSecret(form.client_secret ?? '', clientSecret)) {
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
