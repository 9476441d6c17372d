import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetch } from '../../src-main/api/http-fetch';

// The lean file-body client against real HTTP servers on loopback.

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readAll(response: Response): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('http fetch for file bodies', () => {
  it('streams a large body whole, with status and headers, over kept-alive connections', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    const sockets = new Set<unknown>();
    const seen: http.IncomingHttpHeaders[] = [];
    const url = await serve((request, response) => {
      sockets.add(request.socket);
      seen.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/pdf', etag: '"abc"' });
      response.end(body);
    });
    const fetch = createHttpFetch();
    for (let round = 0; round < 3; round += 1) {
      const response = await fetch(`${url}/file`, {
        headers: { authorization: 'Bearer t', range: 'bytes=0-' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('etag')).toBe('"abc"');
      expect((await readAll(response)).equals(body)).toBe(true);
    }
    expect(sockets.size).toBe(1);
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer t',
      range: 'bytes=0-',
      'accept-encoding': 'identity',
    });
  });

  it('ends the body in an error when the connection closes before the body is complete', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write(Buffer.alloc(400, 1));
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const response = await createHttpFetch()(`${url}/cut`);
    expect(response.status).toBe(200);
    const received: Uint8Array[] = [];
    await expect(
      (async () => {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received.push(chunk);
      })(),
    ).rejects.toThrow();
    expect(Buffer.concat(received).length).toBe(400); // what arrived is kept for a Range request
  });

  it('stops a request or a body when its signal is aborted', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/slow-head') return; // never answers
      response.writeHead(200, { 'content-length': '1000' });
      response.write(Buffer.alloc(10));
    });
    const fetch = createHttpFetch();
    const before = new AbortController();
    const pending = fetch(`${url}/slow-head`, { signal: before.signal });
    setTimeout(() => before.abort(new Error('stopped before the answer')), 20);
    await expect(pending).rejects.toThrow('stopped before the answer');

    const during = new AbortController();
    const response = await fetch(`${url}/slow-body`, { signal: during.signal });
    const reader = response.body!.getReader();
    expect((await reader.read()).value?.length).toBe(10);
    during.abort(new Error('stopped in the body'));
    await expect(reader.read()).rejects.toThrow('stopped in the body');

    await expect(fetch(`${url}/x`, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow(
      'already',
    );
  });

  it('follows redirects, dropping the credentials when the origin changes', async () => {
    const seen: Array<{ where: string; authorization: string | undefined }> = [];
    const other = await serve((request, response) => {
      seen.push({ where: `other${request.url}`, authorization: request.headers.authorization });
      response.end('from the other origin');
    });
    const url = await serve((request, response) => {
      seen.push({ where: `home${request.url}`, authorization: request.headers.authorization });
      if (request.url === '/a') response.writeHead(302, { location: '/b' }).end();
      else if (request.url === '/b') response.writeHead(307, { location: `${other}/c` }).end();
      else if (request.url === '/loop') response.writeHead(302, { location: '/loop' }).end();
    });
    const fetch = createHttpFetch();
    const response = await fetch(`${url}/a`, { headers: { authorization: 'Bearer secret' } });
    expect(await response.text()).toBe('from the other origin');
    expect(seen).toEqual([
      { where: 'home/a', authorization: 'Bearer secret' },
      { where: 'home/b', authorization: 'Bearer secret' },
      { where: 'other/c', authorization: undefined },
    ]);
    await expect(fetch(`${url}/loop`)).rejects.toThrow('Too many redirects');
  });

  it('answers HEAD and 204 without a body, and refuses what it does not do', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/none') response.writeHead(204).end();
      else
        response
          .writeHead(200, { 'content-length': '5' })
          .end(request.method === 'HEAD' ? undefined : 'hello');
    });
    const fetch = createHttpFetch();
    expect((await fetch(`${url}/none`)).body).toBeNull();
    const head = await fetch(`${url}/x`, { method: 'HEAD' });
    expect(head.body).toBeNull();
    expect(head.headers.get('content-length')).toBe('5');
    await expect(fetch(`${url}/x`, { method: 'POST', body: 'x' })).rejects.toThrow('only GET and HEAD');
    await expect(fetch('ftp://127.0.0.1/x')).rejects.toThrow('Unsupported protocol');
  });
});
