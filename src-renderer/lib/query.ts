import { keepPreviousData, QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CommandInput, CommandName, CommandOutput } from '../../src-shared/ipc';
import { refreshCommands } from './refresh';
import { call } from './satchel';

export const queryClient = new QueryClient({
  defaultOptions: {
    // Everything is local: no retries against IPC, and data is fresh until an event says otherwise.
    queries: { retry: false, staleTime: Infinity, refetchOnWindowFocus: false },
    mutations: { retry: false },
  },
});

/**
 * A command's answer as a query. `keepPrevious`: while another input (a new search, the next
 * page) is read, the last answer stays as placeholder data (`isPlaceholderData`), so a list keeps
 * its rows instead of emptying and filling again; what counts the new input must wait for it.
 */
export function useCommand<C extends CommandName>(
  command: C,
  input: CommandInput<C>,
  {
    keepPrevious = false,
    refetchInterval,
    ...options
  }: {
    enabled?: boolean;
    /** Milliseconds between reads, or (from the last answer) whether to read again and when. */
    refetchInterval?: number | ((data: CommandOutput<C> | undefined) => number | false);
    keepPrevious?: boolean;
  } = {},
) {
  return useQuery({
    queryKey: [command, input],
    queryFn: () => call(command, input),
    ...(keepPrevious ? { placeholderData: keepPreviousData } : {}),
    ...(refetchInterval === undefined
      ? {}
      : {
          refetchInterval:
            typeof refetchInterval === 'function'
              ? (query: { state: { data: CommandOutput<C> | undefined } }) =>
                  refetchInterval(query.state.data)
              : refetchInterval,
        }),
    ...options,
  });
}

/** A command that changes something; the listed queries are read again when it succeeds. */
export function useCommandMutation<C extends CommandName>(command: C, invalidates: CommandName[] = []) {
  const client = useQueryClient();
  return useMutation<CommandOutput<C>, Error, CommandInput<C>>({
    mutationFn: (input) => call(command, input),
    onSuccess: () => refreshCommands(client, invalidates),
  });
}
