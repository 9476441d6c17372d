import type { SearchV0Request, SearchV1Request } from '../../src-shared/api';
import { toMoney } from '../../src-shared/money';
import { searchTransactions, type SearchOptions } from '../search/v0';
import type { Handler } from '../http/server';
import { byId, meta, nowIso, type RouteContext } from './context';

/** Bank accounts, balances and both transaction searches. */
export function bankHandlers(
  context: RouteContext,
): Record<
  'listBankAccounts' | 'getBankAccountBalance' | 'searchBankTransactionsV1' | 'searchBankTransactionsV0',
  Handler
> {
  const { table } = context.state;
  const respond = (options: SearchOptions) => {
    const result = searchTransactions(table, options);
    return { data: result.rows.map(table.toRecord), meta: meta(result.page, result.pageSize, result.total) };
  };
  return {
    listBankAccounts: () => ({
      data: table.wallets.map(({ id, name, currency, fundingType, status, accountNumber }) => ({
        id,
        name,
        currency,
        fundingType,
        status,
        accountNumber,
      })),
    }),
    getBankAccountBalance: ({ params }) => {
      const wallet = byId(table.wallets, params.bankAccountId, 'Bank account');
      const index = table.wallets.indexOf(wallet);
      const c = table.columns();
      let balance = wallet.openingMinor;
      for (let row = 0; row < table.size(); row++) {
        if (c.account[row] === index && c.deleted[row] === 0) balance += c.amount[row] ?? 0;
      }
      return {
        bankAccountId: wallet.id,
        balance: toMoney(balance, wallet.currency),
        availableBalance: toMoney(Math.max(0, balance + wallet.creditLimitMinor), wallet.currency),
        balanceTime: nowIso(context),
      };
    },
    searchBankTransactionsV1: ({ body }) => {
      const { bookingDateFrom, bookingDateTo, accountIds, bankAccountId, pagination, sorting } =
        body as SearchV1Request;
      const accounts = accountIds ?? (bankAccountId ? [bankAccountId] : undefined);
      return respond({
        filters: { bookingDateFrom, bookingDateTo, ...(accounts ? { accountIds: accounts } : {}) },
        pagination,
        sorting,
      });
    },
    searchBankTransactionsV0: ({ body }) => {
      const { pagination, sorting, ...filters } = body as SearchV0Request;
      return respond({ filters, pagination, sorting });
    },
  };
}
