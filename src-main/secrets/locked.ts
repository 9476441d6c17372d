import net from 'node:net';

/**
 * Whether the Secret Service's default keyring is locked (Linux only), asked over the session
 * D-Bus without any library: one read of the `Locked` property of
 * `/org/freedesktop/secrets/aliases/default`.
 *
 * Why it is needed: libsecret (under keytar) answers a lookup in a locked keyring whose unlock
 * prompt was dismissed or could not be shown with "nothing found", exactly as for a key that is
 * not there, and a delete with "nothing deleted". Without this question a locked keyring would
 * be taken for a lost key and the user sent to enter the API key again.
 *
 * Null when it cannot tell (no session bus, no Secret Service, no default keyring, no answer in
 * time): the caller then keeps the keychain library's own answer.
 */
export async function defaultKeyringLocked(
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = 2_000,
): Promise<boolean | null> {
  const socketPath = busSocket(address);
  if (!socketPath) return null;
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    let settled = false;
    const finish = (answer: boolean | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    let authenticated = false;
    let received = Buffer.alloc(0);
    socket.on('error', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('connect', () => {
      const uid = String(process.getuid?.() ?? 0);
      socket.write(Buffer.from([0]));
      socket.write(`AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (!authenticated) {
        const end = received.indexOf('\r\n');
        if (end < 0) return;
        if (!received.subarray(0, end).toString('ascii').startsWith('OK ')) return finish(null);
        authenticated = true;
        received = received.subarray(end + 2);
        socket.write('BEGIN\r\n');
        socket.write(methodCall(1, BUS, '/org/freedesktop/DBus', BUS, 'Hello'));
        socket.write(
          methodCall(
            2,
            'org.freedesktop.secrets',
            '/org/freedesktop/secrets/aliases/default',
            'org.freedesktop.DBus.Properties',
            'Get',
            ['org.freedesktop.Secret.Collection', 'Locked'],
          ),
        );
      }
      for (;;) {
        const message = nextMessage(received);
        if (!message) return;
        received = received.subarray(message.length);
        if (message.replySerial !== 2) continue;
        return finish(message.type === METHOD_RETURN ? variantBoolean(message) : null);
      }
    });
  });
}

const BUS = 'org.freedesktop.DBus';
const METHOD_RETURN = 2;

/** The socket of a `unix:path=…` or `unix:abstract=…` bus address; the first one that is either. */
function busSocket(address: string | undefined): string | null {
  const fallback = process.env['XDG_RUNTIME_DIR'] ? `unix:path=${process.env['XDG_RUNTIME_DIR']}/bus` : '';
  for (const entry of (address || fallback).split(';')) {
    const [transport, rest = ''] = entry.split(/:(.*)/s);
    if (transport !== 'unix') continue;
    const keys = new Map(
      rest.split(',').map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), decodeURIComponent(pair.slice(at + 1))] as const;
      }),
    );
    const path = keys.get('path');
    if (path) return path;
    const abstract = keys.get('abstract');
    if (abstract) return `\0${abstract}`;
  }
  return null;
}

/** A little-endian METHOD_CALL message whose body is only strings. */
function methodCall(
  serial: number,
  destination: string,
  path: string,
  iface: string,
  member: string,
  args: string[] = [],
): Buffer {
  const out: number[] = [];
  const align = (n: number) => {
    while (out.length % n) out.push(0);
  };
  const u32 = (value: number, at?: number) => {
    const bytes = [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff];
    if (at === undefined) {
      align(4);
      out.push(...bytes);
    } else out.splice(at, 4, ...bytes);
  };
  const string = (text: string) => {
    const bytes = [...Buffer.from(text, 'utf8')];
    u32(bytes.length);
    out.push(...bytes, 0);
  };
  const signature = (text: string) => out.push(text.length, ...Buffer.from(text, 'ascii'), 0);

  const body: number[] = [];
  for (const arg of args) {
    while (body.length % 4) body.push(0);
    const bytes = [...Buffer.from(arg, 'utf8')];
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    body.push(...length, ...bytes, 0);
  }

  out.push('l'.charCodeAt(0), 1, 0, 1);
  u32(body.length);
  u32(serial);
  u32(0); // the header fields' length, set below
  const fields: Array<[number, string, string]> = [
    [1, 'o', path],
    [2, 's', iface],
    [3, 's', member],
    [6, 's', destination],
  ];
  if (args.length > 0) fields.push([8, 'g', 's'.repeat(args.length)]);
  for (const [code, type, value] of fields) {
    align(8);
    out.push(code);
    signature(type);
    if (type === 'g') signature(value);
    else string(value);
  }
  u32(out.length - 16, 12);
  align(8);
  return Buffer.from([...out, ...body]);
}

interface Message {
  length: number;
  type: number;
  replySerial: number | undefined;
  signature: string;
  body: Buffer;
  littleEndian: boolean;
}

/** The first whole message in `data`, or null when it has not all arrived yet. */
function nextMessage(data: Buffer): Message | null {
  if (data.length < 16) return null;
  const littleEndian = data[0] === 'l'.charCodeAt(0);
  const u32 = (at: number) => (littleEndian ? data.readUInt32LE(at) : data.readUInt32BE(at));
  const bodyLength = u32(4);
  const fieldsLength = u32(12);
  const headerEnd = 16 + fieldsLength + ((8 - ((16 + fieldsLength) % 8)) % 8);
  const length = headerEnd + bodyLength;
  if (data.length < length) return null;
  let replySerial: number | undefined;
  let signature = '';
  let at = 16;
  while (at < 16 + fieldsLength) {
    at += (8 - (at % 8)) % 8;
    const code = data[at] ?? 0;
    const typeLength = data[at + 1] ?? 0;
    const type = data.toString('ascii', at + 2, at + 2 + typeLength);
    at += 3 + typeLength;
    if (type === 'g') {
      const valueLength = data[at] ?? 0;
      if (code === 8) signature = data.toString('ascii', at + 1, at + 1 + valueLength);
      at += 2 + valueLength;
    } else {
      at += (4 - (at % 4)) % 4;
      const value = u32(at);
      if (type === 'u') {
        if (code === 5) replySerial = value;
        at += 4;
      } else at += 4 + value + 1;
    }
  }
  return {
    length,
    type: data[1] ?? 0,
    replySerial,
    signature,
    body: data.subarray(headerEnd, length),
    littleEndian,
  };
}

/** The boolean inside a reply whose body is one variant, or null when it holds something else. */
function variantBoolean(message: Message): boolean | null {
  const { body, signature } = message;
  if (signature !== 'v' || body.length < 8) return null;
  const typeLength = body[0] ?? 0;
  if (body.toString('ascii', 1, 1 + typeLength) !== 'b') return null;
  // The body starts 8-aligned in the message, so alignment inside it is by its own offsets.
  const at = 2 + typeLength + ((4 - ((2 + typeLength) % 4)) % 4);
  if (body.length < at + 4) return null;
  return (message.littleEndian ? body.readUInt32LE(at) : body.readUInt32BE(at)) === 1;
}
