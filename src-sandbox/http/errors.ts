import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import type { ApiErrorItem } from '../../src-shared/api';

/**
 * Every failure leaves the server as `{ errors: [{ code, message, field? }] }`. Handlers and
 * hooks throw an ApiFailure; the error handler turns it (and anything Fastify raises) into
 * that body, so no stack trace or framework message ever reaches a client.
 */

export interface ApiFailure {
  readonly apiFailure: true;
  status: number;
  errors: ApiErrorItem[];
  headers?: Record<string, string>;
  /** Extra top-level members (the token endpoint adds the OAuth `error`). */
  extra?: Record<string, string>;
}

export function failure(
  status: number,
  code: string,
  message: string,
  field?: string,
  headers?: Record<string, string>,
): ApiFailure {
  return {
    apiFailure: true,
    status,
    errors: [field === undefined ? { code, message } : { code, message, field }],
    ...(headers ? { headers } : {}),
  };
}

export function isFailure(value: unknown): value is ApiFailure {
  return (
    typeof value === 'object' && value !== null && (value as { apiFailure?: unknown }).apiFailure === true
  );
}

export const notFound = (what: string): ApiFailure => failure(404, 'NOT_FOUND', `${what} was not found.`);

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

/** Whether the member at `path` is absent from `input` (zod 4 issues do not carry the value). */
function isMissing(input: unknown, path: PropertyKey[]): boolean {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return true;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
}

/**
 * A zod failure of `input` as a 400 naming the public field: `pagination.pageSize`, `code`, an
 * unknown member. A missing member is "Required."; one of the wrong type says what was expected.
 */
export function validationFailure(
  error: z.ZodError,
  input: unknown,
  codeFor: (field: string, issue: z.core.$ZodIssue) => string = () => 'VALIDATION_ERROR',
): ApiFailure {
  const errors = error.issues.map((issue): ApiErrorItem => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const field = [...path, issue.keys[0] ?? ''].join('.');
      return { code: codeFor(field, issue), message: `Unknown field ${issue.keys.join(', ')}.`, field };
    }
    const field = path.join('.');
    const message =
      issue.code !== 'invalid_type'
        ? issue.message
        : isMissing(input, issue.path)
          ? 'Required.'
          : EXPECTED[issue.expected]
            ? `Expected ${EXPECTED[issue.expected]}.`
            : issue.message;
    const code = codeFor(field, issue);
    return field ? { code, message, field } : { code, message };
  });
  return { apiFailure: true, status: 400, errors };
}

export function sendFailure(reply: FastifyReply, value: ApiFailure): FastifyReply {
  if (value.headers) reply.headers(value.headers);
  return reply
    .code(value.status)
    .type('application/json; charset=utf-8')
    .send({ errors: value.errors, ...(value.extra ?? {}) });
}

/**
 * Documented codes of supplier and dimension writes: which field failed and how, so a client
 * can show the message on the right field without parsing text.
 */
export function writeErrorCode(field: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return 'UNKNOWN_FIELD';
  const tooLong = issue.code === 'too_big';
  if (field === 'name') return tooLong ? 'NAME_TOO_LONG' : 'NAME_REQUIRED';
  if (field === 'code') return tooLong ? 'CODE_TOO_LONG' : 'CODE_REQUIRED';
  if (field === 'status') return 'INVALID_STATUS';
  return 'VALIDATION_ERROR';
}
