import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './paths';

// The e2e global setup builds the app exactly as `npm run build` does; these read its output.
const out = (file: string) => path.join(repoRoot, 'out', file);

describe('the built app', () => {
  it('never turns Node integration on, and keeps the window secure', () => {
    const main = readFileSync(out('main/index.js'), 'utf8');
    expect(main).not.toMatch(/nodeIntegration\w*\s*:\s*(true|!0)/);
    expect(main).toMatch(/contextIsolation\s*:\s*(true|!0)/);
    expect(main).toMatch(/sandbox\s*:\s*(true|!0)/);
  });

  it('has a CommonJS preload with its dependencies bundled, and the renderer with its CSP', () => {
    const preload = readFileSync(out('preload/index.cjs'), 'utf8');
    expect(preload).not.toMatch(/require\(["'](zod|\.\.?\/)/); // only electron is required
    expect(preload).toMatch(/require\(["']electron["']\)/);
    const html = readFileSync(out('renderer/index.html'), 'utf8');
    expect(html).toMatch(/http-equiv="Content-Security-Policy"/);
    expect(html).toMatch(/script-src 'self'/);
    expect(existsSync(out('renderer/index.html'))).toBe(true);
  });

  it('wires the shell: one instance, permissions and new windows refused, links confirmed, quit closes the core', () => {
    const main = readFileSync(out('main/index.js'), 'utf8');
    for (const call of [
      'requestSingleInstanceLock',
      'setPermissionRequestHandler',
      'setPermissionCheckHandler',
      'setWindowOpenHandler',
      'will-navigate',
      'will-attach-webview',
      'showMessageBox', // the confirmation before a link opens in the browser, the About box
      'openExternal',
      'showOpenDialog', // the folder picker handed to the core
      'setApplicationMenu',
      'isOnline',
      'will-quit',
    ])
      expect(main, call).toContain(call);
    expect(main).toMatch(/action:\s*["']deny["']/);
  });

  it('serves receipts through the satchel-file: route and keeps pdf.js out of the first screen', () => {
    const main = readFileSync(out('main/index.js'), 'utf8');
    expect(main).toContain('registerSchemesAsPrivileged');
    expect(main).toMatch(/protocol\.handle\(/);
    const assets = readdirSync(out('renderer/assets'));
    // The pdf.js worker is a file of its own in the bundle (script-src and worker-src 'self').
    const worker = assets.find((name) => /^pdf\.worker[\w.-]*\.mjs$/.test(name));
    expect(worker, assets.join(', ')).toBeDefined();
    const html = readFileSync(out('renderer/index.html'), 'utf8');
    const entry = /<script[^>]+src="\.\/assets\/([^"]+\.js)"/.exec(html)?.[1];
    if (!entry) throw new Error('no entry script in the built page');
    const first = readFileSync(out(`renderer/assets/${entry}`), 'utf8');
    expect(first).not.toContain('GlobalWorkerOptions');
    const lazy = assets.filter((name) => name.endsWith('.js') && name !== entry);
    expect(
      lazy.some((name) =>
        readFileSync(out(`renderer/assets/${name}`), 'utf8').includes('GlobalWorkerOptions'),
      ),
    ).toBe(true);
  });
});
