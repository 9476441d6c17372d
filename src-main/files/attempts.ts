import { ConnectionResetError } from '../api/client';
import { backoffMs } from '../api/retry';
import { AppError } from '../../src-shared/errors';
import { IntegrityError, TransferError } from './fetch';

/**
 * How often one file is tried, by a bulk download and by the keep-offline fill alike, when its
 * trouble is the file's own and another attempt may cure it: a body cut off or damaged, a
 * connection reset before the answer, a server error. The `.part` file a cut body left is
 * continued by the next attempt. Trouble that concerns every file (no network, credentials
 * refused) is not retried file by file: see `stopsEveryFile`.
 */

/** Attempts at one file before it is given up on. */
export const FILE_ATTEMPTS = 3;

/** Whether another attempt at the file may succeed. */
export function retriesFile(error: unknown): boolean {
  return (
    error instanceof IntegrityError ||
    error instanceof TransferError ||
    error instanceof ConnectionResetError ||
    (error instanceof AppError && (error.code === 'SERVER_ERROR' || error.code === 'CONNECTION_RESET'))
  );
}

/** The wait before the next attempt, after `attempts` (1 or more) failed. */
export function fileRetryDelayMs(attempts: number, random: () => number = Math.random): number {
  return backoffMs(attempts - 1, random, 200, 5000);
}

/**
 * The reason kept with a file given up on after `attempts`: what went wrong, not that it will
 * be retried.
 */
export function givenUpReason(error: unknown, attempts: number): string {
  const problem =
    error instanceof IntegrityError || error instanceof TransferError || error instanceof ConnectionResetError
      ? error.problem
      : error instanceof Error
        ? error.message
        : String(error);
  return attempts > 1 ? `${problem} (gave up after ${attempts} attempts).` : problem;
}
