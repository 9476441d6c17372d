import type { CacheDb } from '../../src-main/store';

/**
 * Everything the API serves, read straight over HTTP with plain fetch (not through the app's
 * client or sync), keyed by resource and id: the truth a synced cache is compared with.
 */
/** fetch that waits out a 429 (tests that exhaust the budget on purpose read the truth after). */
async function patientFetch(url: string, init?: RequestInit): Promise<Response> {
  for (;;) {
    const response = await fetch(url, init);
    if (response.status !== 429) return response;
    await response.body?.cancel();
    await new Promise((resolve) =>
      setTimeout(resolve, Number(response.headers.get('retry-after') ?? '1') * 1000),
    );
  }
}

export async function readApi(baseUrl: string, clientId: string, clientSecret: string) {
  const tokenAnswer = await patientFetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      scope: 'read',
    }),
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  async function list(path: string): Promise<Array<{ id: string }>> {
    const all: Array<{ id: string }> = [];
    for (let page = 1; ; page += 1) {
      const url = `${baseUrl}${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=100`;
      const body = (await (await patientFetch(url, { headers })).json()) as {
        data: Array<{ id: string }>;
        meta?: { pagination: { hasMore: boolean } };
      };
      all.push(...body.data);
      if (!body.meta?.pagination.hasMore) return all;
    }
  }
  async function search(path: string, filters: object): Promise<Array<{ id: string }>> {
    const all: Array<{ id: string }> = [];
    for (let page = 1; ; page += 1) {
      const answer = await patientFetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...filters, pagination: { page, pageSize: 100 } }),
      });
      const body = (await answer.json()) as {
        data: Array<{ id: string }>;
        meta: { pagination: { hasMore: boolean } };
      };
      all.push(...body.data);
      if (!body.meta.pagination.hasMore) return all;
    }
  }

  const dimensions = await list('/v1/dimensions');
  const dimensionItems = (
    await Promise.all(dimensions.map((d) => list(`/v1/dimensions/${d.id}/items`)))
  ).flat();
  const expenses = await list('/v1/expenses');
  const files: Array<{ id: string }> = [];
  for (let i = 0; i < expenses.length; i += 500) {
    files.push(
      ...(await search('/v1/files/search-query', {
        expenseIds: expenses.slice(i, i + 500).map((e) => e.id),
      })),
    );
  }
  const accountList = (await (await patientFetch(`${baseUrl}/v1/bank-accounts`, { headers })).json()) as {
    data: Array<{ id: string }>;
  };
  return {
    bankAccounts: accountList.data,
    bankTransactions: await search('/v0/bank-transactions/search-query', {}),
    suppliers: await list('/v1/suppliers'),
    expenses,
    expenseFiles: files,
    dimensions,
    dimensionItems,
    expenseAccounts: await list('/v1/expense-accounts'),
    taxRates: await list('/v1/tax-rates'),
    users: await list('/v1/users'),
    teams: await list('/v1/teams'),
    departments: await list('/v1/departments'),
    paymentTerms: await list('/v1/payment-terms'),
  };
}

const tables: Record<string, string> = {
  bankAccounts: 'bank_accounts',
  bankTransactions: 'bank_transactions',
  suppliers: 'suppliers',
  expenses: 'expenses',
  expenseFiles: 'expense_files',
  dimensions: 'dimensions',
  dimensionItems: 'dimension_items',
  expenseAccounts: 'expense_accounts',
  taxRates: 'tax_rates',
  users: 'users',
  teams: 'teams',
  departments: 'departments',
  paymentTerms: 'payment_terms',
};

/** The cache's live records per resource, as the API sent them (`raw`), sorted by id. */
export function readCache(cache: CacheDb): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [resource, table] of Object.entries(tables)) {
    const rows = cache.sqlite
      .prepare(`SELECT raw FROM ${table} WHERE deleted_at IS NULL ORDER BY id`)
      .all() as Array<{ raw: string }>;
    out[resource] = rows.map((row) => JSON.parse(row.raw));
  }
  return out;
}

export function sortById<T extends { id: string }>(records: T[]): T[] {
  return [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
