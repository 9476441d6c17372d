import { existsSync, readFileSync } from 'node:fs';
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
});
