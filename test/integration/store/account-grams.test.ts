import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { searchTransactions } from '../../../src-main/search';
import { observePagePlans, type PagePlan } from '../../../src-main/search/transaction-page';
import {
  FTS_TABLE,
  ftsLiteral,
  gramBlocksAreConsistent,
  likeContains,
  rebuildTransactionSearch,
  refreshGramBlocks,
  TEXT_TABLE,
  type CacheDb,
} from '../../../src-main/store';
import { textAbsentFromAccounts } from '../../../src-main/store/account-grams';
import { bankTransactions } from '../../../src-main/store/schema';
import { createRandom } from '../../../src-sandbox/data/random';
import { transactionRow, useCaches } from './fixtures';

const caches = useCaches();

/** Per account, names only it has; the İ, the Kelvin sign and the long s fold to ASCII letters. */
const NAMES: Record<string, string[]> = {
  'acc-de': ['Deutsche Bahn', 'İstanbul Döner', 'Büro Müller', 'Straße 12'],
  'acc-gb': ['Tesco Stores', '\u212Aettle Works', 'Maſs & Co', "O'Brien"],
  'acc-fr': ['Café Noir', 'SNCF', 'Hôtel 5%'],
};
const IBANS: Record<string, string> = {
  'acc-de': 'DE89370400440532013000',
  'acc-gb': 'GB29NWBK60161331926819',
  'acc-fr': 'FR1420041010050500013M02606',
};
const ACCOUNTS = Object.keys(NAMES);

function seeded(rows: number): CacheDb {
  const cache = caches.open(caches.file());
  const random = createRandom(5, 1);
  for (let i = 0; i < rows; i++) {
    const account = random.pick(ACCOUNTS);
    cache.db
      .insert(bankTransactions)
      .values(
        transactionRow({
          bankAccountId: account,
          counterparty: random.pick(NAMES[account]!),
          bankAccountNumber: IBANS[account],
          groupId: null,
        }),
      )
      .run();
  }
  return cache;
}

/** Rows of `accounts` that any test the searches use finds `needle` in. */
function matches(cache: CacheDb, needle: string, accounts: string[]): number {
  const inAccounts = `t.bank_account_id IN (${accounts.map(() => '?').join(', ')})`;
  const like = cache.sqlite
    .prepare(
      `SELECT count(*) FROM bank_transactions t JOIN ${TEXT_TABLE} x ON x.row_id = t.row_id
       WHERE ${inAccounts} AND x.text LIKE ? ESCAPE '\\'`,
    )
    .pluck()
    .get(...accounts, likeContains(needle)) as number;
  const folded = (
    cache.sqlite
      .prepare(
        `SELECT x.text FROM bank_transactions t JOIN ${TEXT_TABLE} x ON x.row_id = t.row_id WHERE ${inAccounts}`,
      )
      .pluck()
      .all(...accounts) as string[]
  ).filter((text) => text.toLowerCase().includes(needle.toLowerCase())).length;
  const trigram =
    [...needle].length < 3
      ? 0
      : (cache.sqlite
          .prepare(
            `SELECT count(*) FROM bank_transactions t WHERE ${inAccounts} AND t.row_id IN
               (SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH ?)`,
          )
          .pluck()
          .get(...accounts, ftsLiteral(needle)) as number);
  return like + folded + trigram;
}

describe('the accounts’ gram sets', () => {
  it('say text is absent from accounts only when no search could find it there', () => {
    const cache = seeded(240);
    refreshGramBlocks(cache.sqlite);
    const random = createRandom(17, 2);
    const every = Object.values(NAMES).flat().concat(Object.values(IBANS));
    const fixed = [
      'is',
      'istanbul',
      'ke',
      'kettle',
      'mass',
      'ss',
      'GB29',
      'de89',
      'tesco',
      'café',
      '5%',
      "'b",
    ];
    let absent = 0;
    for (let n = 0; n < 400; n++) {
      const source = random.pick(every);
      const start = random.int(0, source.length - 1);
      const taken = source.slice(start, start + random.int(1, 6));
      const needle = fixed[n] ?? (random.chance(0.5) ? taken.toUpperCase() : taken.toLowerCase()).trim();
      if (needle === '') continue;
      const accounts = random.chance(0.3)
        ? [random.pick(ACCOUNTS), random.pick(ACCOUNTS)]
        : [random.pick(ACCOUNTS)];
      if (!textAbsentFromAccounts(cache.sqlite, needle, accounts)) continue;
      absent += 1;
      expect(matches(cache, needle, accounts), JSON.stringify({ needle, accounts })).toBe(0);
    }
    // Text of other accounts is found absent (not a test that never says so).
    expect(absent).toBeGreaterThan(60);
    expect(textAbsentFromAccounts(cache.sqlite, 'GB29', ['acc-de', 'acc-fr'])).toBe(true);
    expect(textAbsentFromAccounts(cache.sqlite, 'GB29', ['acc-de', 'acc-gb'])).toBe(false);
    // The İ of İstanbul is an "i" (and a dot) to toLowerCase; FTS5 folds the Kelvin sign to
    // "k" and the long s to "s".
    for (const [needle, account] of [
      ['istanbul', 'acc-de'],
      ['kettle', 'acc-gb'],
      ['mass', 'acc-gb'],
    ] as const)
      expect(textAbsentFromAccounts(cache.sqlite, needle, [account]), needle).toBe(false);
    // Not ASCII: never said absent.
    expect(textAbsentFromAccounts(cache.sqlite, 'ü', ['acc-gb'])).toBe(false);
  });

  it('answer a search within accounts at once, and follow rows written and moved', () => {
    const cache = seeded(120);
    refreshGramBlocks(cache.sqlite);
    const t = bankTransactions;
    const search = (accountIds: string[], freeText: string) => {
      const plans: PagePlan[] = [];
      const stop = observePagePlans((plan) => plans.push(plan));
      try {
        const result = searchTransactions(cache, {
          filters: { accountIds, freeText },
          pagination: { page: 1, pageSize: 50 },
        });
        return { count: result.totals!.count, rows: result.rows.length, plan: plans[0] };
      } finally {
        stop();
      }
    };
    expect(search(['acc-de'], 'tesco')).toEqual({ count: 0, rows: 0, plan: 'account-grams' });
    expect(search(['ACC-DE'], 'tesco').plan).toBe('account-grams'); // ids in any case
    expect(search(['acc-gb'], 'tesco').count).toBeGreaterThan(0);

    // A Tesco row moves to the German account: found before the refresh (its block is
    // stale) and after it (in the account's set).
    const moved = cache.sqlite
      .prepare(`SELECT id FROM bank_transactions WHERE counterparty = 'Tesco Stores' LIMIT 1`)
      .pluck()
      .get() as string;
    cache.db.update(t).set({ bankAccountId: 'acc-de' }).where(eq(t.id, moved)).run();
    expect(search(['acc-de'], 'tesco')).toMatchObject({ count: 1, rows: 1 });
    refreshGramBlocks(cache.sqlite);
    expect(search(['acc-de'], 'tesco')).toMatchObject({ count: 1, rows: 1 });
    // A new account's first rows.
    cache.db
      .insert(t)
      .values(transactionRow({ bankAccountId: 'acc-new', counterparty: 'Qxz Only' }))
      .run();
    refreshGramBlocks(cache.sqlite);
    expect(search(['acc-new'], 'qxz')).toMatchObject({ count: 1, rows: 1 });
    expect(search(['acc-new'], 'tesco')).toEqual({ count: 0, rows: 0, plan: 'account-grams' });
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
  });

  it('are checked with the other search indexes, and rebuilt with them', () => {
    const cache = seeded(60);
    refreshGramBlocks(cache.sqlite);
    cache.sqlite
      .prepare('UPDATE bank_transaction_account_grams SET grams = zeroblob(length(grams)) WHERE account = ?')
      .run('acc-gb');
    expect(textAbsentFromAccounts(cache.sqlite, 'tesco', ['acc-gb'])).toBe(true);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(false);
    rebuildTransactionSearch(cache.sqlite);
    expect(gramBlocksAreConsistent(cache.sqlite)).toBe(true);
    expect(textAbsentFromAccounts(cache.sqlite, 'tesco', ['acc-gb'])).toBe(false);
  });
});
