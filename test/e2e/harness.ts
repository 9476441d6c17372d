import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, onTestFinished } from 'vitest';
import { createCore, type Core, type CoreOptions } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { createKeychainSecrets, type Secrets } from '../../src-main/secrets';
import { FILE_SCHEME } from '../../src-main/shell/file-route';
import { answerFileRequest } from '../../src-main/shell/file-response';
import { startSandbox } from '../../src-sandbox';
import { startPrivateKeyring, type PrivateKeyring } from '../helpers/keyring';
import { useTempDirs } from '../helpers/temp-dir';
import { artifactsDir, bridgeBundle, chromiumPath, rendererDir } from './paths';
import { connectSandbox } from './steps';

/** The origin the built renderer is served from; requests to it are answered from out/renderer. */
export const APP_ORIGIN = 'http://satchel.test';

/**
 * Where the page loads cached files in tests. Chromium under Playwright cannot answer a custom
 * scheme, so a core made with `fileUrl: testFileUrl` hands out these addresses instead of
 * `satchel-file://<profileId>/<name>`, and `openApp(core, { serveFiles: true })` answers them
 * through the app's own satchel-file: answer (src-main/shell/file-response.ts). It is another
 * origin than the page, as the satchel-file: route is for the app page, so the fetch of a PDF is
 * a real cross-origin read checked by Chromium.
 */
export const FILES_ORIGIN = 'http://files.satchel.test';

export function testFileUrl(profileId: string, localName: string): string {
  return `${FILES_ORIGIN}/${profileId}/${localName}`;
}

/** The shipped page with the test file origin allowed beside satchel-file: (and nowhere else). */
function withTestFileOrigin(html: string): string {
  let replaced = 0;
  const out = html.replace(
    /(img-src|connect-src)([^;"]*) satchel-file:/g,
    (_match, name: string, rest: string) => {
      replaced += 1;
      return `${name}${rest} satchel-file: ${FILES_ORIGIN}`;
    },
  );
  if (replaced !== 2)
    throw new Error('The page CSP no longer names satchel-file: in img-src and connect-src.');
  return out;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface AppPage {
  page: Page;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

let browser: Browser | undefined;

async function launch(): Promise<Browser> {
  browser ??= await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Debian's Chromium as root, on a machine with no network beyond loopback.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/**
 * Opens the built renderer in Chromium with window.satchel bridged to the real handler table of
 * `core`, and the core's events pushed into the page. Nothing is stubbed: what the page sees is
 * what Electron's IPC would carry.
 */
export async function openApp(
  core: Core,
  options: {
    colorScheme?: 'light' | 'dark';
    serveFiles?: boolean;
    /**
     * Told of every command the page sends, before it is answered (to count them). A promise it
     * returns holds the answer back until it settles, as a slow core would: a test sees what the
     * window shows meanwhile, without waiting on the clock.
     */
    onCommand?: (command: string, input: unknown) => unknown;
  } = {},
): Promise<AppPage> {
  const context = await (
    await launch()
  ).newContext({
    viewport: { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const handlers = createHandlers(core);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await page.route(`${APP_ORIGIN}/**`, async (route) => {
    const pathname = new URL(route.request().url()).pathname;
    const file = path.join(rendererDir, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(rendererDir)) return route.fulfill({ status: 403 });
    try {
      let body: Buffer | string = readFileSync(file);
      if (options.serveFiles && path.extname(file) === '.html')
        body = withTestFileOrigin(body.toString('utf8'));
      await route.fulfill({
        status: 200,
        body,
        contentType: contentTypes[path.extname(file)] ?? 'application/octet-stream',
      });
    } catch {
      await route.fulfill({ status: 404 });
    }
  });
  if (options.serveFiles) {
    await page.route(`${FILES_ORIGIN}/**`, async (route) => {
      const request = route.request();
      const url = request.url();
      const headers = await request.allHeaders();
      const reply = await answerFileRequest(
        {
          // The same route as the app's: only the scheme and authority are the test's.
          url: `${FILE_SCHEME}://${url.slice(FILES_ORIGIN.length + 1)}`,
          method: request.method(),
          origin: headers['origin'] ?? null,
        },
        {
          appOrigin: APP_ORIGIN,
          filesRoot: (profileId) => core.files.filesRoot(profileId),
          allowed: (profileId) => core.profiles.list().some((profile) => profile.id === profileId),
        },
      );
      await route.fulfill({
        status: reply.status,
        headers: reply.headers,
        ...(reply.body ? { body: Buffer.from(reply.body) } : {}),
      });
    });
  }
  await page.exposeBinding('__satchelInvoke', async (_source, command: unknown, input: unknown) => {
    await options.onCommand?.(String(command), input);
    return dispatch(handlers, command, input);
  });
  await page.addInitScript({ path: bridgeBundle });
  const stopEvents = core.events.subscribe((name, payload) => {
    void page
      .evaluate(
        ([event, data]) =>
          (window as unknown as { __satchelEmit(e: string, p: unknown): void }).__satchelEmit(event, data),
        [name, payload] as const,
      )
      .catch(() => undefined);
  });

  await page.goto(`${APP_ORIGIN}/index.html`);
  // Ready as a person finds it: the shell drawn, and its effects run (the keyboard shortcuts
  // are listened for from an effect, which runs after the first frame is painted). A key
  // pressed before that would be lost.
  await page.getByTestId('app-version').waitFor();
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
  );

  return {
    page,
    async screenshot(name) {
      mkdirSync(artifactsDir, { recursive: true });
      const file = path.join(artifactsDir, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      stopEvents();
      await context.close();
      if (pageErrors.length > 0) throw new Error(`The page threw: ${pageErrors.join('; ')}`);
    },
  };
}

/**
 * A private GNOME Keyring (test/helpers/keyring.ts) for all of a file's tests, started before the
 * first and made this process's keychain; after the last, the browser is closed and it stops.
 */
export function usePrivateKeyring(): { keyring: PrivateKeyring } {
  const held = {} as { keyring: PrivateKeyring };
  beforeAll(async () => {
    held.keyring = await startPrivateKeyring();
    // Before this process's first keychain call: libsecret connects once.
    process.env['DBUS_SESSION_BUS_ADDRESS'] = held.keyring.address;
  });
  afterAll(async () => {
    await closeBrowser();
    held.keyring?.stop();
  });
  return held;
}

/**
 * An organisation whose offline copy is read-only, open in the window (page timeout 20 s): a
 * sandbox of its own (`seeded`) connected and synced by a first core, then closed; the copy's
 * folder made read-only by `makeReadOnly` (useReadOnlyFolders); a new core over `dataDir`.
 */
export async function openReadOnlyCopy(
  seeded: { seed: number; transactions: number },
  {
    dataDir,
    secrets,
    makeReadOnly,
  }: { dataDir: string; secrets: Secrets; makeReadOnly: (folder: string) => unknown },
) {
  const sandbox = await startSandbox({ port: 0, ...seeded });
  const first = createCore({ dataDir, secrets });
  const profile = await connectSandbox(first, sandbox);
  await first.close();
  makeReadOnly(path.dirname(first.profiles.cacheFile(profile.id)));
  const core = createCore({ dataDir, secrets });
  const app = await openApp(core);
  app.page.setDefaultTimeout(20_000);
  return { sandbox, core, app, page: app.page };
}

/** One organisation all of a file's tests share: filled in before the first test. */
export interface SharedOrganisation {
  sandbox: Awaited<ReturnType<typeof startSandbox>>;
  core: Core;
  profileId: string;
}

/**
 * One organisation for all of a file's tests: a sandbox of its own (`seeded`), connected and
 * synced once before them in a folder that lives as long as the file's tests; after the last,
 * the browser, the core and the sandbox are closed, the folder removed and the keychain emptied.
 */
export function useSharedOrganisation(seeded: { seed: number; transactions: number }): SharedOrganisation {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'satchel-test-'));
  const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
  const shared = {} as SharedOrganisation;
  beforeAll(async () => {
    shared.sandbox = await startSandbox({ port: 0, ...seeded });
    shared.core = createCore({ dataDir, secrets });
    shared.profileId = (await connectSandbox(shared.core, shared.sandbox)).id;
  }, 120_000);
  afterAll(async () => {
    await closeBrowser();
    await shared.core.close();
    await shared.sandbox.stop();
    rmSync(dataDir, { recursive: true, force: true });
    for (const account of await secrets.list()) await secrets.delete(account);
  });
  return shared;
}

/**
 * What a browser test file of a synced organisation sets up first: a temporary folder per test
 * (removed after it), a keychain service of the file's own, emptied after each test, and the
 * browser closed after the last test. Call it where the file's hooks are declared: its hooks
 * run in the order they are declared (the folders' removal after the keychain's emptying).
 * `openConnected` is `openConnectedApp` with a fresh data folder and these secrets by default;
 * `connect` is `connectCore` with the same.
 */
export function useAppTests(): {
  tempDir: ReturnType<typeof useTempDirs>;
  secrets: Secrets;
  openConnected(options: ConnectedAppOptions | Omit<ConnectedAppOptions, 'dataDir'>): Promise<ConnectedApp>;
  connect(options: ConnectCoreOptions | Omit<ConnectCoreOptions, 'dataDir'>): Promise<ConnectedCore>;
} {
  const tempDir = useTempDirs();
  const secrets = createKeychainSecrets({ service: `Satchel-e2e-${randomUUID()}` });
  afterAll(closeBrowser);
  afterEach(async () => {
    for (const account of await secrets.list()) await secrets.delete(account);
  });
  return {
    tempDir,
    secrets,
    openConnected: (options) => openConnectedApp({ dataDir: tempDir(), secrets, ...options }),
    connect: (options) => connectCore({ dataDir: tempDir(), secrets, ...options }),
  };
}

export interface ConnectedApp extends AppPage {
  core: Core;
  /** The sandbox organisation's profile, synced once before the page opened. */
  profile: { id: string };
  dataDir: string;
  /** Closes the page (throwing what the page threw), then the core, then stops the sandbox. */
  close(): Promise<void>;
}

/** `openApp`'s options: the colour scheme, the files served, commands watched. */
export type OpenAppOptions = NonNullable<Parameters<typeof openApp>[1]>;

export type ConnectedAppOptions = CoreOptions &
  OpenAppOptions & {
    sandbox: { url: string; clientId: string; clientSecret: string; stop(): Promise<void> };
    /** Run on the synced core before the page opens (to keep files, make downloads, …). */
    beforeOpen?: (core: Core, profile: { id: string }) => unknown;
    /** The page's default timeout in ms; Playwright's own when not given. */
    timeout?: number;
  };

/** `openConnectedApp`'s options less `beforeOpen`: the test prepares between the two steps. */
export type ConnectCoreOptions = Omit<ConnectedAppOptions, 'beforeOpen'>;

export interface ConnectedCore {
  core: Core;
  /** The sandbox organisation's profile, synced once. */
  profile: { id: string };
  dataDir: string;
  /**
   * Opens the app on the core as `openConnectedApp` does and waits for the first transaction
   * row; the app's `close()` ends the page, the core and the sandbox.
   */
  open(): Promise<ConnectedApp>;
}

/**
 * `openConnectedApp` in two steps, for a test that works on the synced core before the window
 * opens (downloads to finish, faults to set, values to read for its assertions): the core made
 * with the given options and the sandbox connected and synced, then `open()` when it is ready.
 * Should the test fail before it opens the app, the core and the sandbox are ended when it
 * finishes (once open, the app's `close()` ends them). Call it inside a test.
 */
export async function connectCore(options: ConnectCoreOptions): Promise<ConnectedCore> {
  const { sandbox, timeout, colorScheme, serveFiles, onCommand, ...coreOptions } = options;
  const core = createCore(coreOptions);
  let opened = false;
  onTestFinished(async () => {
    if (opened) return;
    await core.close();
    await sandbox.stop();
  });
  const profile = await connectSandbox(core, sandbox);
  const open = async (): Promise<ConnectedApp> => {
    const app = await openApp(core, { colorScheme, serveFiles, onCommand });
    opened = true;
    const close = async () => {
      await app.close();
      await core.close();
      await sandbox.stop();
    };
    try {
      if (timeout !== undefined) app.page.setDefaultTimeout(timeout);
      await app.page.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1).waitFor();
    } catch (error) {
      await close().catch(() => undefined);
      throw error;
    }
    return { ...app, core, profile, dataDir: coreOptions.dataDir, close };
  };
  return { core, profile, dataDir: coreOptions.dataDir, open };
}

/**
 * Where most journeys over synced data start: a core made with the given options (a file or
 * folder picker, `fileUrl: testFileUrl`, …), the sandbox connected as "Sandbox GmbH" and synced
 * (`connectSandbox`), `beforeOpen` run on what was synced, the app opened in Chromium with the
 * given `openApp` options, the page's default timeout set to `timeout` (Playwright's own when not
 * given), and the first row of the Transactions grid waited for (`connectCore`, then `open()`).
 * `close()` ends the page, the core and the sandbox, in that order; should the opening fail once
 * the page is open, they are ended before the failure is thrown.
 */
export async function openConnectedApp(options: ConnectedAppOptions): Promise<ConnectedApp> {
  const { beforeOpen, ...rest } = options;
  const connected = await connectCore(rest);
  await beforeOpen?.(connected.core, connected.profile);
  return connected.open();
}
