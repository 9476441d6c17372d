import type { QueryClient } from '@tanstack/react-query';
import type { CommandName } from '../../src-shared/ipc';

/**
 * Makes the queries of these commands stale after the cache changed: active ones are read
 * again at once, the others when next shown. A request still on its way may have been
 * answered from the cache as it was before the change — totals are counted in a thread of
 * their own and can answer after the change's event — and a late answer would land as fresh
 * data and clear the staleness. So such requests are cancelled first: their answers are
 * dropped, and the query is read again.
 */
export async function refreshCommands(client: QueryClient, names: readonly CommandName[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      await client.cancelQueries({ queryKey: [name] });
      await client.invalidateQueries({ queryKey: [name] });
    }),
  );
}
