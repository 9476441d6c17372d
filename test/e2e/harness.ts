import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Core } from '../../src-main/core';
import { createHandlers, dispatch } from '../../src-main/handlers';
import { artifactsDir, bridgeBundle, chromiumPath, rendererDir } from './paths';

/** The origin the built renderer is served from; requests to it are answered from out/renderer. */
export const APP_ORIGIN = 'http://satchel.test';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
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
  options: { colorScheme?: 'light' | 'dark' } = {},
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
      const body = readFileSync(file);
      await route.fulfill({
        status: 200,
        body,
        contentType: contentTypes[path.extname(file)] ?? 'application/octet-stream',
      });
    } catch {
      await route.fulfill({ status: 404 });
    }
  });
  await page.exposeBinding('__satchelInvoke', (_source, command: unknown, input: unknown) =>
    dispatch(handlers, command, input),
  );
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
