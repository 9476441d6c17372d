import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetch, fromFetch, type RawInit, type RawResponse } from '../../src-main/api/http-fetch';

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

async function readAll(response: RawResponse): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body!) chunks.push(chunk);
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
    for (let round = 0; round < 6; round += 1) {
      const response = await fetch(`${url}/file`, {
        headers: { authorization: 'Bearer t', range: 'bytes=0-' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('etag')).toBe('"abc"');
      expect((await readAll(response)).equals(body)).toBe(true);
    }
    // Kept alive: six requests one after the other need no more than two connections (the pool
    // may open a second while the first still settles the answer it just ended).
    expect(sockets.size).toBeLessThanOrEqual(2);
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
        for await (const chunk of response.body!) received.push(chunk);
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
    const reader = response.body![Symbol.asyncIterator]();
    expect((await reader.next()).value?.length).toBe(10);
    during.abort(new Error('stopped in the body'));
    await expect(reader.next()).rejects.toThrow('stopped in the body');

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
    await expect(fetch(`${url}/x`, { method: 'POST' } as unknown as RawInit)).rejects.toThrow(
      'only GET and HEAD',
    );
    await expect(fetch('ftp://127.0.0.1/x')).rejects.toThrow('Unsupported protocol');
  });

  // The same rules hold for Node's fetch behind fromFetch (what the app uses when given a fetch).
  it.each([
    ['the undici transport', () => createHttpFetch()],
    ["Node's fetch through fromFetch", () => fromFetch(globalThis.fetch)],
  ])(
    'times out on silence, not on a body that keeps arriving however long it takes: %s',
    async (_name, make) => {
      const url = await serve((request, response) => {
        if (request.url === '/silent-head') return; // never answers
        if (request.url === '/stall') {
          response.writeHead(200, { 'content-length': '1000' });
          response.write(Buffer.alloc(100, 1)); // then nothing
          return;
        }
        // 20 chunks 25 ms apart: half a second in all, never 150 ms without a byte.
        response.writeHead(200, { 'content-length': '2000' });
        let sent = 0;
        const timer = setInterval(() => {
          response.write(Buffer.alloc(100, 2));
          sent += 1;
          if (sent === 20) {
            clearInterval(timer);
            response.end();
          }
        }, 25);
      });
      const fetch = make();
      const started = Date.now();
      await expect(fetch(`${url}/silent-head`, { idleTimeoutMs: 150 })).rejects.toMatchObject({
        name: 'TimeoutError',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);

      const stalled = await fetch(`${url}/stall`, { idleTimeoutMs: 150 });
      const received: Uint8Array[] = [];
      await expect(
        (async () => {
          for await (const chunk of stalled.body!) received.push(chunk);
        })(),
      ).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(Buffer.concat(received).length).toBe(100); // kept for a Range request

      const slow = await fetch(`${url}/slow`, { idleTimeoutMs: 150 });
      const body = await readAll(slow);
      expect(body.length).toBe(2000);
      expect(body.every((byte) => byte === 2)).toBe(true);
    },
  );

  it.each([
    ['the undici transport', () => createHttpFetch()],
    ["Node's fetch through fromFetch", () => fromFetch(globalThis.fetch)],
  ])(
    'waits the first-byte time for an answer to begin, then the idle time within its body: %s',
    async (_name, make) => {
      const url = await serve((request, response) => {
        if (request.url === '/silent-head') return; // never answers
        // The headers at once, then two more pieces 1.3 s apart: each gap far longer than the
        // first-byte wait (undici times it to within a second), shorter than the idle time.
        response.writeHead(200, { 'content-length': '300' });
        response.write(Buffer.alloc(100, 3));
        let sent = 1;
        const timer = setInterval(() => {
          response.write(Buffer.alloc(100, 3));
          sent += 1;
          if (sent === 3) {
            clearInterval(timer);
            response.end();
          }
        }, 1_300);
      });
      const fetch = make();
      const init: RawInit = { firstByteTimeoutMs: 100, idleTimeoutMs: 5_000 };
      const started = Date.now();
      await expect(fetch(`${url}/silent-head`, init)).rejects.toMatchObject({
        name: 'TimeoutError',
        message: 'No data arrived for 100 ms.',
      });
      expect(Date.now() - started).toBeLessThan(2_500); // not the idle time's 5 s

      const slow = await fetch(`${url}/gaps`, init);
      const body = await readAll(slow);
      expect(body.length).toBe(300);
      expect(body.every((byte) => byte === 3)).toBe(true);
    },
  );

  it('never sends a request stopped while it waited for a connection, and keeps the connection usable', async () => {
    const seen: string[] = [];
    const url = await serve((request, response) => {
      seen.push(request.url ?? '');
      if (request.url === '/held') setTimeout(() => response.end('held'), 100);
      else response.end(`body of ${request.url}`);
    });
    const fetch = createHttpFetch({ maxSockets: 1 });
    const held = fetch(`${url}/held`);
    const stop = new AbortController();
    const queued = fetch(`${url}/queued`, { signal: stop.signal });
    stop.abort(new Error('stopped in the queue'));
    await expect(queued).rejects.toThrow('stopped in the queue');
    expect(await (await held).text()).toBe('held');
    expect(await (await fetch(`${url}/after`)).text()).toBe('body of /after');
    expect(seen).toEqual(['/held', '/after']);
  });

  it('reads headers by any case, joins repeated ones, and follows a redirect with a large body', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/moved') {
        response.writeHead(302, { location: '/here', 'content-length': String(512 * 1024) });
        response.end(Buffer.alloc(512 * 1024, 1));
        return;
      }
      response.setHeader('X-Many', ['one', 'two']);
      response.setHeader('Content-Type', 'text/plain');
      response.end('here');
    });
    const fetch = createHttpFetch({ maxSockets: 1 });
    const response = await fetch(`${url}/moved`);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('CONTENT-TYPE')).toBe('text/plain');
    expect(response.headers.get('x-many')).toBe('one, two');
    expect(response.headers.get('x-none')).toBeNull();
    expect(await response.text()).toBe('here');
    // The connection the large redirect body was cut from is not reused; a new one serves.
    expect(await (await fetch(`${url}/again`)).text()).toBe('here');
  });

  it('leaves no listener on a shared signal once each request is answered, cut short or stopped', async () => {
    // A bulk download hands one signal to thousands of requests: each must stop listening to
    // it when it ends, or the signal holds every exchange for the whole job.
    const url = await serve((request, response) => {
      if (request.url === '/silent') return; // never answers
      response.writeHead(200, { 'content-length': '615' });
      response.end(Buffer.alloc(615, 1));
    });
    const fetch = createHttpFetch();
    const job = new AbortController();
    for (let i = 0; i < 20; i += 1) {
      const response = await fetch(`${url}/file-${i}`, { signal: job.signal });
      expect((await readAll(response)).length).toBe(615);
    }
    const early = await fetch(`${url}/early`, { signal: job.signal });
    for await (const chunk of early.body!) {
      expect(chunk.byteLength).toBeGreaterThan(0);
      break;
    }
    const cancelled = await fetch(`${url}/cancelled`, { signal: job.signal });
    await cancelled.body!.cancel();
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(0);

    // Still heard while a request waits: the job's stop ends it, and then no listener is left.
    const waiting = fetch(`${url}/silent`, { signal: job.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(1);
    job.abort(new Error('the job stopped'));
    await expect(waiting).rejects.toThrow('the job stopped');
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(0);
  });

  it('ends the request when a reader stops early, and the next request is served', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 5);
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': String(body.length) });
      response.end(body);
    });
    const fetch = createHttpFetch({ maxSockets: 1 });
    const first = await fetch(`${url}/big`);
    for await (const chunk of first.body!) {
      expect(chunk.byteLength).toBeGreaterThan(0);
      break; // the rest is not wanted
    }
    const second = await fetch(`${url}/big`);
    expect((await readAll(second)).equals(body)).toBe(true);
  });

  it('tells a reader waiting for the next chunk, or asking later, that the body was cancelled', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/whole') {
        response.end('all of it');
        return;
      }
      response.writeHead(200, { 'content-length': '1000' });
      response.write(Buffer.alloc(10)); // then nothing
    });
    const fetch = createHttpFetch();
    const response = await fetch(`${url}/stalled`);
    const reader = response.body![Symbol.asyncIterator]();
    expect((await reader.next()).value?.length).toBe(10);
    const waiting = reader.next();
    await response.body!.cancel();
    await expect(waiting).rejects.toThrow('cancelled');

    // A body that had arrived whole before it was cancelled does not end as if it were read.
    const whole = await fetch(`${url}/whole`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the whole answer is in
    await whole.body!.cancel();
    await expect(whole.body![Symbol.asyncIterator]().next()).rejects.toThrow('cancelled');
    expect(await (await fetch(`${url}/whole`)).text()).toBe('all of it');
  });

  it('does not count a body the reader is slow to take as silence', async () => {
    const body = Buffer.alloc(4 * 1024 * 1024, 3);
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': String(body.length) });
      response.end(body);
    });
    const response = await createHttpFetch()(`${url}/big`, { idleTimeoutMs: 100 });
    let total = 0;
    let first = true;
    for await (const chunk of response.body!) {
      // The socket is paused meanwhile: no byte can arrive, and that is not the server's doing.
      if (first) await new Promise((resolve) => setTimeout(resolve, 300));
      first = false;
      total += chunk.byteLength;
    }
    expect(total).toBe(body.length);
  });
});
