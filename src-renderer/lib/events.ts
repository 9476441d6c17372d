import { useEffect, useState } from 'react';
import type { EventName, EventPayload } from '../../src-shared/ipc';

/** The latest payload of an event, or null before the first one. */
export function useLatestEvent<E extends EventName>(
  event: E,
  accept: (payload: EventPayload<E>) => boolean = () => true,
) {
  const [latest, setLatest] = useState<EventPayload<E> | null>(null);
  useEffect(
    () =>
      window.satchel.on(event, (payload) => {
        if (accept(payload)) setLatest(payload);
      }),
    // `accept` is read at event time; re-subscribing on every render would drop events.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [event],
  );
  return latest;
}
