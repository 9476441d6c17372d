import { unwrap } from '../../src-shared/bridge';
import type { CommandInput, CommandName, CommandOutput } from '../../src-shared/ipc';

/** Calls a command and returns its value, or throws an AppError with its code and field. */
export async function call<C extends CommandName>(
  command: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  return unwrap(await window.satchel.invoke(command, input));
}
