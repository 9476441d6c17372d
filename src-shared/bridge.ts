import { AppError } from './errors';
import {
  IpcResult,
  isCommandName,
  isEventName,
  type CommandName,
  type EventName,
  type Result,
  type SatchelApi,
} from './ipc';

/** How a bridge reaches the main process: Electron's ipcRenderer, or a test's page binding. */
export interface BridgeTransport {
  invoke(command: CommandName, input: unknown): Promise<unknown>;
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void;
}

/**
 * Builds `window.satchel` over a transport. Used by the preload and by the end-to-end bridge,
 * so the page under test talks through the very same code the app ships. Only the contract's
 * command and event names pass; anything else is refused before it reaches the main process.
 */
export function createSatchelApi(transport: BridgeTransport): SatchelApi {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  let subscribed = false;

  const ensureSubscribed = () => {
    if (subscribed) return;
    subscribed = true;
    transport.subscribe((event, payload) => {
      for (const listener of listeners.get(event) ?? []) listener(payload);
    });
  };

  const api = {
    async invoke(command: unknown, input: unknown): Promise<Result<unknown>> {
      if (!isCommandName(command)) {
        return {
          ok: false,
          error: { code: 'UNKNOWN_COMMAND', message: `Unknown command: ${String(command)}` },
        };
      }
      const parsed = IpcResult.safeParse(await transport.invoke(command, input));
      if (parsed.success) return parsed.data;
      return { ok: false, error: { code: 'INTERNAL', message: 'The app answered in an unexpected shape.' } };
    },
    on(event: unknown, listener: (payload: unknown) => void) {
      if (!isEventName(event)) throw new TypeError(`Unknown event: ${String(event)}`);
      ensureSubscribed();
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => {
        set.delete(listener);
      };
    },
  };
  return Object.freeze(api) as SatchelApi;
}

/** Renderer side: turns a result back into a value or a thrown AppError with code and field. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new AppError(result.error.code, result.error.message, result.error.field, result.error.remoteCode);
}
