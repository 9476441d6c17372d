import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiClient } from '../../src-main/api/client';
import { createHttpFetch } from '../../src-main/api/http-fetch';
import { transportFailure } from '../../src-main/api/transport-failure';
import { createConnectivity, observeFetch, observeRawFetch } from '../../src-main/connectivity';
import { AppError } from '../../src-shared/errors';

// A connection made and then broken before the answer is told apart from one never made, over
// real sockets on loopback: a server that accepts and closes, one that resets, a closed port.

const servers: net.Server[] = [];
/** Connections a server leaves open (an answer that stalls): closed before their server is. */
const open: net.Socket[] = [];
afterEach(async () => {
  for (const socket of open.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TCP server that reads the request and then breaks the connection; counts connections. */
async function breaking(how: 'close' | 'reset'): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.once('data', () => (how === 'reset' ? socket.resetAndDestroy() : socket.destroy()));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

/**
 * A TCP server that answers 200 with JSON headers promising 100 bytes, sends 10, and then breaks
 * the connection (or, `stall`, sends nothing more); counts the requests it answered so.
 */
async function cutting(how: 'close' | 'reset' | 'stall'): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = net.createServer((socket) => {
    open.push(socket);
    socket.once('data', () => {
      requests += 1;
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"data": [',
      );
      if (how === 'stall') return;
      setTimeout(() => (how === 'reset' ? socket.resetAndDestroy() : socket.destroy()), 20);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
  };
}

/** A loopback port nobody listens on: the connection is refused at once. */
async function closedPort(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

function client(baseUrl: string, options: Partial<Parameters<typeof createApiClient>[0]> = {}) {
  return createApiClient({
    baseUrl,
    credentials: async () => ({ kind: 'token', accessToken: 'tok_secret' }),
    sleep: async () => undefined, // no backoff: the retries are counted, not waited for
    maxRetries: 2,
    ...options,
  });
}

const listAccounts = (api: ReturnType<typeof client>) =>
  api.request({ method: 'GET', path: '/v1/bank-accounts', schema: z.unknown() });

/** What `promise` was rejected with; an answer fails the test. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('the request was answered');
    },
    (caught: unknown) => caught,
  );
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('a connection reset before the answer', () => {
  it('is told apart from a connection never made, by both transports', async () => {
    const closing = await breaking('close');
    const resetting = await breaking('reset');
    const refused = await closedPort();
    const raw = createHttpFetch();
    for (const transport of [(url: string) => fetch(url), (url: string) => raw(url)]) {
      expect(transportFailure(await rejection(transport(`${closing.url}/x`)))).toBe('reset');
      expect(transportFailure(await rejection(transport(`${resetting.url}/x`)))).toBe('reset');
      expect(transportFailure(await rejection(transport(`${refused}/x`)))).toBe('unreachable');
    }
    expect(transportFailure(new Error('something else'))).toBe('unknown');
    // A connection the system aborted (ECONNABORTED), as undici reports it: made, then broken.
    const aborted = Object.assign(new Error('read ECONNABORTED'), { code: 'ECONNABORTED' });
    expect(transportFailure(new TypeError('fetch failed', { cause: aborted }))).toBe('reset');
  });

  it('ends a request in CONNECTION_RESET naming the host after the retries, never OFFLINE', async () => {
    for (const how of ['close', 'reset'] as const) {
      const server = await breaking(how);
      const error = await failureOf(listAccounts(client(server.url)));
      const host = new URL(server.url).host;
      expect(error).toMatchObject({
        code: 'CONNECTION_RESET',
        message: `The connection to ${host} was reset before the server answered. Try again later.`,
      });
      expect(server.connections()).toBe(3); // the first attempt and two retries
    }
    const refused = await failureOf(listAccounts(client(await closedPort())));
    expect(refused.code).toBe('OFFLINE');
    expect(refused.message).toMatch(/^Could not reach 127\.0\.0\.1:\d+: .*Satchel keeps working offline\.$/);
  });

  it('ends a JSON answer cut off after its headers in CONNECTION_RESET, retried as a GET', async () => {
    for (const how of ['close', 'reset'] as const) {
      const server = await cutting(how);
      const host = new URL(server.url).host;
      const error = await failureOf(listAccounts(client(server.url)));
      expect(error).toMatchObject({
        code: 'CONNECTION_RESET',
        message: `The connection to ${host} was reset before the server's answer was complete. Try again later.`,
      });
      expect(server.requests()).toBe(3); // the first attempt and two retries
    }
    // A create is not sent again: it may have been made.
    const server = await cutting('close');
    const create = client(server.url).request({
      method: 'POST',
      path: '/v1/suppliers',
      body: { name: 'x' },
      schema: z.unknown(),
    });
    expect((await failureOf(create)).code).toBe('CONNECTION_RESET');
    expect(server.requests()).toBe(1);
  });

  it('ends a JSON answer whose body stops coming in TIMEOUT, not a bad answer', async () => {
    const server = await cutting('stall');
    const error = await failureOf(listAccounts(client(server.url, { timeoutMs: 500, maxRetries: 1 })));
    expect(error).toMatchObject({
      code: 'TIMEOUT',
      message: 'The API did not answer within 1 s. Try again later.',
    });
    expect(server.requests()).toBe(2);
  });

  it('is not retried by the client for a file whose caller makes its own attempts', async () => {
    const server = await breaking('close');
    const api = client(server.url, { rawFetch: createHttpFetch() });
    const once = await failureOf(api.fetchRaw('/v1/files/f1/content', { resetRetries: 0 }));
    expect(once.code).toBe('CONNECTION_RESET');
    expect(server.connections()).toBe(1);
    const retried = await failureOf(api.fetchRaw('/v1/files/f1/content', {}));
    expect(retried.code).toBe('CONNECTION_RESET');
    expect(server.connections()).toBe(1 + 3);
    // A preview retries a reset once, whatever the client's own count.
    const twice = await failureOf(api.fetchRaw('/v1/files/f1/content', { resetRetries: 1 }));
    expect(twice.code).toBe('CONNECTION_RESET');
    expect(server.connections()).toBe(1 + 3 + 2);
  });

  it('does not take the app offline, while a refused connection does', async () => {
    const connectivity = createConnectivity();
    const observed = observeFetch(fetch, connectivity);
    const observedRaw = observeRawFetch(createHttpFetch(), connectivity);
    const server = await breaking('close');
    await expect(observed(`${server.url}/x`)).rejects.toThrow();
    await expect(observedRaw(`${server.url}/x`)).rejects.toThrow();
    expect(connectivity.state()).toMatchObject({ online: true, reason: null });

    const refused = await closedPort();
    await expect(observed(`${refused}/x`)).rejects.toThrow();
    await expect(observed(`${server.url}/x`)).rejects.toThrow(); // the server reached is still up
    expect(connectivity.state()).toMatchObject({ online: true, reason: null });

    const alone = createConnectivity();
    await expect(observeFetch(fetch, alone)(`${refused}/x`)).rejects.toThrow();
    expect(alone.state()).toMatchObject({ online: false, reason: 'unreachable' });
  });
});
