// The end-to-end stand-in for the preload: the same createSatchelApi the preload uses, over a
// Playwright binding (`__satchelInvoke`) to the real handler table in the test process. Events
// from the real core arrive through `__satchelEmit`, called by the harness.
import { createSatchelApi } from '../../src-shared/bridge';
import type { CommandName, EventName } from '../../src-shared/ipc';

type Listener = (event: EventName, payload: unknown) => void;

interface TestWindow {
  __satchelInvoke(command: CommandName, input: unknown): Promise<unknown>;
  __satchelEmit(event: EventName, payload: unknown): void;
}

const host = window as unknown as TestWindow;
const listeners = new Set<Listener>();

Object.defineProperty(window, 'satchel', {
  value: createSatchelApi({
    invoke: (command, input) => host.__satchelInvoke(command, input),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  }),
  writable: false,
  configurable: false,
});

host.__satchelEmit = (event, payload) => {
  for (const listener of listeners) listener(event, payload);
};
