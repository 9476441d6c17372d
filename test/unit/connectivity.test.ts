import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetch } from '../../src-main/api/http-fetch';
import { createConnectivity, observeFetch, observeRawFetch } from '../../src-main/connectivity';
import type { OnlineState } from '../../src-shared/ipc';

// Online state from the system's network signal and from what happens to real requests.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function listen(): Promise<string> {
  const server = createServer((request, response) => {
    if (request.url === '/slow') setTimeout(() => response.end('late'), 500);
    // Past the file transport's time-out below, whose timer fires a second at the earliest.
    else if (request.url === '/slower') setTimeout(() => response.end('late'), 3_000);
    else response.writeHead(request.url === '/fail' ? 503 : 200).end('ok');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port nobody listens on: the connection is refused at once. */
async function closedPort(): Promise<string> {
  const url = await listen();
  const server = servers.pop()!;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

describe('online state', () => {
  it('follows the system signal and tells each change once', () => {
    let time = Date.parse('2026-11-23T08:00:00Z');
    const connectivity = createConnectivity({ now: () => new Date(time) });
    const changes: OnlineState[] = [];
    connectivity.subscribe((state) => changes.push(state));
    expect(connectivity.state()).toMatchObject({ online: true, reason: null });
    connectivity.setNetwork(true);
    time += 1000;
    connectivity.setNetwork(false);
    connectivity.setNetwork(false);
    time += 1000;
    connectivity.setNetwork(true);
    expect(changes).toEqual([
      { online: false, reason: 'network', since: '2026-11-23T08:00:01.000Z' },
      { online: true, reason: null, since: '2026-11-23T08:00:02.000Z' },
    ]);
  });

  it('goes offline only when every API it talked to gives no answer', async () => {
    const connectivity = createConnectivity();
    const observed = observeFetch(fetch, connectivity);
    const up = await listen();
    const down = await closedPort();

    await observed(`${up}/fail`); // a 503 is an answer: the network works
    await expect(observed(`${down}/v1/bank-accounts`)).rejects.toThrow();
    expect(connectivity.state()).toMatchObject({ online: true, reason: null }); // one server down
    await observed(`${up}/`);

    connectivity.setNetwork(false);
    connectivity.setNetwork(true); // back on the network: every API gets a new chance
    await expect(observed(`${down}/v1/bank-accounts`)).rejects.toThrow();
    expect(connectivity.state()).toMatchObject({ online: false, reason: 'unreachable' });
    await observed(`${up}/`);
    expect(connectivity.state()).toMatchObject({ online: true, reason: null });
  });

  it('does not count a request cancelled or timed out on purpose', async () => {
    const connectivity = createConnectivity();
    const observed = observeFetch(fetch, connectivity);
    const up = await listen();
    await expect(observed(`${up}/slow`, { signal: AbortSignal.timeout(20) })).rejects.toThrow();
    const controller = new AbortController();
    const cancelled = observed(`${up}/slow`, { signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toThrow();
    // The file transport's own time-out (no byte for its idle time): a server slow to answer,
    // not a network gone.
    const raw = observeRawFetch(createHttpFetch(), connectivity);
    await expect(raw(`${up}/slower`, { idleTimeoutMs: 200 })).rejects.toThrow(/No data arrived/);
    expect(connectivity.state()).toMatchObject({ online: true, reason: null });
  });
});
