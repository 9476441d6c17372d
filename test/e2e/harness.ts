import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Core } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { FILE_SCHEME } from '../../src-main/shell/file-route';
import { answerFileRequest } from '../../src-main/shell/file-response';
import { artifactsDir, bridgeBundle, chromiumPath, rendererDir } from './paths';

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
