import type { Handler } from '../http/server';
import { byId, byUpdateTime, pageOf, within, type RouteContext } from './context';

type Ops =
  | 'listExpenses'
  | 'listExpenseAccounts'
  | 'getExpenseAccount'
  | 'listTaxRates'
  | 'getTaxRate'
  | 'listUsers'
  | 'getUser'
  | 'listTeams'
  | 'getTeam'
  | 'listDepartments'
  | 'getDepartment'
  | 'listPaymentTerms'
  | 'getPaymentTerm'
  | 'issueToken'
  | 'getOpenApi';

/** Expenses, the reference lists, the token endpoint and the OpenAPI document. */
export function referenceHandlers(context: RouteContext): Record<Ops, Handler> {
  const { state } = context;
  const { reference } = state;
  const taxRates = () => reference.taxRates.map(({ basisPoints: _basisPoints, ...rate }) => rate);
  return {
    issueToken: ({ body, request, reply }) => {
      const result = context.auth.issue(body as Record<string, string>, request.headers.authorization);
      if ('apiFailure' in result) throw result;
      // RFC 6749 §5.1: an answer carrying a token must not be stored by any cache.
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return result;
    },
    getOpenApi: () => context.openapi(),
    listExpenses: ({ query }) =>
      pageOf(byUpdateTime(within(state.expenses, (e) => e.updateTime, query, 'update_time')), query),
    listExpenseAccounts: ({ query }) => pageOf(reference.expenseAccounts, query),
    getExpenseAccount: ({ params }) =>
      byId(reference.expenseAccounts, params.expenseAccountId, 'Expense account'),
    listTaxRates: ({ query }) =>
      pageOf(
        taxRates().filter((rate) => !query.type || rate.type === query.type),
        query,
      ),
    getTaxRate: ({ params }) => byId(taxRates(), params.taxRateId, 'Tax rate'),
    listUsers: ({ query }) => pageOf(reference.users, query),
    getUser: ({ params }) => byId(reference.users, params.userId, 'User'),
    listTeams: ({ query }) => pageOf(reference.teams, query),
    getTeam: ({ params }) => byId(reference.teams, params.teamId, 'Team'),
    listDepartments: ({ query }) => pageOf(reference.departments, query),
    getDepartment: ({ params }) => byId(reference.departments, params.departmentId, 'Department'),
    listPaymentTerms: ({ query }) => pageOf(reference.paymentTerms, query),
    getPaymentTerm: ({ params }) => byId(reference.paymentTerms, params.paymentTermId, 'Payment term'),
  };
}
