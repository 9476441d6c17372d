import { RequestTimeoutError, type RawFetch } from './api/http-fetch';
import { transportFailure } from './api/transport-failure';
import type { OnlineState } from '../src-shared/ipc';

/**
 * Whether Satchel is online, from two sources: the operating system's network signal (fed by
 * the Electron shell from `net.isOnline()`) and what actually happens to requests (every
 * request of the API client goes through `observeFetch`). Offline when the system says so, or
 * when no API the app talked to lately could be connected to at all. One API server being down
 * while another answers is that server's problem, shown in its sync history, not "offline".
 */

/** Why a sync or a push of edits is not even tried while the system has no network. */
export const NO_NETWORK_MESSAGE =
  'There is no network, so nothing can be sent or fetched now. Satchel syncs by itself when the network is back.';

/** Why a bulk download asked for with no network waits (docs/files.md): shown on its card. */
export const NO_NETWORK_DOWNLOAD_MESSAGE = 'There is no network; the download waits for it.';

export interface Connectivity {
  state(): OnlineState;
  /** The operating system's view: false means no network at all. */
  setNetwork(online: boolean): void;
  /** A request to this origin got an answer (of any status), or a connection that was then reset. */
  reached(origin: string): void;
  /** A request to this origin failed without a connection: refused, no route, DNS. */
  unreachable(origin: string): void;
  subscribe(listener: (state: OnlineState, previous: OnlineState) => void): () => void;
}

export function createConnectivity(options: { now?: () => Date } = {}): Connectivity {
  const now = options.now ?? (() => new Date());
  const listeners = new Set<(state: OnlineState, previous: OnlineState) => void>();
  const origins = new Map<string, boolean>();
  let network = true;
  let current: OnlineState = { online: true, reason: null, since: now().toISOString() };

  function reason(): OnlineState['reason'] {
    if (!network) return 'network';
    const known = [...origins.values()];
    return known.length > 0 && known.every((reachable) => !reachable) ? 'unreachable' : null;
  }

  function update(): void {
    const why = reason();
    if (why === current.reason) return;
    const previous = current;
    current = { online: why === null, reason: why, since: now().toISOString() };
    for (const listener of listeners) listener(current, previous);
  }

  return {
    state: () => current,
    setNetwork(online) {
      if (online && !network) origins.clear(); // back on the network: every API gets a new chance
      network = online;
      update();
    },
    reached(origin) {
      origins.set(origin, true);
      update();
    },
    unreachable(origin) {
      origins.set(origin, false);
      update();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function originOf(input: Parameters<typeof fetch>[0]): string {
  try {
    return new URL(input instanceof Request ? input.url : String(input)).origin;
  } catch {
    return 'unknown';
  }
}

/**
 * A fetch that reports to `connectivity`: an answer means reachable, and so does a connection
 * that was made and then reset before the answer (the server or a proxy in front of it broke
 * it: the network works); a failure to connect at all means unreachable. A request aborted on
 * purpose (cancelled, timed out) says nothing.
 */
export function observeFetch(fetchImpl: typeof fetch, connectivity: Connectivity): typeof fetch {
  return (input, init) => observed(connectivity, originOf(input), init?.signal, () => fetchImpl(input, init));
}

/** The same for the transport of file bodies. */
export function observeRawFetch(fetchImpl: RawFetch, connectivity: Connectivity): RawFetch {
  return (url, init) => observed(connectivity, originOf(url), init?.signal, () => fetchImpl(url, init));
}

async function observed<T>(
  connectivity: Connectivity,
  origin: string,
  signal: AbortSignal | null | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    const response = await call();
    connectivity.reached(origin);
    return response;
  } catch (error) {
    // A time-out is no connection refused either: the file transport's own (no byte for its
    // idle time) is counted no more than a JSON request's deadline, which aborts its signal.
    // Else a server slow to answer a preview took the app offline, and the pane said so.
    if (signal?.aborted || error instanceof RequestTimeoutError) throw error;
    if (transportFailure(error) === 'reset') connectivity.reached(origin);
    else connectivity.unreachable(origin);
    throw error;
  }
}
