import { z } from 'zod';
import { bankAccountBalances, bankAccounts } from '../store';
import { parseEach } from './paging';
import type { ResourceSync } from './types';
import { WireBalance, WireBankAccount } from './wire';
import { markUnseenDeleted, money, upsertRows } from './write';

/**
 * Bank accounts (one unpaginated list) and each account's balance, all written together:
 * a balance never refers to an account the cache does not have.
 */

const AccountList = z.looseObject({ data: z.array(z.unknown()) });

export const bankAccountsSync: ResourceSync = {
  resource: 'bankAccounts',
  async pull(context) {
    const readStartedAt = context.now().toISOString();
    const answer = await context.client.request({
      method: 'GET',
      path: '/v1/bank-accounts',
      schema: AccountList,
      signal: context.signal,
    });
    const { parsed: accounts, unread } = parseEach(context, WireBankAccount, answer.data);
    const balances: Array<{ record: WireBalance; raw: unknown }> = [];
    for (const { record } of accounts) {
      const raw = await context.client.request({
        method: 'GET',
        path: `/v1/bank-accounts/${encodeURIComponent(record.id)}/balance`,
        schema: z.unknown(),
        signal: context.signal,
      });
      const balance = context.parseRecord(WireBalance, raw);
      if (balance) balances.push({ record: balance, raw });
    }
    context.commitPage(
      (tx, db) => {
        const syncedAt = context.now().toISOString();
        const written = upsertRows(
          db,
          bankAccounts,
          accounts.map(({ record, raw }) => ({
            id: record.id,
            name: record.name ?? null,
            currency: record.currency ?? null,
            fundingType: record.fundingType ?? null,
            status: record.status ?? null,
            accountNumber: record.accountNumber ?? null,
            raw: JSON.stringify(raw),
            syncedAt,
            deletedAt: null,
          })),
        );
        markUnseenDeleted(tx, bankAccounts, undefined, readStartedAt, syncedAt, unread);
        upsertRows(
          db,
          bankAccountBalances,
          balances.map(({ record, raw }) => {
            const balance = money(record.balance);
            const available = money(record.availableBalance);
            return {
              bankAccountId: record.bankAccountId,
              balanceMinor: balance.minor ?? 0,
              balanceCurrency: balance.currency ?? record.balance.currency,
              availableBalanceMinor: available.minor,
              availableBalanceCurrency: available.currency,
              balanceTime: record.balanceTime ?? null,
              raw: JSON.stringify(raw),
              syncedAt,
            };
          }),
          'bankAccountId',
        );
        return written;
      },
      { completedAt: context.now().toISOString() },
    );
  },
};
