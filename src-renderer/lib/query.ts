import { QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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

export function useCommand<C extends CommandName>(
  command: C,
  input: CommandInput<C>,
  options: { enabled?: boolean; refetchInterval?: number } = {},
) {
  return useQuery({ queryKey: [command, input], queryFn: () => call(command, input), ...options });
}

/** A command that changes something; the listed queries are read again when it succeeds. */
export function useCommandMutation<C extends CommandName>(command: C, invalidates: CommandName[] = []) {
  const client = useQueryClient();
  return useMutation<CommandOutput<C>, Error, CommandInput<C>>({
    mutationFn: (input) => call(command, input),
    onSuccess: () => refreshCommands(client, invalidates),
  });
}
