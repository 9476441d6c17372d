import { events, type EventName, type EventPayload } from '../src-shared/ipc';
import { log } from './log';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface EventBus {
  /** Validates the payload against the contract before anyone sees it. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  subscribe(listener: EventListener): () => void;
}

export function createEventBus(): EventBus {
  const listeners = new Set<EventListener>();
  return {
    emit(event, payload) {
      const checked = events[event].parse(payload) as typeof payload;
      for (const listener of listeners) {
        try {
          listener(event, checked);
        } catch (error) {
          // One broken listener (a closed window, say) must not stop the others.
          log.error(`listener for ${event} failed:`, error);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
