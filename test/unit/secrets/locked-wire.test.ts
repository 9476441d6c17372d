import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DbusWireError,
  MessageReader,
  errorText,
  keyringState,
  marshal,
  methodCall,
  nextMessage,
  objectPath,
  objectPathArrays,
  variantBoolean,
  variantString,
  variantStringDict,
  serviceAccounts,
  withSecretService,
  type Call,
  type Message,
} from '../../../src-main/secrets/locked';
import { createKeychainSecrets } from '../../../src-main/secrets';

// The D-Bus wire format of src-main/secrets/locked.ts, fed real bytes: built by hand from the
// D-Bus specification ("Message Protocol": alignment, header fields, arrays) and captured from
// a real gnome-keyring (gnome-keyring-replies.json, which says how). The connection tests speak
// the bus's side over a real Unix socket.

const captured = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'gnome-keyring-replies.json'), 'utf8'),
) as {
  reads: string[];
};
const reads = captured.reads.map((hex) => Buffer.from(hex, 'hex'));
const stream = Buffer.concat(reads);

// Hand-building helpers: bytes as the specification lays them out.
const ascii = (text: string) => [...Buffer.from(text, 'utf8')];
const le32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const be32 = (n: number) => le32(n).reverse();
const zeros = (n: number) => new Array<number>(n).fill(0);

/** A little-endian reply built field by field; `body` already marshalled from offset 0. */
function reply(options: {
  type?: number;
  serial?: number;
  replySerial?: number;
  errorName?: string;
  signature?: string;
  body?: number[];
}): Buffer {
  const out: number[] = [
    0x6c,
    options.type ?? 2,
    1,
    1,
    ...le32(options.body?.length ?? 0),
    ...le32(options.serial ?? 50),
  ];
  out.push(...zeros(4));
  const pad = (n: number) => out.push(...zeros((n - (out.length % n)) % n));
  const field = (code: number, type: string, value: number[]) => {
    pad(8);
    out.push(code, 1, type.charCodeAt(0), 0);
    if (type !== 'g') pad(4);
    out.push(...value);
  };
  const str = (text: string) => [...le32(Buffer.byteLength(text)), ...ascii(text), 0];
  // A sender of odd length first, so the next field's padding is not nothing.
  field(7, 's', str(':1.23'));
  if (options.replySerial !== undefined) field(5, 'u', le32(options.replySerial));
  if (options.errorName) field(4, 's', str(options.errorName));
  if (options.signature) field(8, 'g', [options.signature.length, ...ascii(options.signature), 0]);
  out.splice(12, 4, ...le32(out.length - 16));
  pad(8);
  return Buffer.from([...out, ...(options.body ?? [])]);
}
const stringBody = (text: string) => [...le32(Buffer.byteLength(text)), ...ascii(text), 0];

/** A body marshalled little-endian from its own offset 0, padding included. */
function body() {
  const out: number[] = [];
  const b = {
    out,
    pad(n: number) {
      while (out.length % n) out.push(0);
      return b;
    },
    string(text: string) {
      b.pad(4);
      out.push(...stringBody(text));
      return b;
    },
    /** An array: its 4-aligned length, the padding to its first element's alignment, then `fill`. */
    array(elementAlign: number, fill: () => void) {
      b.pad(4);
      const lengthAt = out.length;
      out.push(...le32(0));
      b.pad(elementAlign);
      const start = out.length;
      fill();
      out.splice(lengthAt, 4, ...le32(out.length - start));
      return b;
    },
  };
  return b;
}
/** The body of a reply that is one variant of `a{ss}` (an item's `Attributes`). */
function dictVariant(entries: Array<[string, string]>): number[] {
  const b = body();
  b.out.push(5, ...ascii('a{ss}'), 0);
  b.array(8, () => {
    for (const [key, value] of entries) b.pad(8).string(key).string(value);
  });
  return b.out;
}
/** The body of a `SearchItems` reply (`aoao`). */
function searchBody(unlocked: string[], locked: string[]): number[] {
  const b = body();
  for (const paths of [unlocked, locked]) b.array(4, () => paths.forEach((item) => b.string(item)));
  return b.out;
}

function only(data: Buffer): Message {
  const reader = new MessageReader();
  const messages = reader.push(data);
  expect(messages).toHaveLength(1);
  expect(reader.buffered).toBe(0);
  return messages[0]!;
}

describe('the encoder', () => {
  it('writes the Hello call byte for byte as the specification lays it out', () => {
    const field = (code: number, type: string, text: string) => [
      code,
      1,
      type.charCodeAt(0),
      0,
      ...le32(text.length),
      ...ascii(text),
      0,
    ];
    const expected = [
      ...[0x6c, 1, 0, 1], // little-endian, METHOD_CALL, no flags, version 1
      ...le32(0), // no body
      ...le32(1), // serial
      ...le32(109), // header fields: 16…125
      ...field(1, 'o', '/org/freedesktop/DBus'), // 16…46
      ...zeros(2),
      ...field(2, 's', 'org.freedesktop.DBus'), // 48…77
      ...zeros(3),
      ...field(3, 's', 'Hello'), // 80…94
      ...zeros(2),
      ...field(6, 's', 'org.freedesktop.DBus'), // 96…125
      ...zeros(3), // the header ends 8-aligned
    ];
    const hello: Call = {
      path: '/org/freedesktop/DBus',
      iface: 'org.freedesktop.DBus',
      member: 'Hello',
      args: [],
    };
    expect([...methodCall(1, 'org.freedesktop.DBus', hello)]).toEqual(expected);
  });

  it('pads before an array and before each dict entry where the offset is not 8-aligned', () => {
    // "ab" ends at 7: the array length is 4-aligned at 8; its first entry 8-aligned at 16;
    // the second entry at 32, after "v" ended at 30. The length (31) leaves out the padding
    // between it and the first entry.
    const { signature, body } = marshal([
      { type: 's', value: 'ab' },
      { type: 'a{ss}', value: { k: 'v', kk: 'vv' } },
    ]);
    expect(signature).toBe('sa{ss}');
    expect(body).toEqual([
      ...le32(2),
      ...ascii('ab'),
      0, // 0…7
      0, // 7…8
      ...le32(31), // 8…12
      ...zeros(4), // 12…16
      ...le32(1),
      ...ascii('k'),
      0, // 16…22
      ...zeros(2),
      ...le32(1),
      ...ascii('v'),
      0, // 24…30
      ...zeros(2),
      ...le32(2),
      ...ascii('kk'),
      0, // 32…39
      0,
      ...le32(2),
      ...ascii('vv'),
      0, // 40…47
    ]);
  });

  it('keeps the padding of an empty array, which has no element to pad for', () => {
    const { body } = marshal([
      { type: 's', value: 'ab' },
      { type: 'a{ss}', value: {} },
    ]);
    expect(body).toEqual([...le32(2), ...ascii('ab'), 0, 0, ...le32(0), ...zeros(4)]);
    // First in the body: the length at 0, then padding to 8.
    expect(marshal([{ type: 'a{ss}', value: {} }]).body).toEqual([...le32(0), ...zeros(4)]);
  });
});

describe('the decoder, on what gnome-keyring sent', () => {
  const expected = [
    { type: 2, replySerial: 1, signature: 's' }, // Hello: the unique name
    { type: 4, replySerial: undefined, signature: 's' }, // the NameAcquired signal
    { type: 3, replySerial: 7, signature: 's', errorName: 'org.freedesktop.DBus.Error.InvalidArgs' },
    { type: 2, replySerial: 2, signature: 'o' },
    { type: 2, replySerial: 3, signature: 'v' },
    { type: 2, replySerial: 4, signature: 'v' },
    { type: 2, replySerial: 5, signature: 'aoao' },
    { type: 2, replySerial: 6, signature: 'aoao' },
  ];

  it('reads every message and every answer in it', () => {
    const reader = new MessageReader();
    const messages = reads.flatMap((read) => reader.push(read));
    expect(reader.buffered).toBe(0);
    expect(messages).toMatchObject(expected);
    const [, , error, alias, locked, label, search, searchAll] = messages;
    expect(errorText(error!)).toBe('org.freedesktop.DBus.Error.InvalidArgs: No such property “Nope”');
    expect(objectPath(alias!)).toBe('/org/freedesktop/secrets/collection/session');
    expect(variantBoolean(locked!)).toBe(true);
    expect(variantString(label!)).toBe('Login');
    expect(variantBoolean(label!)).toBeNull();
    expect(objectPathArrays(search!)).toEqual([[], ['/org/freedesktop/secrets/collection/login/1']]);
    // The search with an empty dictionary: the daemon took the empty array as well formed.
    expect(objectPathArrays(searchAll!)).toEqual([[], ['/org/freedesktop/secrets/collection/login/1']]);
  });

  it('gives the same messages however the reads split them: at every byte, or all in one', () => {
    const whole = new MessageReader().push(stream).map((message) => message.serial);
    expect(whole).toHaveLength(expected.length);
    for (let at = 1; at < stream.length; at += 1) {
      const reader = new MessageReader();
      const first = reader.push(stream.subarray(0, at));
      const second = reader.push(stream.subarray(at));
      expect([...first, ...second].map((message) => message.serial)).toEqual(whole);
      expect(reader.buffered).toBe(0);
    }
    // One byte at a time.
    const reader = new MessageReader();
    const trickled = [...stream].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(trickled.map((message) => message.serial)).toEqual(whole);
  });

  it('waits for the rest of a message cut short, and gives nothing of it meanwhile', () => {
    const first = nextMessage(stream)!;
    const reader = new MessageReader();
    expect(reader.push(stream.subarray(0, first.length - 1))).toEqual([]);
    expect(reader.buffered).toBe(first.length - 1);
    expect(reader.push(stream.subarray(first.length - 1, first.length))).toHaveLength(1);
    expect(nextMessage(stream.subarray(0, 15))).toBeNull();
  });
});

describe('the decoder, on hand-built messages', () => {
  it('reads a big-endian reply, the padding of its header fields and body included', () => {
    const message = Buffer.from([
      ...[0x42, 2, 1, 1], // big-endian METHOD_RETURN
      ...be32(7), // body length
      ...be32(9), // serial
      ...be32(31), // header fields: 16…47
      ...[5, 1, 0x75, 0],
      ...be32(2), // REPLY_SERIAL u 2: 16…24
      ...[7, 1, 0x73, 0],
      ...be32(4),
      ...ascii(':1.7'),
      0, // SENDER s: 24…37
      ...zeros(3), // to 40, 8-aligned for the next field
      ...[8, 1, 0x67, 0, 1, 0x6f, 0], // SIGNATURE g "o": 40…47
      0, // the body starts 8-aligned, at 48
      ...be32(2),
      ...ascii('/x'),
      0,
    ]);
    const read = only(message);
    expect(read).toMatchObject({ type: 2, serial: 9, replySerial: 2, signature: 'o', littleEndian: false });
    expect(objectPath(read)).toBe('/x');
  });

  it('reads paths of odd lengths in an array, each 4-aligned, and an empty array beside them', () => {
    const paths = ['/a', '/bcd/e'];
    const items = [...stringBody(paths[0]!), 0, ...stringBody(paths[1]!)]; // 0…7, pad, 8…19
    const body = [...le32(0), ...le32(items.length), ...items];
    const read = only(reply({ replySerial: 5, signature: 'aoao', body }));
    expect(objectPathArrays(read)).toEqual([[], paths]);
  });

  it('surfaces an error reply’s name and message text', () => {
    const error = reply({
      type: 3,
      replySerial: 4,
      errorName: 'org.freedesktop.Secret.Error.IsLocked',
      signature: 's',
      body: stringBody('Cannot read a locked item'),
    });
    expect(errorText(only(error))).toBe('org.freedesktop.Secret.Error.IsLocked: Cannot read a locked item');
    expect(errorText(only(reply({ type: 3, replySerial: 4, errorName: 'org.example.Bare' })))).toBe(
      'org.example.Bare',
    );
  });

  it('gives null, not a wrong answer, for a reply of another shape or one cut short', () => {
    expect(objectPath(only(reply({ replySerial: 2, signature: 's', body: stringBody('/x') })))).toBeNull();
    expect(variantBoolean(only(reply({ replySerial: 3, signature: 'v', body: [1, 0x62, 0] })))).toBeNull();
    // An array that claims more bytes than the body has.
    const long = reply({
      replySerial: 5,
      signature: 'aoao',
      body: [...le32(0), ...le32(400), ...stringBody('/a')],
    });
    expect(objectPathArrays(only(long))).toBeNull();
  });
});

describe("an item's attributes: a variant of a{ss}", () => {
  const attributes = (bytes: number[], signature = 'v') =>
    variantStringDict(only(reply({ replySerial: 8, signature, body: bytes })));

  it('reads the entries, each 8-aligned, of odd lengths, as the specification lays them out', () => {
    const bytes = dictVariant([
      ['account', 'profile:a'],
      ['service', 'Satchel'],
      ['xdg:schema', 'org.freedesktop.Secret.Generic'],
    ]);
    // By hand: the signature "a{ss}" (0…7), padding to 8, the length, padding to 16, then the
    // first entry: "account" 16…28, its value 4-aligned right after, "profile:a" 28…42, then
    // padding to the next entry at 48.
    expect(bytes.slice(0, 16)).toEqual([5, ...ascii('a{ss}'), 0, 0, ...le32(bytes.length - 16), ...zeros(4)]);
    expect(bytes.slice(16, 48)).toEqual([...stringBody('account'), ...stringBody('profile:a'), ...zeros(6)]);
    expect(attributes(bytes)).toEqual(
      new Map([
        ['account', 'profile:a'],
        ['service', 'Satchel'],
        ['xdg:schema', 'org.freedesktop.Secret.Generic'],
      ]),
    );
    // No entry: the padding to 8 is still there, the length 0.
    expect(attributes(dictVariant([]))).toEqual(new Map());
    // A key given twice keeps its last value; a key that is a property of every object is data.
    expect(
      attributes(
        dictVariant([
          ['account', 'one'],
          ['__proto__', 'x'],
          ['account', 'two'],
        ]),
      ),
    ).toEqual(
      new Map([
        ['account', 'two'],
        ['__proto__', 'x'],
      ]),
    );
  });

  it('gives null, never a throw nor a part of it, for a reply cut short anywhere', () => {
    const bytes = dictVariant([
      ['account', 'profile:a'],
      ['service', 'Satchel'],
    ]);
    for (let cut = 0; cut < bytes.length; cut += 1)
      expect(attributes(bytes.slice(0, cut)), `cut at ${cut}`).toBeNull();
    // An array that claims more bytes than the body has, or fewer than its last entry needs.
    const long = [...bytes];
    long.splice(8, 4, ...le32(bytes.length));
    expect(attributes(long)).toBeNull();
    const short = [...bytes];
    short.splice(8, 4, ...le32(bytes.length - 16 - 3));
    expect(attributes(short)).toBeNull();
    // A string whose length runs past the array.
    const runaway = [...bytes];
    runaway.splice(16, 4, ...le32(200));
    expect(attributes(runaway)).toBeNull();
  });

  it('gives null for a variant of another type, or a body that is not one variant', () => {
    expect(attributes([1, 0x73, 0, 0, ...stringBody('profile:a')])).toBeNull();
    expect(attributes([5, ...ascii('a{sv}'), 0, 0, ...le32(0), ...zeros(4)])).toBeNull();
    expect(attributes(dictVariant([['account', 'a']]).slice(8), 'a{ss}')).toBeNull();
    expect(variantString(only(reply({ replySerial: 8, signature: 'v', body: dictVariant([]) })))).toBeNull();
  });
});

describe('malformed input', () => {
  const wire = (data: Buffer) => () => new MessageReader().push(data);
  const header = (bytes: number[]) => Buffer.from([...bytes, ...zeros(64)]);

  it('says what is wrong, at once, rather than waiting or misreading', () => {
    expect(wire(Buffer.from('HTTP/1.1 400 Bad Request\r\n'))).toThrow(
      'The session bus sent a message Satchel cannot read: it starts with byte 0x48, not "l" or "B".',
    );
    expect(wire(header([0x6c, 2, 0, 2, ...le32(0), ...le32(1), ...le32(0)]))).toThrow(
      /protocol version is 2, not 1/,
    );
    expect(wire(header([0x6c, 0, 0, 1, ...le32(0), ...le32(1), ...le32(0)]))).toThrow(/its type is 0/);
    expect(wire(header([0x6c, 2, 0, 1, ...le32(0xfffffff0), ...le32(1), ...le32(8)]))).toThrow(
      /more than the 128 MiB D-Bus allows/,
    );
    // A string field whose length runs past the header fields' stated length.
    expect(
      wire(
        header([
          0x6c,
          2,
          0,
          1,
          ...le32(0),
          ...le32(1),
          ...le32(12),
          7,
          1,
          0x73,
          0,
          ...le32(200),
          0x3a,
          0,
          0,
          0,
        ]),
      ),
    ).toThrow(/header field 7 \(s\) runs past the 12 bytes of header fields/);
    // A string not ended by its nul byte.
    expect(
      wire(
        header([0x6c, 2, 0, 1, ...le32(0), ...le32(1), ...le32(10), 7, 1, 0x73, 0, ...le32(1), 0x3a, 0x3a]),
      ),
    ).toThrow(/not ended by a nul byte/);
    // A header field of a container type.
    expect(
      wire(header([0x6c, 2, 0, 1, ...le32(0), ...le32(1), ...le32(8), 7, 1, 0x61, 0, ...le32(0)])),
    ).toThrow(/header field 7 has type "a"/);
    for (const check of [wire(Buffer.from('HTTP/1.1 400 Bad Request\r\n'))])
      expect(check).toThrow(DbusWireError);
  });

  it('never throws anything but its own clear error, nor loops, on damaged or random bytes', () => {
    // A fixed seed: the same bytes each run.
    let seed = 0x5a7c4e1;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const decoders = [
      objectPath,
      variantBoolean,
      variantString,
      variantStringDict,
      objectPathArrays,
      errorText,
    ];
    let refused = 0;
    for (let run = 0; run < 3000; run += 1) {
      const data = Buffer.from(stream);
      if (run % 3 === 0) for (let i = 0; i < data.length; i += 1) data[i] = Math.floor(random() * 256);
      else {
        // A few bytes changed, one of them often a length or a padding byte.
        for (let n = 1 + Math.floor(random() * 4); n > 0; n -= 1)
          data[Math.floor(random() * data.length)] = Math.floor(random() * 256);
      }
      const cut = data.subarray(0, Math.floor(random() * data.length) + 1);
      try {
        for (const message of new MessageReader().push(cut)) for (const decode of decoders) decode(message);
      } catch (error) {
        expect(error).toBeInstanceOf(DbusWireError);
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(100);
  });
});

describe('a connection to a bus', () => {
  // The bus's side of a real Unix socket: signs in anything, then runs `script` with what came
  // after the sign-in.
  const servers: net.Server[] = [];
  const folders: string[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  async function bus(
    script: (socket: net.Socket, after: Buffer) => void,
    greeting = 'OK 0123456789abcdef0123456789abcdef\r\n',
  ) {
    const folder = mkdtempSync(path.join(tmpdir(), 'satchel-bus-'));
    folders.push(folder);
    const socketPath = path.join(folder, 'bus');
    const server = net.createServer((socket) => {
      let text = '';
      let begun = false;
      let greeted = false;
      socket.on('error', () => {});
      socket.on('data', (chunk) => {
        if (begun) return;
        text += chunk.toString('latin1');
        if (text.includes('AUTH ') && !greeted) {
          socket.write(greeting);
          greeted = true;
        }
        if (text.includes('BEGIN\r\n')) {
          begun = true;
          // What came after BEGIN in the same read: the first messages.
          script(socket, Buffer.from(text.slice(text.indexOf('BEGIN\r\n') + 7), 'latin1'));
        }
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    return `unix:path=${socketPath}`;
  }
  const calls: Call[] = [
    {
      path: '/org/freedesktop/secrets',
      iface: 'org.freedesktop.Secret.Service',
      member: 'ReadAlias',
      args: [{ type: 's', value: 'default' }],
    },
    {
      path: '/org/freedesktop/secrets',
      iface: 'org.freedesktop.Secret.Service',
      member: 'SearchItems',
      args: [{ type: 'a{ss}', value: { service: 'Satchel' } }],
    },
  ];
  const ask = (address: string, timeoutMs = 2_000) =>
    withSecretService(address, timeoutMs, (send) => send(calls));
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('matches replies by serial, passing over signals and replies to others, across split reads', async () => {
    const address = await bus((socket) => {
      void (async () => {
        const bytes = Buffer.concat([
          reply({ replySerial: 1, signature: 's', body: stringBody(':1.40') }), // Hello
          reply({ type: 4, signature: 's', body: stringBody(':1.40') }), // a signal
          reply({ replySerial: 99, signature: 'o', body: stringBody('/not/ours') }),
          reply({
            type: 3,
            replySerial: 3,
            errorName: 'org.freedesktop.DBus.Error.Failed',
            signature: 's',
            body: stringBody('It broke'),
          }),
          reply({
            replySerial: 2,
            signature: 'o',
            body: stringBody('/org/freedesktop/secrets/collection/login'),
          }),
        ]);
        // Two writes, the cut inside a header, with time between them: two reads.
        socket.write(bytes.subarray(0, 61));
        await wait(30);
        socket.write(bytes.subarray(61));
      })();
    });
    const [alias, search] = await ask(address);
    expect(alias).toHaveProperty('message');
    expect(objectPath((alias as { message: Message }).message)).toBe(
      '/org/freedesktop/secrets/collection/login',
    );
    expect(search).toEqual({ error: 'org.freedesktop.DBus.Error.Failed: It broke' });
  });

  it('gives every call the clear error when the bus sends bytes it cannot read, at once', async () => {
    const address = await bus((socket) => socket.write('not a D-Bus message at all, not even close'));
    const started = Date.now();
    // At once: long before the time it would wait for an answer.
    const replies = await ask(address, 60_000);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(replies).toEqual([
      {
        error:
          'The session bus sent a message Satchel cannot read: it starts with byte 0x6e, not "l" or "B".',
      },
      {
        error:
          'The session bus sent a message Satchel cannot read: it starts with byte 0x6e, not "l" or "B".',
      },
    ]);
    // The keyring's state then says it cannot tell, and why.
    expect(await keyringState({ service: 'Satchel' }, address)).toEqual({
      defaultKeyring: null,
      defaultLabel: null,
      lockedItems: null,
      problem: expect.stringContaining('cannot read: it starts with byte 0x6e'),
    });
  });

  it('says the bus closed the connection when a message is cut short and the bus goes', async () => {
    const address = await bus((socket) => {
      socket.end(reply({ replySerial: 2, signature: 'o', body: stringBody('/x') }).subarray(0, 30));
    });
    expect(await ask(address)).toEqual([
      { error: 'The session bus closed the connection before answering.' },
      { error: 'The session bus closed the connection before answering.' },
    ]);
  });

  it('stops waiting when the bus says nothing, within its time', async () => {
    const address = await bus(() => {});
    const started = Date.now();
    expect(await ask(address, 300)).toEqual([
      { error: 'The session bus gave no answer within 300 ms.' },
      { error: 'The session bus gave no answer within 300 ms.' },
    ]);
    // Not waiting on: a bound loose enough for a loaded machine's late timer.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('asks the default keyring’s lock and label at its own path, which gnome-keyring cannot misroute', async () => {
    // gnome-keyring rewrites a call's `/aliases/default` path in its D-Bus thread while its main
    // thread, greeting the new connection, replaces the alias: on a busy machine about 1 in
    // 150 new connections got this answer for the alias path's `Locked`, which said "cannot
    // tell" of an unlocked keyring. This Secret Service answers the alias path so, every time.
    const asked: string[] = [];
    const address = await bus((socket, after) => {
      let pending: Buffer = after;
      const answer = (data: Buffer) => {
        pending = Buffer.concat([pending, data]);
        for (let message = nextMessage(pending); message; message = nextMessage(pending)) {
          const raw = pending.subarray(0, message.length).toString('latin1');
          pending = pending.subarray(message.length);
          const replySerial = message.serial;
          const what = ['Hello', 'ReadAlias', 'SearchItems', 'Locked', 'Label'].find((name) =>
            raw.includes(name),
          );
          const at = /\/org\/freedesktop\/[A-Za-z]+(\/[a-z]+\/[a-z]+)?/.exec(raw)?.[0] ?? '?';
          asked.push(`${what} ${at}`);
          if (what === 'Hello') {
            socket.write(reply({ replySerial, signature: 's', body: stringBody(':1.40') }));
          } else if (what === 'ReadAlias') {
            const body = stringBody('/org/freedesktop/secrets/collection/session');
            socket.write(reply({ replySerial, signature: 'o', body }));
          } else if (what === 'SearchItems') {
            const locked = stringBody('/org/freedesktop/secrets/collection/work/3');
            const body = [...le32(0), ...le32(locked.length), ...locked];
            socket.write(reply({ replySerial, signature: 'aoao', body }));
          } else if (at.includes('/aliases/')) {
            const text = 'Object does not exist at path “/org/freedesktop/secrets/collection/_efAe_f5_c7U”';
            const errorName = 'org.freedesktop.DBus.Error.UnknownMethod';
            socket.write(reply({ type: 3, replySerial, errorName, signature: 's', body: stringBody(text) }));
          } else if (what === 'Locked') {
            socket.write(reply({ replySerial, signature: 'v', body: [1, 0x62, 0, 0, ...le32(0)] }));
          } else {
            const label = at.endsWith('/work') ? 'Work' : 'Session';
            socket.write(reply({ replySerial, signature: 'v', body: [1, 0x73, 0, 0, ...stringBody(label)] }));
          }
        }
      };
      answer(Buffer.alloc(0));
      socket.on('data', answer);
    });
    expect(await keyringState({ service: 'Satchel' }, address)).toEqual({
      defaultKeyring: 'unlocked',
      defaultLabel: 'Session',
      lockedItems: [{ path: '/org/freedesktop/secrets/collection/work/3', keyring: 'Work' }],
      problem: null,
    });
    // Two rounds: the alias and the search; then the keyrings' properties, at their own paths.
    expect(asked).toEqual([
      'Hello /org/freedesktop/DBus',
      'ReadAlias /org/freedesktop/secrets',
      'SearchItems /org/freedesktop/secrets',
      'Locked /org/freedesktop/secrets/collection/session',
      'Label /org/freedesktop/secrets/collection/session',
      'Label /org/freedesktop/secrets/collection/work',
    ]);
  });

  /**
   * A Secret Service over the fake bus, answering from `state` (shared by every connection, so a
   * test may change it between them): the default alias, the keyrings' labels and locks, and the
   * items, all of the service asked about. `asked` gets each call as "<member> <path>", a
   * property read as "<property> <path>".
   */
  interface FakeItem {
    /** Its `Attributes`; `error` answers with an error reply, `garbage` with a variant of `s`. */
    attributes: Array<[string, string]> | 'error' | 'garbage';
    locked: boolean;
    /** Locked the moment its search is answered, as a screen lock in that instant would. */
    lockAfterSearch?: boolean;
  }
  async function secretService(state: {
    alias: string;
    keyrings: Record<string, { label: string; locked: boolean }>;
    items: Record<string, FakeItem>;
  }) {
    const asked: string[] = [];
    const address = await bus((socket, after) => {
      let pending: Buffer = after;
      const send = (replySerial: number, signature: string, bytes: number[]) =>
        socket.write(reply({ replySerial, signature, body: bytes }));
      const fail = (replySerial: number, text: string) =>
        socket.write(
          reply({
            type: 3,
            replySerial,
            errorName: 'org.freedesktop.Secret.Error.IsLocked',
            signature: 's',
            body: stringBody(text),
          }),
        );
      const answer = (data: Buffer) => {
        pending = Buffer.concat([pending, data]);
        for (let message = nextMessage(pending); message; message = nextMessage(pending)) {
          const raw = pending.subarray(0, message.length).toString('latin1');
          pending = pending.subarray(message.length);
          const serial = message.serial;
          const what = [
            'GetSecrets',
            'Hello',
            'ReadAlias',
            'SearchItems',
            'Attributes',
            'Locked',
            'Label',
          ].find((name) => raw.includes(name));
          const at = /\/org\/freedesktop\/[A-Za-z]+(\/collection\/[a-z]+(\/\d+)?)?/.exec(raw)?.[0] ?? '?';
          asked.push(`${what} ${at}`);
          const item = state.items[at];
          const keyring = state.keyrings[at];
          if (what === 'Hello') send(serial, 's', stringBody(':1.40'));
          else if (what === 'ReadAlias') send(serial, 'o', stringBody(state.alias));
          else if (what === 'SearchItems') {
            const paths = Object.keys(state.items);
            const open = paths.filter((path) => !state.items[path]!.locked);
            send(
              serial,
              'aoao',
              searchBody(
                open,
                paths.filter((path) => state.items[path]!.locked),
              ),
            );
            for (const path of open) if (state.items[path]!.lockAfterSearch) state.items[path]!.locked = true;
          } else if (what === 'Attributes' && item) {
            if (item.attributes === 'error') fail(serial, 'Cannot get secret of a locked object');
            else if (item.attributes === 'garbage')
              send(serial, 'v', [1, 0x73, 0, 0, ...stringBody('account')]);
            else send(serial, 'v', dictVariant(item.attributes));
          } else if (what === 'Locked' && (item ?? keyring))
            send(serial, 'v', [1, 0x62, 0, 0, ...le32((item ?? keyring)!.locked ? 1 : 0)]);
          else if (what === 'Label' && keyring)
            send(serial, 'v', [1, 0x73, 0, 0, ...stringBody(keyring.label)]);
          else fail(serial, `Nothing answers ${what} at ${at}`);
        }
      };
      answer(Buffer.alloc(0));
      socket.on('data', answer);
    });
    return { address, asked };
  }
  const generic = (account: string): Array<[string, string]> => [
    ['account', account],
    ['service', 'Satchel'],
    ['xdg:schema', 'org.freedesktop.Secret.Generic'],
  ];
  const keyrings = () => ({
    '/org/freedesktop/secrets/collection/login': { label: 'Login', locked: false },
    '/org/freedesktop/secrets/collection/work': { label: 'Work', locked: false },
  });

  it("names the accounts from the items' attributes in two rounds, and reads no secret", async () => {
    const { address, asked } = await secretService({
      alias: '/org/freedesktop/secrets/collection/login',
      keyrings: keyrings(),
      items: {
        '/org/freedesktop/secrets/collection/login/1': { attributes: generic('profile:b'), locked: false },
        '/org/freedesktop/secrets/collection/login/2': { attributes: generic('profile:a'), locked: false },
        // The same account in a second keyring: named once.
        '/org/freedesktop/secrets/collection/work/1': { attributes: generic('profile:a'), locked: false },
        // Not keytar's (another program's, without its schema), or without an account: keytar
        // would not find them, nor read their key.
        '/org/freedesktop/secrets/collection/login/3': {
          attributes: [
            ['account', 'other-tool'],
            ['service', 'Satchel'],
          ],
          locked: false,
        },
        '/org/freedesktop/secrets/collection/login/4': {
          attributes: generic('x').filter(([key]) => key !== 'account'),
          locked: false,
        },
      },
    });
    expect(await serviceAccounts('Satchel', address)).toEqual({
      defaultKeyring: 'unlocked',
      defaultLabel: 'Login',
      lockedItems: [],
      problem: null,
      accounts: ['profile:a', 'profile:b'],
      searched: true,
    });
    const items = ['login/1', 'login/2', 'work/1', 'login/3', 'login/4'].map(
      (item) => `/org/freedesktop/secrets/collection/${item}`,
    );
    expect(asked).toEqual([
      'Hello /org/freedesktop/DBus',
      'ReadAlias /org/freedesktop/secrets',
      'SearchItems /org/freedesktop/secrets',
      'Locked /org/freedesktop/secrets/collection/login',
      'Label /org/freedesktop/secrets/collection/login',
      ...items.flatMap((item) => [`Attributes ${item}`, `Locked ${item}`]),
    ]);

    // list() gives the same, from the same calls, and nothing else: no search of libsecret's
    // (which would come over this bus too), no secret read.
    const before = asked.length;
    const saved = process.env['DBUS_SESSION_BUS_ADDRESS'];
    process.env['DBUS_SESSION_BUS_ADDRESS'] = address;
    try {
      expect(await createKeychainSecrets({ service: 'Satchel' }).list()).toEqual(['profile:a', 'profile:b']);
    } finally {
      process.env['DBUS_SESSION_BUS_ADDRESS'] = saved;
    }
    expect(asked.slice(before)).toEqual(asked.slice(0, before));
  });

  it("refuses when an item was locked since its search, asking again for the keyring's label", async () => {
    const state = {
      alias: '/org/freedesktop/secrets/collection/login',
      keyrings: keyrings(),
      items: {
        '/org/freedesktop/secrets/collection/login/1': { attributes: generic('profile:a'), locked: false },
        '/org/freedesktop/secrets/collection/work/1': {
          attributes: generic('profile:b'),
          locked: false,
          lockAfterSearch: true,
        },
      } as Record<string, FakeItem>,
    };
    const { address, asked } = await secretService(state);
    expect(await serviceAccounts('Satchel', address)).toMatchObject({
      lockedItems: [],
      accounts: null,
      searched: true,
      problem: 'The item /org/freedesktop/secrets/collection/work/1 was locked after the search.',
    });
    state.items['/org/freedesktop/secrets/collection/work/1']!.locked = false;
    const saved = process.env['DBUS_SESSION_BUS_ADDRESS'];
    process.env['DBUS_SESSION_BUS_ADDRESS'] = address;
    asked.length = 0;
    try {
      await expect(createKeychainSecrets({ service: 'Satchel' }).list()).rejects.toMatchObject({
        code: 'KEYCHAIN_LOCKED',
        message: expect.stringContaining(
          'Unlock it in your system\'s keyring manager (on Linux: the "Work" keyring',
        ),
      });
    } finally {
      process.env['DBUS_SESSION_BUS_ADDRESS'] = saved;
    }
    // Asked again on a new connection: the search now says which item is locked, and where.
    expect(asked.slice(-6)).toEqual([
      'Hello /org/freedesktop/DBus',
      'ReadAlias /org/freedesktop/secrets',
      'SearchItems /org/freedesktop/secrets',
      'Locked /org/freedesktop/secrets/collection/login',
      'Label /org/freedesktop/secrets/collection/login',
      'Label /org/freedesktop/secrets/collection/work',
    ]);
    expect(asked.filter((call) => call.startsWith('GetSecrets'))).toEqual([]);
  });

  it("cannot name the accounts when an item's attributes give an error or cannot be read", async () => {
    for (const [attributes, problem] of [
      ['error', 'org.freedesktop.Secret.Error.IsLocked: Cannot get secret of a locked object'],
      ['garbage', 'a reply Satchel cannot read'],
    ] as const) {
      const { address } = await secretService({
        alias: '/org/freedesktop/secrets/collection/login',
        keyrings: keyrings(),
        items: {
          '/org/freedesktop/secrets/collection/login/1': { attributes: generic('profile:a'), locked: false },
          '/org/freedesktop/secrets/collection/login/2': { attributes, locked: false },
        },
      });
      expect(await serviceAccounts('Satchel', address)).toEqual({
        defaultKeyring: 'unlocked',
        defaultLabel: 'Login',
        lockedItems: [],
        accounts: null,
        searched: true,
        problem: `Could not read the attributes of the item /org/freedesktop/secrets/collection/login/2 (${problem}).`,
      });
    }
  });

  it("asks a keyring's label once when it is the default one and holds a locked item", async () => {
    const state = {
      alias: '/org/freedesktop/secrets/collection/login',
      keyrings: keyrings(),
      items: {
        '/org/freedesktop/secrets/collection/login/1': { attributes: generic('profile:a'), locked: true },
        '/org/freedesktop/secrets/collection/work/1': { attributes: generic('profile:b'), locked: true },
        '/org/freedesktop/secrets/collection/work/2': { attributes: generic('profile:c'), locked: false },
      } as Record<string, FakeItem>,
    };
    state.keyrings['/org/freedesktop/secrets/collection/login'].locked = true;
    const { address, asked } = await secretService(state);
    const lockedItems = [
      { path: '/org/freedesktop/secrets/collection/login/1', keyring: 'Login' },
      { path: '/org/freedesktop/secrets/collection/work/1', keyring: 'Work' },
    ];
    expect(await keyringState({ service: 'Satchel' }, address)).toEqual({
      defaultKeyring: 'locked',
      defaultLabel: 'Login',
      lockedItems,
      problem: null,
    });
    expect(asked.slice(3)).toEqual([
      'Locked /org/freedesktop/secrets/collection/login',
      'Label /org/freedesktop/secrets/collection/login',
      'Label /org/freedesktop/secrets/collection/work',
    ]);
    asked.length = 0;
    expect(await serviceAccounts('Satchel', address)).toMatchObject({ lockedItems, accounts: null });
    expect(asked.slice(3)).toEqual([
      'Locked /org/freedesktop/secrets/collection/login',
      'Label /org/freedesktop/secrets/collection/login',
      'Attributes /org/freedesktop/secrets/collection/work/2',
      'Locked /org/freedesktop/secrets/collection/work/2',
      'Label /org/freedesktop/secrets/collection/work',
    ]);
  });

  it('says the sign-in was refused, or that there is no bus at all', async () => {
    const address = await bus(() => {}, 'REJECTED EXTERNAL\r\n');
    await expect(ask(address)).rejects.toThrow('The session bus refused the sign-in ("REJECTED EXTERNAL").');
    await expect(ask('unix:path=/nonexistent/satchel-bus')).rejects.toThrow(
      /Could not connect to the session bus at \/nonexistent\/satchel-bus \(.*ENOENT/,
    );
  });
});
