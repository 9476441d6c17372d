import net from 'node:net';

/**
 * What the Secret Service (Linux) says, asked over the session D-Bus without any library.
 *
 * Why it is needed: libsecret (under keytar) answers a lookup in a locked keyring whose unlock
 * prompt was dismissed or could not be shown with "nothing found", exactly as for a key that is
 * not there, and a delete with "nothing deleted"; a search of all items crashes the process on
 * the first locked item. Without these questions a locked keyring would be taken for a lost key
 * and the user sent to enter the API key again.
 */

/** The default keyring's state: `none` when the Secret Service has no default keyring. */
export type DefaultKeyring = 'unlocked' | 'locked' | 'none';

export interface KeyringState {
  /** Null when it cannot tell. */
  defaultKeyring: DefaultKeyring | null;
  /**
   * How many items that match the attributes asked about are locked, in whichever keyring
   * (`SearchItems`, which gives locked items apart without reading them); null when not asked or
   * it cannot tell.
   */
  lockedItems: number | null;
}

/**
 * The default keyring's state and, when `attributes` are given, how many matching items are
 * locked: three calls on one connection (`ReadAlias("default")`, the `Locked` property of
 * `/org/freedesktop/secrets/aliases/default`, `SearchItems`). Null answers when it cannot tell
 * (no session bus, no Secret Service, no answer in time): the caller then keeps the keychain
 * library's own answer.
 */
export async function keyringState(
  attributes?: Record<string, string>,
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = 2_000,
): Promise<KeyringState> {
  const calls: Call[] = [
    {
      path: '/org/freedesktop/secrets',
      iface: SERVICE,
      member: 'ReadAlias',
      args: [{ type: 's', value: 'default' }],
    },
    {
      path: '/org/freedesktop/secrets/aliases/default',
      iface: 'org.freedesktop.DBus.Properties',
      member: 'Get',
      args: [
        { type: 's', value: 'org.freedesktop.Secret.Collection' },
        { type: 's', value: 'Locked' },
      ],
    },
  ];
  if (attributes)
    calls.push({
      path: '/org/freedesktop/secrets',
      iface: SERVICE,
      member: 'SearchItems',
      args: [{ type: 'a{ss}', value: attributes }],
    });
  const [alias, locked, search] = await secretServiceCalls(calls, address, timeoutMs);
  const aliasPath = alias ? objectPath(alias) : null;
  const lockedAnswer = locked ? variantBoolean(locked) : null;
  const found = search ? objectPathArrays(search) : null;
  return {
    defaultKeyring:
      aliasPath === '/' ? 'none' : lockedAnswer === null ? null : lockedAnswer ? 'locked' : 'unlocked',
    lockedItems: found && found.length === 2 ? found[1]!.length : null,
  };
}

/**
 * Whether the Secret Service's default keyring is locked: null when it cannot tell, or when
 * there is no default keyring.
 */
export async function defaultKeyringLocked(
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = 2_000,
): Promise<boolean | null> {
  const { defaultKeyring } = await keyringState(undefined, address, timeoutMs);
  return defaultKeyring === 'locked' ? true : defaultKeyring === 'unlocked' ? false : null;
}

const SERVICE = 'org.freedesktop.Secret.Service';

type Arg = { type: 's'; value: string } | { type: 'a{ss}'; value: Record<string, string> };
interface Call {
  path: string;
  iface: string;
  member: string;
  args: Arg[];
}

/**
 * Sends the calls to the Secret Service on one connection, all at once, and gives each one's
 * reply: null for an error reply, or when no answer came (no bus, refused, not in time).
 */
function secretServiceCalls(
  calls: Call[],
  address: string | undefined,
  timeoutMs: number,
): Promise<Array<Message | null>> {
  const replies: Array<Message | null> = calls.map(() => null);
  const socketPath = busSocket(address);
  if (!socketPath) return Promise.resolve(replies);
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    let settled = false;
    let waiting = calls.length;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(replies);
    };
    const timer = setTimeout(finish, timeoutMs);
    let authenticated = false;
    let received = Buffer.alloc(0);
    socket.on('error', finish);
    socket.on('close', finish);
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
        if (!received.subarray(0, end).toString('ascii').startsWith('OK ')) return finish();
        authenticated = true;
        received = received.subarray(end + 2);
        socket.write('BEGIN\r\n');
        socket.write(
          methodCall(1, BUS, { path: '/org/freedesktop/DBus', iface: BUS, member: 'Hello', args: [] }),
        );
        // Serials 2, 3, …: the bus answers each in turn, matched by its reply serial.
        calls.forEach((call, index) => socket.write(methodCall(index + 2, 'org.freedesktop.secrets', call)));
      }
      for (;;) {
        const message = nextMessage(received);
        if (!message) return;
        received = received.subarray(message.length);
        const index = (message.replySerial ?? 0) - 2;
        if (index < 0 || index >= calls.length) continue;
        replies[index] = message.type === METHOD_RETURN ? message : null;
        waiting -= 1;
        if (waiting === 0) return finish();
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

/** Little-endian marshalling: a growing byte list, aligned by its own offsets. */
function writer() {
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
  return { out, align, u32, string, signature };
}

/** A method call's body (strings, and string-to-string dictionaries) and its signature. */
function marshal(args: Arg[]): { signature: string; body: number[] } {
  const body = writer();
  let signature = '';
  for (const arg of args) {
    signature += arg.type;
    if (arg.type === 's') {
      body.string(arg.value);
      continue;
    }
    // An array's length counts its elements' bytes, not the padding up to its first one.
    body.u32(0);
    const lengthAt = body.out.length - 4;
    body.align(8);
    const start = body.out.length;
    for (const [key, value] of Object.entries(arg.value)) {
      body.align(8);
      body.string(key);
      body.string(value);
    }
    body.u32(body.out.length - start, lengthAt);
  }
  return { signature, body: body.out };
}

/** A little-endian METHOD_CALL message. */
function methodCall(serial: number, destination: string, call: Call): Buffer {
  const { signature: bodySignature, body } = marshal(call.args);
  const { out, align, u32, string, signature } = writer();
  out.push('l'.charCodeAt(0), 1, 0, 1);
  u32(body.length);
  u32(serial);
  u32(0); // the header fields' length, set below
  const fields: Array<[number, string, string]> = [
    [1, 'o', call.path],
    [2, 's', call.iface],
    [3, 's', call.member],
    [6, 's', destination],
  ];
  if (bodySignature) fields.push([8, 'g', bodySignature]);
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

/** Reads a string-like value (`s`, `o`) at `at`: its text and where the next value may start. */
function readString(message: Message, at: number): { text: string; next: number } | null {
  const { body, littleEndian } = message;
  const start = at + ((4 - (at % 4)) % 4);
  if (body.length < start + 4) return null;
  const length = littleEndian ? body.readUInt32LE(start) : body.readUInt32BE(start);
  if (body.length < start + 4 + length + 1) return null;
  return { text: body.toString('utf8', start + 4, start + 4 + length), next: start + 4 + length + 1 };
}

/** The object path of a reply whose body is one (`ReadAlias`), or null. */
function objectPath(message: Message): string | null {
  if (message.signature !== 'o') return null;
  return readString(message, 0)?.text ?? null;
}

/** The arrays of object paths of a reply whose body is only such arrays (`SearchItems`: `aoao`). */
function objectPathArrays(message: Message): string[][] | null {
  const { body, littleEndian, signature } = message;
  if (!/^(ao)+$/.test(signature)) return null;
  const arrays: string[][] = [];
  let at = 0;
  for (let n = 0; n < signature.length / 2; n += 1) {
    at += (4 - (at % 4)) % 4;
    if (body.length < at + 4) return null;
    const length = littleEndian ? body.readUInt32LE(at) : body.readUInt32BE(at);
    at += 4;
    const end = at + length;
    const paths: string[] = [];
    while (at < end) {
      const path = readString(message, at);
      if (!path) return null;
      paths.push(path.text);
      at = path.next;
    }
    arrays.push(paths);
  }
  return arrays;
}
