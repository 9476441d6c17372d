import { z } from 'zod';
import { ApiErrorBody, PageQuery, TimeBound, TokenResponse, UpdateTimeQuery } from './common';
import {
  BankAccountBalance,
  BankAccountList,
  BankTransactionPage,
  SearchV0Request,
  SearchV1Request,
} from './bank';
import { ExpenseFilePage, ExpensePage, FileSearchRequest } from './expenses';
import { Supplier, SupplierCreate, SupplierPage, SupplierUpdate } from './suppliers';
import {
  Dimension,
  DimensionCreate,
  DimensionItem,
  DimensionItemCreate,
  DimensionItemPage,
  DimensionItemUpdate,
  DimensionPage,
  DimensionUpdate,
} from './dimensions';
import {
  Department,
  DepartmentPage,
  ExpenseAccount,
  ExpenseAccountPage,
  PaymentTerm,
  PaymentTermPage,
  TaxRate,
  TaxRatePage,
  TaxRateType,
  Team,
  TeamPage,
  User,
  UserPage,
} from './reference';

/**
 * The catalogue of every operation: method, path, scope, inputs and answers. The sandbox
 * registers its routes from it and validates with its schemas, the OpenAPI document is
 * generated from it, and the app's client takes its paths from it — one source of truth.
 */

export type Scope = 'read' | 'write';
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';

export interface Operation {
  method: Method;
  /** OpenAPI style: `/v1/suppliers/{supplierId}`. */
  path: string;
  summary: string;
  /** Scope the bearer token needs; null for the token endpoint and the OpenAPI document. */
  scope: Scope | null;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** 200/201 JSON schema; 'file' for raw file bytes; 'gone' for a retired operation. */
  response: z.ZodType | 'file' | 'gone';
  status?: 200 | 201;
  /** Error statuses beyond those every authenticated operation can answer. */
  errors?: number[];
}

const pageQuery = z.strictObject(PageQuery);
const get = (
  path: string,
  summary: string,
  response: z.ZodType,
  query = pageQuery,
  errors: number[] = [400],
): Operation => ({ method: 'GET', path, summary, scope: 'read', query, response, errors });
const getById = (path: string, summary: string, response: z.ZodType): Operation => ({
  method: 'GET',
  path,
  summary,
  scope: 'read',
  response,
  errors: [404],
});

export const operations = {
  issueToken: {
    method: 'POST',
    path: '/oauth2/token',
    scope: null,
    response: TokenResponse,
    errors: [400, 401, 415],
    summary:
      'OAuth 2.0 client credentials: form-encoded grant_type, optional scope (read, write or "read write"; default read), and the client id and secret either as client_id and client_secret or in Authorization: Basic, not both.',
  },
  getOpenApi: {
    method: 'GET',
    path: '/openapi.json',
    scope: null,
    response: z.looseObject({}),
    summary: 'This document (OpenAPI 3.1). No token needed.',
  },
  searchBankTransactionsV1: {
    method: 'POST',
    path: '/v1/bank-transactions/search-query',
    scope: 'read',
    body: SearchV1Request,
    response: BankTransactionPage,
    errors: [400, 415],
    summary:
      'Bank transactions in a booking-date range (both dates required), optionally of some accounts. Default sort bookingDate DESC, ties by id.',
  },
  searchBankTransactionsV0: {
    method: 'POST',
    path: '/v0/bank-transactions/search-query',
    scope: 'read',
    body: SearchV0Request,
    response: BankTransactionPage,
    errors: [400, 415],
    summary:
      'Bank transactions by optional filters combined with AND: ids, booking-date bounds, accountIds, matched, freeText. Default page size 20.',
  },
  listBankAccounts: {
    method: 'GET',
    path: '/v1/bank-accounts',
    scope: 'read',
    response: BankAccountList,
    query: z.strictObject({}),
    errors: [400],
    summary: 'All bank accounts (wallets); not paginated.',
  },
  getBankAccountBalance: getById(
    '/v1/bank-accounts/{bankAccountId}/balance',
    'Balance of one bank account.',
    BankAccountBalance,
  ),
  searchFiles: {
    method: 'POST',
    path: '/v1/files/search-query',
    scope: 'read',
    body: FileSearchRequest,
    response: ExpenseFilePage,
    errors: [400, 415],
    summary:
      'Expense files by expenseIds and/or expenseLineIds; a split line id resolves to its parent line.',
  },
  getFileContent: {
    method: 'GET',
    path: '/v1/files/{fileId}/content',
    scope: 'read',
    response: 'file',
    errors: [404, 416],
    summary:
      'The file bytes with Content-Type, Content-Length, ETag; supports Range (206, 416) and If-None-Match (304).',
  },
  listExpenses: get(
    '/v1/expenses',
    'Expenses ordered by updateTime, then id.',
    ExpensePage,
    z.strictObject({ ...PageQuery, ...UpdateTimeQuery }),
  ),
  listSuppliers: get(
    '/v1/suppliers',
    'Suppliers ordered by updateTime, then id.',
    SupplierPage,
    z.strictObject({
      ...PageQuery,
      ...UpdateTimeQuery,
      create_date__gte: TimeBound.optional(),
      create_date__lte: TimeBound.optional(),
    }),
  ),
  createSupplier: {
    method: 'POST',
    path: '/v1/suppliers',
    scope: 'write',
    body: SupplierCreate,
    response: Supplier,
    status: 201,
    errors: [400, 415],
    summary: 'Create a supplier; status defaults to ACTIVE.',
  },
  getSupplier: getById('/v1/suppliers/{supplierId}', 'One supplier.', Supplier),
  updateSupplier: {
    method: 'PATCH',
    path: '/v1/suppliers/{supplierId}',
    scope: 'write',
    body: SupplierUpdate,
    response: Supplier,
    errors: [400, 404, 415],
    summary: 'Change some fields of a supplier.',
  },
  listDimensions: get('/v1/dimensions', 'Dimensions, deleted ones included.', DimensionPage),
  createDimension: {
    method: 'POST',
    path: '/v1/dimensions',
    scope: 'write',
    body: DimensionCreate,
    response: Dimension,
    status: 201,
    errors: [400, 415],
    summary: 'Create a dimension.',
  },
  getDimension: getById('/v1/dimensions/{dimensionId}', 'One dimension.', Dimension),
  updateDimension: {
    method: 'PATCH',
    path: '/v1/dimensions/{dimensionId}',
    scope: 'write',
    body: DimensionUpdate,
    response: Dimension,
    errors: [400, 404, 415],
    summary: 'Change some fields of a dimension.',
  },
  retiredUpdateDimension: {
    method: 'PUT',
    path: '/v1/dimensions/{dimensionId}',
    scope: 'write',
    response: 'gone',
    errors: [410],
    summary: 'Retired in 1.8.0: use PATCH.',
  },
  listDimensionItems: {
    ...get(
      '/v1/dimensions/{dimensionId}/items',
      'Items of a dimension, deleted ones included.',
      DimensionItemPage,
    ),
    errors: [400, 404],
  },
  createDimensionItem: {
    method: 'POST',
    path: '/v1/dimensions/{dimensionId}/items',
    scope: 'write',
    body: DimensionItemCreate,
    response: DimensionItem,
    status: 201,
    errors: [400, 404, 415],
    summary: 'Create an item; status defaults to ACTIVE.',
  },
  getDimensionItem: getById(
    '/v1/dimensions/{dimensionId}/items/{itemId}',
    'One dimension item.',
    DimensionItem,
  ),
  updateDimensionItem: {
    method: 'PATCH',
    path: '/v1/dimensions/{dimensionId}/items/{itemId}',
    scope: 'write',
    body: DimensionItemUpdate,
    response: DimensionItem,
    errors: [400, 404, 415],
    summary: 'Change some fields of a dimension item.',
  },
  retiredUpdateDimensionItem: {
    method: 'PUT',
    path: '/v1/dimensions/{dimensionId}/items/{itemId}',
    scope: 'write',
    response: 'gone',
    errors: [410],
    summary: 'Retired in 1.8.0: use PATCH.',
  },
  listExpenseAccounts: get('/v1/expense-accounts', 'Expense accounts.', ExpenseAccountPage),
  getExpenseAccount: getById(
    '/v1/expense-accounts/{expenseAccountId}',
    'One expense account.',
    ExpenseAccount,
  ),
  listTaxRates: get(
    '/v1/tax-rates',
    'Tax rates, optionally of one type.',
    TaxRatePage,
    z.strictObject({ ...PageQuery, type: TaxRateType.optional() }),
  ),
  getTaxRate: getById('/v1/tax-rates/{taxRateId}', 'One tax rate.', TaxRate),
  listUsers: get('/v1/users', 'Users.', UserPage),
  getUser: getById('/v1/users/{userId}', 'One user.', User),
  listTeams: get('/v1/teams', 'Teams.', TeamPage),
  getTeam: getById('/v1/teams/{teamId}', 'One team.', Team),
  listDepartments: get('/v1/departments', 'Departments.', DepartmentPage),
  getDepartment: getById('/v1/departments/{departmentId}', 'One department.', Department),
  listPaymentTerms: get('/v1/payment-terms', 'Payment terms.', PaymentTermPage),
  getPaymentTerm: getById('/v1/payment-terms/{paymentTermId}', 'One payment term.', PaymentTerm),
} satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;

/** Error answers share one schema; kept here so the OpenAPI generator and clients agree. */
export const ErrorResponse = ApiErrorBody;
