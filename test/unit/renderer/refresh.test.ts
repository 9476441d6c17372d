import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { refreshCommands } from '../../../src-renderer/lib/refresh';

// The renderer's query cache after the core's data changed (src-renderer/lib/refresh.ts), with the
// app's query defaults. An answer may be counted before the change and arrive after its event
// (totals come from the totals thread): it must not land as fresh data.

interface Call {
  answer: (value: string) => void;
}

function setup() {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Infinity, refetchOnWindowFocus: false } },
  });
  const calls: Call[] = [];
  const options = {
    queryKey: ['transactions.search', { withTotals: true }],
    queryFn: () => new Promise<string>((answer) => calls.push({ answer })),
  };
  const watch = () => {
    const observer = new QueryObserver(client, options);
    const stop = observer.subscribe(() => undefined);
    return { observer, stop };
  };
  return { client, calls, watch };
}

describe('refreshing queries after the cache changed', () => {
  it('drops an answer that was on its way, and reads the query again when it is shown', async () => {
    const { client, calls, watch } = setup();
    const shown = watch();
    expect(calls).toHaveLength(1);
    shown.stop(); // the area is left while the request is on its way

    await refreshCommands(client, ['transactions.search']); // sync.finished
    calls[0]?.answer('counted before the sync');
    await new Promise((resolve) => setTimeout(resolve, 0));

    const again = watch(); // the area is shown again
    expect(calls).toHaveLength(2);
    calls[1]?.answer('counted after the sync');
    await expect.poll(() => again.observer.getCurrentResult().data).toBe('counted after the sync');
    again.stop();
  });

  it('reads a query that is shown again at once, and keeps the others until shown', async () => {
    const { client, calls, watch } = setup();
    const shown = watch();
    calls[0]?.answer('first');
    await expect.poll(() => shown.observer.getCurrentResult().data).toBe('first');

    const refreshed = refreshCommands(client, ['transactions.search']);
    await expect.poll(() => calls.length).toBe(2);
    calls[1]?.answer('second');
    await refreshed;
    expect(shown.observer.getCurrentResult().data).toBe('second');

    shown.stop();
    await refreshCommands(client, ['transactions.search']);
    expect(calls).toHaveLength(2); // not shown: nothing asked
    await refreshCommands(client, ['expenses.search']);
    const again = watch();
    expect(calls).toHaveLength(3);
    again.stop();
  });
});
