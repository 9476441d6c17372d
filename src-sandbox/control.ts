import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  type OperationId,
  CurrencyCode,
  ExpenseStatus,
  Id,
  IsoDate,
  SupplierStatus,
  TransactionType,
  type BankTransaction,
  type Expense,
  type Supplier,
} from '../src-shared/api';
import { MoneyError, parseAmount } from '../src-shared/money';
import { TYPES } from './data/columns';
import type { FileReplacement, State } from './data/state';
import { dayFromIso, isoFromSeconds } from './data/time';
import type { Auth } from './http/auth';
import { Corruption, type Corruptions } from './http/corruptions';
import { failure, notFound, validationFailure } from './http/errors';
import { FaultRule, type Faults } from './http/faults';
import type { RateLimiter } from './http/rate-limit';
import type { RequestLogEntry } from './http/server';

/**
 * The test-control surface: changes data as time passes and injects faults. It is an
 * in-process handle, and — only when the sandbox starts with `control: true` — the same
 * operations over HTTP under /__control (404 otherwise). It is not part of the spend API:
 * no token, no rate limit, no rate-limit headers.
 */

export const NewTransaction = z.strictObject({
  bankAccountId: Id,
  transactionType: TransactionType.default('CARD'),
  /** Total in the account's currency, fees included; negative leaves the wallet. */
  amount: z.string(),
  bookingDate: IsoDate,
  valueDate: IsoDate.optional(),
  counterparty: z.string().min(1).max(200),
  bankAccountNumber: z.string().max(50).optional(),
  matched: z.boolean().default(false),
  fxFee: z.string().optional(),
  paymentFee: z.string().optional(),
});
export type NewTransaction = z.input<typeof NewTransaction>;

export const SupplierChange = z.strictObject({
  name: z.string().min(1).optional(),
  number: z.string().min(1).optional(),
  status: SupplierStatus.optional(),
  vatIdNo: z.string().nullable().optional(),
  currency: CurrencyCode.optional(),
});
export const ExpenseChange = z.strictObject({
  status: ExpenseStatus.optional(),
  description: z.string().optional(),
  bookingText: z.string().optional(),
  /** The bank transaction the expense documents; null unlinks it. */
  bankTransactionId: Id.nullable().optional(),
  /** New descriptions of some of the expense's lines, by line id. */
  lines: z.array(z.strictObject({ id: Id, description: z.string() })).optional(),
});

export const FileChange = z.strictObject({
  contentBase64: z.base64(),
  name: z.string().min(1).max(255).optional(),
  mimeType: z.string().min(1).max(255).optional(),
});

export interface Control {
  addTransaction(input: NewTransaction): BankTransaction;
  deleteTransaction(id: string): void;
  setMatched(id: string, matched: boolean): BankTransaction;
  updateSupplier(id: string, change: z.input<typeof SupplierChange>): Supplier;
  updateExpense(id: string, change: z.input<typeof ExpenseChange>): Expense;
  addFault(rule: z.input<typeof FaultRule>): string;
  /** How many requests the fault rule has hit: a test waits for a request to arrive. */
  faultFired(id: string): number;
  clearFaults(): void;
  /**
   * Serves the record with `patch` merged over it (any JSON, e.g. an amount with too many
   * decimals or `matched: 'yes'`) every time it is served, until `clearCorruptions`.
   */
  corruptRecord(corruption: Corruption): void;
  clearCorruptions(): void;
  setErpSupplierNumbers(on: boolean): void;
  /**
   * Serves the expense file with these bytes (and name and type, when given) from now on, its
   * size and sha256 following: receipts that are not what they claim to be. Seeded before a
   * sync, the client's record agrees with the bytes, as when such a file was uploaded.
   */
  replaceFile(id: string, replacement: FileReplacement): void;
  /**
   * Every API request that passed authentication, the rate limit and the scope check, oldest
   * first (the last 200,000), optionally only those of one operation.
   */
  requests(operationId?: OperationId): RequestLogEntry[];
  clearRequests(): void;
  expireTokens(): void;
  /**
   * The API key's secret is replaced (as when an administrator revokes a leaked one): the old
   * secret is refused and every token is invalid.
   */
  replaceClientSecret(secret: string): void;
  resetRateLimits(): void;
}

export interface RequestLog {
  add(entry: RequestLogEntry): void;
  entries(): RequestLogEntry[];
  clear(): void;
}

const REQUEST_LOG_SIZE = 200_000;

export function createRequestLog(): RequestLog {
  let log: RequestLogEntry[] = [];
  return {
    add(entry) {
      log.push(entry);
      if (log.length > REQUEST_LOG_SIZE * 1.25) log = log.slice(-REQUEST_LOG_SIZE);
    },
    entries: () => log.slice(-REQUEST_LOG_SIZE),
    clear: () => {
      log = [];
    },
  };
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailure(parsed.error, value);
  return parsed.data;
}

function minor(value: string | undefined, currency: string, field: string): number {
  if (value === undefined) return 0;
  try {
    const result = parseAmount(value, currency);
    if (Math.abs(result) > 2_000_000_000) throw new MoneyError(`${value} is too large for the sandbox.`);
    return result;
  } catch (error) {
    throw failure(400, 'VALIDATION_ERROR', (error as Error).message, field);
  }
}

export function createControl(
  state: State,
  parts: {
    faults: Faults;
    corruptions: Corruptions;
    auth: Auth;
    limiter: RateLimiter;
    now: () => number;
    requestLog: RequestLog;
  },
): Control {
  const { table } = state;
  const nowSec = () => Math.floor(parts.now() / 1000);
  const row = (id: string): number => {
    const found = table.rowOf(id);
    if (found < 0 || table.columns().deleted[found] === 1) throw notFound('Bank transaction');
    return found;
  };
  return {
    addTransaction(raw) {
      const input = parse(NewTransaction, raw);
      const account = table.wallets.findIndex((w) => w.id === input.bankAccountId.toLowerCase());
      if (account < 0) throw failure(400, 'VALIDATION_ERROR', 'Unknown bank account.', 'bankAccountId');
      const wallet = table.wallets[account]!;
      const bookingDay = dayFromIso(input.bookingDate);
      const lag = input.valueDate ? bookingDay - dayFromIso(input.valueDate) : 0;
      if (lag < 0 || lag > 255)
        throw failure(
          400,
          'VALIDATION_ERROR',
          'valueDate must be on or up to 255 days before bookingDate.',
          'valueDate',
        );
      const created = table.append({
        type: TYPES.indexOf(input.transactionType),
        account,
        bookingDay,
        valueLag: lag,
        amount: minor(input.amount, wallet.currency, 'amount'),
        fxFee: minor(input.fxFee, wallet.currency, 'fxFee'),
        paymentFee: minor(input.paymentFee, wallet.currency, 'paymentFee'),
        original: 0,
        merchantCurrency: 0,
        counterparty: input.counterparty,
        bankAccountNumber: input.bankAccountNumber ?? wallet.accountNumber,
        group: -1,
        matched: input.matched,
        createSec: nowSec(),
        idPrefix: randomBytes(4).readUInt32BE(0),
      });
      return table.toRecord(created);
    },
    deleteTransaction(id) {
      table.remove(row(id), nowSec());
    },
    setMatched(id, matched) {
      const found = row(id);
      table.setMatched(found, matched, nowSec());
      return table.toRecord(found);
    },
    updateSupplier(id, raw) {
      const change = parse(SupplierChange, raw);
      const supplier = state.suppliers.find((s) => s.id === id.toLowerCase());
      if (!supplier) throw notFound('Supplier');
      Object.assign(supplier, change);
      Object.assign(supplier, {
        supplierName: supplier.name,
        supplierNumber: supplier.number,
        updateTime: isoFromSeconds(nowSec()),
      });
      return supplier;
    },
    updateExpense(id, raw) {
      const change = parse(ExpenseChange, raw);
      const expense = state.expenses.find((e) => e.id === id.toLowerCase());
      if (!expense) throw notFound('Expense');
      if (change.bankTransactionId) {
        row(change.bankTransactionId); // a live transaction of this organisation
        change.bankTransactionId = change.bankTransactionId.toLowerCase();
      }
      const { lines, ...fields } = change;
      // Every line is checked before any is changed: a refused change changes nothing.
      const changedLines = (lines ?? []).map(({ id: lineId, description }) => {
        const line = expense.lines.find((l) => l.id === lineId.toLowerCase());
        if (!line) throw notFound('Expense line');
        return { line, description };
      });
      for (const { line, description } of changedLines) line.description = description;
      Object.assign(expense, fields, { updateTime: isoFromSeconds(nowSec()) });
      return expense;
    },
    addFault: (rule) => parts.faults.add(parse(FaultRule, rule)),
    faultFired: (id) => parts.faults.fired(id),
    clearFaults: () => parts.faults.clear(),
    corruptRecord(raw) {
      const corruption = parse(Corruption, raw);
      const id = corruption.id.toLowerCase();
      const exists =
        corruption.resource === 'bankTransactions'
          ? table.rowOf(id) >= 0
          : corruption.resource === 'expenses'
            ? state.expenses.some((e) => e.id === id)
            : corruption.resource === 'files'
              ? state.files.some((f) => f.id === id)
              : corruption.resource === 'bankAccounts'
                ? state.reference.wallets.some((w) => w.id === id)
                : corruption.resource === 'users'
                  ? state.reference.users.some((u) => u.id === id)
                  : state.suppliers.some((s) => s.id === id);
      if (!exists) throw notFound('Record');
      parts.corruptions.add(corruption);
    },
    clearCorruptions: () => parts.corruptions.clear(),
    setErpSupplierNumbers: (on) => {
      state.options.erpSupplierNumbers = on;
    },
    replaceFile(id, replacement) {
      if (!state.files.some((file) => file.id === id.toLowerCase())) throw notFound('File');
      state.replaceFile(id, replacement);
    },
    requests: (operationId) =>
      operationId
        ? parts.requestLog.entries().filter((entry) => entry.operationId === operationId)
        : parts.requestLog.entries(),
    clearRequests: () => parts.requestLog.clear(),
    expireTokens: () => parts.auth.expireAll(),
    replaceClientSecret: (secret) => parts.auth.replaceSecret(secret),
    resetRateLimits: () => parts.limiter.reset(),
  };
}

/** The control operations over HTTP; returns the routes for the 405 check. */
export function registerControlRoutes(
  app: FastifyInstance,
  control: Control,
  faults: Faults,
): { method: string; path: string }[] {
  const json = (body: unknown): unknown => {
    if (!(body instanceof Buffer) || body.length === 0) return {};
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw failure(400, 'INVALID_JSON', 'The body is not well-formed JSON.');
    }
  };
  const routes: [string, string, (params: Record<string, string>, body: unknown) => unknown, number][] = [
    ['POST', '/__control/transactions', (_p, body) => control.addTransaction(body as NewTransaction), 201],
    ['DELETE', '/__control/transactions/:id', (p) => control.deleteTransaction(p.id ?? ''), 204],
    [
      'PUT',
      '/__control/transactions/:id/matched',
      (p, body) =>
        control.setMatched(p.id ?? '', parse(z.strictObject({ matched: z.boolean() }), body).matched),
      200,
    ],
    [
      'PATCH',
      '/__control/suppliers/:id',
      (p, body) => control.updateSupplier(p.id ?? '', body as object),
      200,
    ],
    ['PATCH', '/__control/expenses/:id', (p, body) => control.updateExpense(p.id ?? '', body as object), 200],
    ['POST', '/__control/faults', (_p, body) => ({ id: control.addFault(body as FaultRule) }), 201],
    ['GET', '/__control/faults', () => ({ data: faults.list() }), 200],
    ['GET', '/__control/requests', () => ({ data: control.requests() }), 200],
    ['DELETE', '/__control/requests', () => control.clearRequests(), 204],
    [
      'POST',
      '/__control/corruptions',
      (_p, body) => {
        control.corruptRecord(body as Corruption);
        return body;
      },
      201,
    ],
    ['DELETE', '/__control/corruptions', () => control.clearCorruptions(), 204],
    [
      'PUT',
      '/__control/files/:id',
      (p, body) => {
        const { contentBase64, ...rest } = parse(FileChange, body);
        control.replaceFile(p.id ?? '', { ...rest, content: Buffer.from(contentBase64, 'base64') });
      },
      204,
    ],
    ['DELETE', '/__control/faults', () => control.clearFaults(), 204],
    ['POST', '/__control/tokens/expire', () => control.expireTokens(), 204],
    [
      'PUT',
      '/__control/client-secret',
      (_p, body) =>
        control.replaceClientSecret(
          parse(z.strictObject({ clientSecret: z.string().min(1) }), body).clientSecret,
        ),
      204,
    ],
    ['POST', '/__control/rate-limits/reset', () => control.resetRateLimits(), 204],
    [
      'PUT',
      '/__control/settings',
      (_p, body) => {
        const settings = parse(z.strictObject({ erpSupplierNumbers: z.boolean() }), body);
        control.setErpSupplierNumbers(settings.erpSupplierNumbers);
        return settings;
      },
      200,
    ],
  ];
  for (const [method, url, run, status] of routes) {
    app.route({
      method,
      url,
      handler: async (request, reply) => {
        const result = run(request.params as Record<string, string>, json(request.body));
        return status === 204
          ? reply.code(204).send()
          : reply.code(status).type('application/json; charset=utf-8').send(result);
      },
    });
  }
  return routes.map(([method, path]) => ({ method, path }));
}
