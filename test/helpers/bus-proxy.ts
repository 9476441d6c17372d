import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { busSocket, nextMessage } from '../../src-main/secrets/locked';

export interface BusProxy {
  /** The D-Bus address to give a process instead of the bus's own. */
  address: string;
  /** Every message the processes sent the bus, in order, as text (latin1): its header and body. */
  calls: string[];
  close(): Promise<void>;
}

/**
 * A pass-through to a real D-Bus bus, on a Unix socket of its own, that sees the messages its
 * clients send (the bus's answers pass untouched). `before(message, connection)` runs before each
 * message is passed on, and may do something to the real bus first (lock a keyring) — it runs
 * synchronously, so the message waits for it. Every client of the process goes through it,
 * libsecret's included, so what libsecret asks is seen too.
 *
 * The sign-in (text lines up to `BEGIN`) passes as it is; the bus checks the credentials of
 * the proxy's own connection, which are the same user's.
 */
export async function startBusProxy(
  busAddress: string,
  before: (message: string, connection: number) => void = () => {},
): Promise<BusProxy> {
  const target = busSocket(busAddress);
  if (!target) throw new Error(`No Unix socket in the bus address ${busAddress}.`);
  const folder = mkdtempSync(path.join(tmpdir(), 'satchel-bus-proxy-'));
  const socketPath = path.join(folder, 'bus');
  const calls: string[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((client) => {
    const id = (connections += 1);
    const bus = net.connect(target);
    sockets.add(client).add(bus);
    let pending = Buffer.alloc(0);
    let signIn: Buffer | null = Buffer.alloc(0);
    client.on('data', (chunk) => {
      let rest = chunk;
      if (signIn) {
        const text = Buffer.concat([signIn, chunk]);
        const end = text.indexOf('BEGIN\r\n');
        if (end < 0) {
          signIn = text;
          bus.write(chunk);
          return;
        }
        // Pass the sign-in on up to its BEGIN; messages follow.
        const through = end + 7 - signIn.length;
        bus.write(chunk.subarray(0, through));
        rest = chunk.subarray(through);
        signIn = null;
      }
      pending = Buffer.concat([pending, rest]);
      for (let message = nextMessage(pending); message; message = nextMessage(pending)) {
        const bytes = pending.subarray(0, message.length);
        pending = pending.subarray(message.length);
        const text = bytes.toString('latin1');
        calls.push(text);
        before(text, id);
        bus.write(bytes);
      }
    });
    bus.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      bus.destroy();
    };
    client.on('close', end).on('error', end);
    bus.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    address: `unix:path=${socketPath}`,
    calls,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
