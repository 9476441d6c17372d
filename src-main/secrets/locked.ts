import net from 'node:net';

/**
 * What the Secret Service (Linux) says, asked over the session D-Bus without any library.
 *
 * Why it is needed: libsecret (under keytar) answers a lookup in a locked keyring whose unlock
 * prompt was dismissed or could not be shown with "nothing found", exactly as for a key that is
 * not there, and a delete with "nothing deleted"; a search of all items crashes the process on
 * the first locked item. Without these questions a locked keyring would be taken for a lost key
 * and the user sent to enter the API key again.
 *
 * The wire format (the D-Bus specification, "Message Protocol"): the encoder writes
 * little-endian method calls whose bodies are strings and string-to-string dictionaries; the
 * decoder reads whole messages of either byte order off the socket however the reads split
 * them, matches replies by their reply serial, and refuses a malformed message with a
 * `DbusWireError` that says what is wrong with it (test/unit/secrets/locked-wire.test.ts).
 */

/**
 * How long the Secret Service's answers are waited for, sign-in included. Generous: a desktop
 * that is busy (a login, a build) can take seconds, and an answer not had in time means "cannot
 * tell", after which a lookup falls back to libsecret's own answer (missing for a locked key)
 * and a search of the items can crash on a locked one. A bus that answers nothing holds a status
 * no longer than this.
 */
export const BUS_ANSWER_MS = 5_000;

/** The default keyring's state: `none` when the Secret Service has no default keyring. */
export type DefaultKeyring = 'unlocked' | 'locked' | 'none';

/** A locked item that matches the attributes asked about, and the keyring that holds it. */
export interface LockedItem {
  /** Its object path, `/org/freedesktop/secrets/collection/<keyring>/<n>`. */
  path: string;
  /** The keyring's label ("Login"), as the Secret Service gives it; null when it did not. */
  keyring: string | null;
}

export interface KeyringState {
  /** Null when it cannot tell. */
  defaultKeyring: DefaultKeyring | null;
  /** The default keyring's label ("Login"); null when there is none or it cannot tell. */
  defaultLabel: string | null;
  /**
   * The items that match the attributes asked about and are locked, in whichever keyring
   * (`SearchItems`, which gives locked items apart without reading them); null when not asked or
   * it cannot tell.
   */
  lockedItems: LockedItem[] | null;
  /** Why it could not tell something, in words (for the log); null when every answer came. */
  problem: string | null;
}

/**
 * The default keyring's state and, when `attributes` are given, which matching items are
 * locked, with their keyrings' labels: one connection, two rounds, the calls of each sent at
 * once (`ReadAlias("default")` and `SearchItems`; then the `Locked` and `Label` properties of
 * the keyring the alias names, at its own path, and the `Label` of each keyring that holds a
 * locked item). Null answers when it cannot tell (no session bus, no Secret Service, no answer
 * in time): the caller then keeps the keychain library's own answer.
 *
 * Why the keyring's own path and not `/org/freedesktop/secrets/aliases/default`: gnome-keyring
 * rewrites an alias path to its keyring's in its D-Bus thread while its main thread, greeting
 * each new connection, replaces the alias it reads. On a busy machine the rewrite can read the
 * alias as it is freed, and the call goes to a garbage path ("Object does not exist at path
 * /org/freedesktop/secrets/collection/_efAe_f5_c7U"): 27 in 4,000 new connections on two loaded
 * cores, each "cannot tell" of an unlocked keyring. A keyring's own path is never rewritten.
 */
export async function keyringState(
  attributes?: Record<string, string>,
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = BUS_ANSWER_MS,
): Promise<KeyringState> {
  const first = attributes ? [READ_DEFAULT_ALIAS, searchItems(attributes)] : [READ_DEFAULT_ALIAS];
  return withSecretService<KeyringState>(address, timeoutMs, async (ask) => {
    const [alias, search] = await ask(first);
    const aliasPath = alias && 'message' in alias ? objectPath(alias.message) : null;
    const keyring = defaultKeyringReads(aliasPath);
    const {
      locked: lockedItems,
      alongside: [locked, label],
    } = await withLabels(ask, search ? [search] : [], keyring);
    return {
      ...defaultKeyringOf(aliasPath, locked, label),
      lockedItems: attributes ? (lockedItems[0] ?? null) : null,
      problem: firstProblem([alias, search, locked, label]),
    };
  }).catch((error: unknown) => ({
    defaultKeyring: null,
    defaultLabel: null,
    lockedItems: null,
    problem: error instanceof Error ? error.message : String(error),
  }));
}

/**
 * For each set of attributes, the matching items that are locked, with their keyrings' labels
 * (null for a set it cannot tell of); one connection, two rounds, whatever the number of sets.
 */
export async function lockedItemsOf(
  searches: Array<Record<string, string>>,
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = BUS_ANSWER_MS,
): Promise<{ locked: Array<LockedItem[] | null>; problem: string | null }> {
  if (searches.length === 0) return { locked: [], problem: null };
  return withSecretService(address, timeoutMs, async (ask) => {
    const replies = await ask(searches.map(searchItems));
    return { locked: (await withLabels(ask, replies)).locked, problem: firstProblem(replies) };
  }).catch((error: unknown) => ({
    locked: searches.map(() => null),
    problem: error instanceof Error ? error.message : String(error),
  }));
}

/** The `xdg:schema` attribute libsecret gives the items keytar stores, and looks them up by. */
export const KEYTAR_SCHEMA = 'org.freedesktop.Secret.Generic';

export interface ServiceAccounts extends KeyringState {
  /**
   * The `account` attribute of each unlocked item of the service that keytar would find (its
   * `xdg:schema` is keytar's), sorted, without repeats; null when not every item could be read
   * and said unlocked (an error reply, a reply it cannot read, an item locked since the search),
   * when anything is locked, or when it cannot tell.
   */
  accounts: string[] | null;
  /** Whether `SearchItems` answered: false when it cannot tell at all. */
  searched: boolean;
}

/**
 * The accounts of a keychain service, named without libsecret, whose search crashes the process
 * on a locked item (and whose `SECRET_SEARCH_LOAD_SECRETS` would read every secret): one
 * connection, two rounds, the calls of each sent at once. First `ReadAlias("default")` and
 * `SearchItems({service})`; then the default keyring's `Locked` and `Label`, the `Label` of each
 * keyring that holds a locked item, and of each unlocked item its `Attributes` and `Locked`
 * properties (nothing else: no secret is asked for). An item locked between the two rounds says
 * so in its `Locked`, and the caller refuses.
 */
export async function serviceAccounts(
  service: string,
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = BUS_ANSWER_MS,
): Promise<ServiceAccounts> {
  return withSecretService<ServiceAccounts>(address, timeoutMs, async (ask) => {
    const [alias, search] = await ask([READ_DEFAULT_ALIAS, searchItems({ service })]);
    const aliasPath = alias && 'message' in alias ? objectPath(alias.message) : null;
    const keyring = defaultKeyringReads(aliasPath);
    const items = searchPaths(search)?.unlocked ?? [];
    const reads = items.flatMap((path) => [
      property('Item', path, 'Attributes'),
      property('Item', path, 'Locked'),
    ]);
    const {
      locked: [lockedItems = null],
      alongside: answers,
    } = await withLabels(ask, [search], [...keyring, ...reads]);
    const [locked, label] = keyring.length > 0 ? answers : [];
    const itemAnswers = answers.slice(keyring.length);
    let problem = firstProblem([alias, search, locked, label]);
    if (!problem && search && 'message' in search && !searchPaths(search))
      problem = `SearchItems answered with "${search.message.signature}", not the two lists of items.`;
    const accounts = new Set<string>();
    let readable = lockedItems !== null && lockedItems.length === 0;
    items.forEach((path, index) => {
      const attributes = itemAnswers[index * 2];
      const itemLocked = itemAnswers[index * 2 + 1];
      const found = attributes && 'message' in attributes ? variantStringDict(attributes.message) : null;
      const isLocked = itemLocked && 'message' in itemLocked ? variantBoolean(itemLocked.message) : null;
      if (!found || isLocked !== false) {
        readable = false;
        problem ??=
          isLocked === true
            ? `The item ${path} was locked after the search.`
            : `Could not read the attributes of the item ${path} (${
                firstProblem([attributes, itemLocked]) ?? 'a reply Satchel cannot read'
              }).`;
        return;
      }
      const account = found.get('account');
      if (found.get('xdg:schema') === KEYTAR_SCHEMA && account !== undefined) accounts.add(account);
    });
    return {
      ...defaultKeyringOf(aliasPath, locked, label),
      lockedItems,
      problem,
      accounts: readable ? [...accounts].sort() : null,
      searched: lockedItems !== null,
    };
  }).catch((error: unknown) => ({
    defaultKeyring: null,
    defaultLabel: null,
    lockedItems: null,
    problem: error instanceof Error ? error.message : String(error),
    accounts: null,
    searched: false,
  }));
}

/**
 * Whether the Secret Service's default keyring is locked: null when it cannot tell, or when
 * there is no default keyring.
 */
export async function defaultKeyringLocked(
  address = process.env['DBUS_SESSION_BUS_ADDRESS'],
  timeoutMs = BUS_ANSWER_MS,
): Promise<boolean | null> {
  const { defaultKeyring } = await keyringState(undefined, address, timeoutMs);
  return defaultKeyring === 'locked' ? true : defaultKeyring === 'unlocked' ? false : null;
}

const SERVICE = 'org.freedesktop.Secret.Service';
const SECRETS = 'org.freedesktop.secrets';
const SECRETS_PATH = '/org/freedesktop/secrets';

/** `ReadAlias("default")`: the default keyring's path, `/` when there is none. */
const READ_DEFAULT_ALIAS: Call = {
  path: SECRETS_PATH,
  iface: SERVICE,
  member: 'ReadAlias',
  args: [{ type: 's', value: 'default' }],
};

/** The properties read, by the Secret Service interface that has them. */
interface Properties {
  Collection: 'Locked' | 'Label';
  Item: 'Attributes' | 'Locked';
}

/** `Properties.Get` of one property of a keyring (`Collection`) or an item at `path`. */
function property<Kind extends keyof Properties>(kind: Kind, path: string, name: Properties[Kind]): Call {
  return {
    path,
    iface: 'org.freedesktop.DBus.Properties',
    member: 'Get',
    args: [
      { type: 's', value: `org.freedesktop.Secret.${kind}` },
      { type: 's', value: name },
    ],
  };
}

/** The reads of the default keyring's `Locked` and `Label`, in that order: none when it has no path. */
function defaultKeyringReads(aliasPath: string | null): Call[] {
  return aliasPath && aliasPath !== '/'
    ? [property('Collection', aliasPath, 'Locked'), property('Collection', aliasPath, 'Label')]
    : [];
}

/** The default keyring's state and label from the alias's path and the two reads' replies. */
function defaultKeyringOf(
  aliasPath: string | null,
  locked: Reply | undefined,
  label: Reply | undefined,
): Pick<KeyringState, 'defaultKeyring' | 'defaultLabel'> {
  if (aliasPath === '/') return { defaultKeyring: 'none', defaultLabel: null };
  const isLocked = locked && 'message' in locked ? variantBoolean(locked.message) : null;
  return {
    defaultKeyring: isLocked === null ? null : isLocked ? 'locked' : 'unlocked',
    defaultLabel: label && 'message' in label ? variantString(label.message) : null,
  };
}

function searchItems(attributes: Record<string, string>): Call {
  return {
    path: SECRETS_PATH,
    iface: SERVICE,
    member: 'SearchItems',
    args: [{ type: 'a{ss}', value: attributes }],
  };
}

/**
 * The locked paths of `SearchItems` replies (`aoao`: unlocked, then locked), with the labels of
 * their keyrings, asked in one round with `alongside`, whose replies it gives too. A keyring's
 * `Label` already among `alongside` (the default keyring's) is not asked again: its answer
 * serves both.
 */
async function withLabels(
  ask: Ask,
  replies: Array<Reply | undefined>,
  alongside: Call[] = [],
): Promise<{ locked: Array<LockedItem[] | null>; alongside: Reply[] }> {
  const lockedPaths = replies.map((reply) => searchPaths(reply)?.locked ?? null);
  const keyrings = [...new Set(lockedPaths.flatMap((paths) => (paths ?? []).map(collectionOf)))];
  const calls = [...alongside];
  const labelAt = new Map<string, number>();
  alongside.forEach((call, index) => {
    if (isLabelCall(call) && !labelAt.has(call.path)) labelAt.set(call.path, index);
  });
  for (const keyring of keyrings) {
    if (labelAt.has(keyring)) continue;
    labelAt.set(keyring, calls.length);
    calls.push(property('Collection', keyring, 'Label'));
  }
  const answers = calls.length > 0 ? await ask(calls) : [];
  const labels = new Map<string, string>();
  for (const keyring of keyrings) {
    const answer = answers[labelAt.get(keyring)!];
    const label = answer && 'message' in answer ? variantString(answer.message) : null;
    if (label) labels.set(keyring, label);
  }
  return {
    locked: lockedPaths.map(
      (paths) => paths?.map((path) => ({ path, keyring: labels.get(collectionOf(path)) ?? null })) ?? null,
    ),
    alongside: answers.slice(0, alongside.length),
  };
}

function isLabelCall(call: Call): boolean {
  const [iface, name] = call.args;
  return (
    call.member === 'Get' && iface?.value === 'org.freedesktop.Secret.Collection' && name?.value === 'Label'
  );
}

/** The unlocked and locked item paths of a `SearchItems` reply (`aoao`), or null. */
function searchPaths(reply: Reply | undefined): { unlocked: string[]; locked: string[] } | null {
  const found = reply && 'message' in reply ? objectPathArrays(reply.message) : null;
  return found && found.length === 2 ? { unlocked: found[0]!, locked: found[1]! } : null;
}

/** The keyring (collection) an item's object path is in: the path without its last part. */
function collectionOf(itemPath: string): string {
  return itemPath.slice(0, Math.max(itemPath.lastIndexOf('/'), 0));
}

function firstProblem(replies: Array<Reply | undefined>): string | null {
  for (const reply of replies) if (reply && 'error' in reply) return reply.error;
  return null;
}

type Arg = { type: 's'; value: string } | { type: 'a{ss}'; value: Record<string, string> };
export interface Call {
  path: string;
  iface: string;
  member: string;
  args: Arg[];
}

/** A call's answer: its reply, or in words why there is none (an error reply, no answer). */
export type Reply = { message: Message } | { error: string };
type Ask = (calls: Call[]) => Promise<Reply[]>;

/**
 * Connects to the session bus, signs in, and lets `work` ask the Secret Service: each `ask`
 * sends its calls at once and gives each one's reply. Rejects when there is no bus to connect
 * to or it refuses the sign-in; past `timeoutMs` (for everything) the calls not answered yet
 * get "no answer".
 */
export async function withSecretService<T>(
  address: string | undefined,
  timeoutMs: number,
  work: (ask: Ask) => Promise<T>,
): Promise<T> {
  const socketPath = busSocket(address);
  if (!socketPath) throw new Error('There is no session D-Bus address (DBUS_SESSION_BUS_ADDRESS) to ask.');
  const connection = await BusConnection.open(socketPath, timeoutMs);
  try {
    return await work((calls) => connection.call(SECRETS, calls));
  } finally {
    connection.close();
  }
}

/**
 * One connection to a bus: the EXTERNAL sign-in, `Hello`, then method calls whose replies are
 * matched by reply serial; anything else that arrives (signals, replies to serials not asked)
 * is passed over.
 */
export class BusConnection {
  private readonly reader = new MessageReader();
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private serial = 0;
  private ended: string | null = null;

  private constructor(
    private readonly socket: net.Socket,
    private readonly timer: NodeJS.Timeout,
  ) {}

  static open(socketPath: string, timeoutMs: number): Promise<BusConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      let connection: BusConnection | null = null;
      let greeting = Buffer.alloc(0);
      const timer = setTimeout(() => {
        const why = `The session bus gave no answer within ${timeoutMs} ms.`;
        if (connection) connection.end(why);
        else fail(why);
      }, timeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(why));
      };
      socket.on('error', (error) => {
        if (connection) connection.end(`The session bus connection failed (${error.message}).`);
        else fail(`Could not connect to the session bus at ${socketPath} (${error.message}).`);
      });
      socket.on('close', () => {
        if (connection) connection.end('The session bus closed the connection before answering.');
        else fail('The session bus closed the connection during the sign-in.');
      });
      socket.on('connect', () => {
        const uid = String(process.getuid?.() ?? 0);
        socket.write(Buffer.from([0]));
        socket.write(`AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
      });
      socket.on('data', (chunk) => {
        if (connection) return connection.received(chunk);
        greeting = Buffer.concat([greeting, chunk]);
        const end = greeting.indexOf('\r\n');
        if (end < 0) {
          if (greeting.length > 1024) fail('The session bus sent a sign-in answer that never ends.');
          return;
        }
        const line = greeting.subarray(0, end).toString('ascii');
        if (!line.startsWith('OK '))
          return fail(`The session bus refused the sign-in ("${line.slice(0, 80)}").`);
        socket.write('BEGIN\r\n');
        connection = new BusConnection(socket, timer);
        connection.send(BUS, { path: '/org/freedesktop/DBus', iface: BUS, member: 'Hello', args: [] });
        resolve(connection);
        const rest = greeting.subarray(end + 2);
        if (rest.length > 0) connection.received(rest);
      });
    });
  }

  /** Sends the calls at once; each one's reply, or why there is none. */
  call(destination: string, calls: Call[]): Promise<Reply[]> {
    return Promise.all(
      calls.map(
        (call) =>
          new Promise<Reply>((resolve) => {
            if (this.ended) return resolve({ error: this.ended });
            this.waiting.set(this.send(destination, call), resolve);
          }),
      ),
    );
  }

  close(): void {
    this.end('The connection was closed before an answer came.');
  }

  private send(destination: string, call: Call): number {
    // The Hello goes first, as serial 1; the calls after it count on from 2.
    this.serial += 1;
    this.socket.write(methodCall(this.serial, destination, call));
    return this.serial;
  }

  private received(chunk: Buffer): void {
    let messages: Message[];
    try {
      messages = this.reader.push(chunk);
    } catch (error) {
      return this.end(error instanceof Error ? error.message : String(error));
    }
    for (const message of messages) {
      if (message.type !== METHOD_RETURN && message.type !== ERROR) continue;
      const answer = message.replySerial === undefined ? undefined : this.waiting.get(message.replySerial);
      if (!answer) continue;
      this.waiting.delete(message.replySerial!);
      answer(message.type === METHOD_RETURN ? { message } : { error: errorText(message) });
    }
  }

  /** Ends the connection; every call still waiting gets `why`. */
  private end(why: string): void {
    if (this.ended) return;
    this.ended = why;
    clearTimeout(this.timer);
    this.socket.destroy();
    for (const answer of this.waiting.values()) answer({ error: why });
    this.waiting.clear();
  }
}

const BUS = 'org.freedesktop.DBus';
const METHOD_RETURN = 2;
const ERROR = 3;

/** The socket of a `unix:path=…` or `unix:abstract=…` bus address; the first one that is either. */
export function busSocket(address: string | undefined): string | null {
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
export function marshal(args: Arg[]): { signature: string; body: number[] } {
  const body = writer();
  let signature = '';
  for (const arg of args) {
    signature += arg.type;
    if (arg.type === 's') {
      body.string(arg.value);
      continue;
    }
    // An array's length counts its elements' bytes, not the padding up to its first one, which
    // is there even when it has no element.
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
export function methodCall(serial: number, destination: string, call: Call): Buffer {
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

export interface Message {
  /** Its length in bytes, header, padding and body. */
  length: number;
  type: number;
  serial: number;
  replySerial: number | undefined;
  /** The ERROR_NAME of an error reply. */
  errorName: string | undefined;
  signature: string;
  body: Buffer;
  littleEndian: boolean;
}

/** A message that cannot be read as D-Bus: what is wrong with it, in words. */
export class DbusWireError extends Error {
  constructor(problem: string) {
    super(`The session bus sent a message Satchel cannot read: ${problem}.`);
    this.name = 'DbusWireError';
  }
}

/** The D-Bus limits: a message of at most 128 MiB, an array of at most 64 MiB. */
const MAX_MESSAGE = 2 ** 27;
const MAX_ARRAY = 2 ** 26;

/** Sizes (and alignments) of the basic types a header field may hold, strings apart. */
const FIXED: Record<string, number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, h: 4, x: 8, t: 8, d: 8 };

const padTo = (at: number, n: number) => at + ((n - (at % n)) % n);

/**
 * The first whole message in `data`, or null when it has not all arrived yet; throws a
 * `DbusWireError` for bytes that are not a D-Bus message (as soon as the fixed header shows it,
 * not after waiting for a length that will never come).
 */
export function nextMessage(data: Buffer): Message | null {
  if (data.length < 16) return null;
  const endian = data[0]!;
  if (endian !== 0x6c && endian !== 0x42)
    throw new DbusWireError(`it starts with byte 0x${endian.toString(16)}, not "l" or "B"`);
  const littleEndian = endian === 0x6c;
  if (data[3] !== 1) throw new DbusWireError(`its protocol version is ${data[3]}, not 1`);
  const type = data[1]!;
  if (type === 0) throw new DbusWireError('its type is 0, which no message has');
  const u32 = (at: number) => (littleEndian ? data.readUInt32LE(at) : data.readUInt32BE(at));
  const bodyLength = u32(4);
  const fieldsLength = u32(12);
  if (fieldsLength > MAX_ARRAY)
    throw new DbusWireError(`its header fields claim ${fieldsLength} bytes, more than D-Bus allows`);
  const headerEnd = padTo(16 + fieldsLength, 8);
  const length = headerEnd + bodyLength;
  if (length > MAX_MESSAGE)
    throw new DbusWireError(`it claims ${length} bytes, more than the 128 MiB D-Bus allows`);
  if (data.length < length) return null;

  const fieldsEnd = 16 + fieldsLength;
  const need = (at: number, bytes: number, what: string) => {
    if (at + bytes > fieldsEnd)
      throw new DbusWireError(`header field ${what} runs past the ${fieldsLength} bytes of header fields`);
  };
  const text = (start: number, end: number, what: string) => {
    if (data[end] !== 0) throw new DbusWireError(`header field ${what} is not ended by a nul byte`);
    return data.toString('utf8', start, end);
  };
  let replySerial: number | undefined;
  let errorName: string | undefined;
  let signature = '';
  let at = 16;
  while (at < fieldsEnd) {
    at = padTo(at, 8);
    need(at, 3, 'code');
    const code = data[at]!;
    const typeLength = data[at + 1]!;
    need(at + 2, typeLength + 1, `${code}'s type`);
    const valueType = text(at + 2, at + 2 + typeLength, `${code}'s type`);
    at += 3 + typeLength;
    const what = `${code} (${valueType})`;
    if (valueType === 's' || valueType === 'o') {
      at = padTo(at, 4);
      need(at, 4, what);
      const size = u32(at);
      need(at + 4, size + 1, what);
      const value = text(at + 4, at + 4 + size, what);
      if (code === 4) errorName = value;
      at += 4 + size + 1;
    } else if (valueType === 'g') {
      need(at, 1, what);
      const size = data[at]!;
      need(at + 1, size + 1, what);
      const value = text(at + 1, at + 1 + size, what);
      if (code === 8) signature = value;
      at += size + 2;
    } else if (valueType in FIXED) {
      const size = FIXED[valueType]!;
      at = padTo(at, size);
      need(at, size, what);
      if (code === 5 && valueType === 'u') replySerial = u32(at);
      at += size;
    } else throw new DbusWireError(`header field ${code} has type "${valueType}", which no header field has`);
  }
  return {
    length,
    type,
    serial: u32(8),
    replySerial,
    errorName,
    signature,
    body: data.subarray(headerEnd, length),
    littleEndian,
  };
}

/** Whole messages out of a byte stream, however its reads split or join them. */
export class MessageReader {
  private pending: Buffer = Buffer.alloc(0);

  /** The messages that `chunk` completes, in order; throws a `DbusWireError` on bad bytes. */
  push(chunk: Buffer): Message[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const messages: Message[] = [];
    for (;;) {
      const message = nextMessage(this.pending);
      if (!message) return messages;
      messages.push(message);
      this.pending = this.pending.subarray(message.length);
    }
  }

  /** Bytes of a message not whole yet. */
  get buffered(): number {
    return this.pending.length;
  }
}

/** An error reply in words: its name, and its message text when it has one. */
export function errorText(message: Message): string {
  const name = message.errorName ?? 'an error with no name';
  const text = message.signature.startsWith('s') ? readString(message, 0)?.text : undefined;
  return text ? `${name}: ${text}` : name;
}

/** The value inside a reply whose body is one variant of type `type`: where it starts, or null. */
function variantOf(message: Message, type: string): number | null {
  const { body, signature } = message;
  if (signature !== 'v' || body.length < 3) return null;
  const typeLength = body[0]!;
  if (body.length < 2 + typeLength || body.toString('ascii', 1, 1 + typeLength) !== type) return null;
  // The body starts 8-aligned in the message, so alignment inside it is by its own offsets.
  return 2 + typeLength;
}

/** The boolean inside a reply whose body is one variant, or null when it holds something else. */
export function variantBoolean(message: Message): boolean | null {
  const start = variantOf(message, 'b');
  if (start === null) return null;
  const at = padTo(start, 4);
  if (message.body.length < at + 4) return null;
  return (message.littleEndian ? message.body.readUInt32LE(at) : message.body.readUInt32BE(at)) === 1;
}

/** The string inside a reply whose body is one variant (a `Label`), or null. */
export function variantString(message: Message): string | null {
  const start = variantOf(message, 's');
  return start === null ? null : (readString(message, start)?.text ?? null);
}

/**
 * The string-to-string dictionary inside a reply whose body is one variant of `a{ss}` (an item's
 * `Attributes`), or null when it holds something else or is cut short: the array's length is
 * 4-aligned, its entries 8-aligned, each a key and a value, all inside the array's stated bytes
 * and the body's. A key given twice keeps its last value.
 */
export function variantStringDict(message: Message): Map<string, string> | null {
  const start = variantOf(message, 'a{ss}');
  if (start === null) return null;
  const { body, littleEndian } = message;
  const lengthAt = padTo(start, 4);
  if (body.length < lengthAt + 4) return null;
  const length = littleEndian ? body.readUInt32LE(lengthAt) : body.readUInt32BE(lengthAt);
  // The padding up to the first entry is there even when there is none, and not counted.
  let at = padTo(lengthAt + 4, 8);
  const end = at + length;
  if (length > MAX_ARRAY || end > body.length) return null;
  const entries = new Map<string, string>();
  while (at < end) {
    const key = readString(message, padTo(at, 8));
    if (!key || key.next > end) return null;
    const value = readString(message, key.next);
    if (!value || value.next > end) return null;
    entries.set(key.text, value.text);
    at = value.next;
  }
  return entries;
}

/** Reads a string-like value (`s`, `o`) at `at`: its text and where the next value may start. */
function readString(message: Message, at: number): { text: string; next: number } | null {
  const { body, littleEndian } = message;
  const start = padTo(at, 4);
  if (body.length < start + 4) return null;
  const length = littleEndian ? body.readUInt32LE(start) : body.readUInt32BE(start);
  if (body.length < start + 4 + length + 1) return null;
  return { text: body.toString('utf8', start + 4, start + 4 + length), next: start + 4 + length + 1 };
}

/** The object path of a reply whose body is one (`ReadAlias`), or null. */
export function objectPath(message: Message): string | null {
  if (message.signature !== 'o') return null;
  return readString(message, 0)?.text ?? null;
}

/** The arrays of object paths of a reply whose body is only such arrays (`SearchItems`: `aoao`). */
export function objectPathArrays(message: Message): string[][] | null {
  const { body, littleEndian, signature } = message;
  if (!/^(ao)+$/.test(signature)) return null;
  const arrays: string[][] = [];
  let at = 0;
  for (let n = 0; n < signature.length / 2; n += 1) {
    at = padTo(at, 4);
    if (body.length < at + 4) return null;
    const length = littleEndian ? body.readUInt32LE(at) : body.readUInt32BE(at);
    at += 4;
    const end = at + length;
    if (end > body.length) return null;
    const paths: string[] = [];
    while (at < end) {
      const path = readString(message, at);
      if (!path || path.next > end) return null;
      paths.push(path.text);
      at = path.next;
    }
    arrays.push(paths);
  }
  return arrays;
}
