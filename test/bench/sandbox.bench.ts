import { startSandbox } from '../../src-sandbox/index';
import { sandboxToken } from '../helpers/sandbox-token';

/**
 * Sandbox latency on 1,000,000 transactions over real HTTP: a v0 free-text page (new queries
 * and page turns of one query) and a v1 date-range page. Figures in milliseconds.
 */

const ROUNDS = 60;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(2));
}

export default async function run(): Promise<Record<string, number | string>> {
  const started = performance.now();
  const sandbox = await startSandbox({ transactions: 1_000_000, readLimit: 1_000_000 });
  const startupMs = Math.round(performance.now() - started);
  try {
    const token = await sandboxToken(sandbox);
    const post = async (path: string, body: unknown): Promise<number> => {
      const t0 = performance.now();
      const response = await fetch(`${sandbox.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      return performance.now() - t0;
    };
    // Word queries; hex-only queries (which can also match ids) are measured separately below.
    const words = [
      'rewe',
      'uber',
      'hotel',
      'coffee',
      'amazon',
      'lufthansa',
      'tesco',
      'atm',
      'gmbh',
      'reimbursement',
      'shell',
      'commerzbank',
      'gb29',
    ];
    const hexes = ['a1b2', '4c7', 'ffe0', '9d2d', '0bb0', 'cafe'];
    // Build the lazy id index once, as the first hex query of a session would.
    const firstHexMs = await post('/v0/bank-transactions/search-query', { freeText: 'abc1' });
    const fresh: number[] = [];
    const hexFresh: number[] = [];
    const turns: number[] = [];
    const v1: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const word = `${words[i % words.length]}${i >= words.length ? ` `.repeat(i) : ''}`; // a new cache key each round
      fresh.push(await post('/v0/bank-transactions/search-query', { freeText: word, matched: i % 2 === 0 }));
      turns.push(
        await post('/v0/bank-transactions/search-query', {
          freeText: word,
          matched: i % 2 === 0,
          pagination: { page: 2 + (i % 5), pageSize: 20 },
        }),
      );
      hexFresh.push(
        await post('/v0/bank-transactions/search-query', {
          freeText: `${hexes[i % hexes.length]}${(i % 16).toString(16)}`,
        }),
      );
      const month = String((i % 12) + 1).padStart(2, '0');
      v1.push(
        await post('/v1/bank-transactions/search-query', {
          bookingDateFrom: `2025-${month}-01`,
          bookingDateTo: `2025-${month}-28`,
          pagination: { page: 1 + (i % 10), pageSize: 100 },
        }),
      );
    }
    return {
      transactions: 1_000_000,
      startupMs,
      'v0FreeTextNewQuery.p50Ms': percentile(fresh, 50),
      'v0FreeTextNewQuery.p95Ms': percentile(fresh, 95),
      'v0FreeTextPageTurn.p50Ms': percentile(turns, 50),
      'v0FreeTextPageTurn.p95Ms': percentile(turns, 95),
      'v0HexFreeTextNewQuery.p50Ms': percentile(hexFresh, 50),
      'v0HexFreeTextNewQuery.p95Ms': percentile(hexFresh, 95),
      v0FirstHexQueryMs: Number(firstHexMs.toFixed(1)),
      'v1Page100.p50Ms': percentile(v1, 50),
      'v1Page100.p95Ms': percentile(v1, 95),
    };
  } finally {
    await sandbox.stop();
  }
}
