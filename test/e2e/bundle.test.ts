import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBackgroundTotals } from '../../src-main/search/background-totals';
import { targetRows } from '../../src-main/review/targets';
import { expenseCount } from '../../src-main/search/expenses';
import { transactionTotals } from '../../src-main/search/transactions';
import { defaultMigrationsDir, openCache } from '../../src-main/store';
import { demoState, recordsOf, seedExpenses } from '../integration/search/fixtures';
import { upsertTransactions } from '../integration/search/load';
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

  it('exposes one object to the page, through the contract, never ipcRenderer itself', () => {
    const preload = readFileSync(out('preload/index.cjs'), 'utf8');
    const exposed = [...preload.matchAll(/exposeInMainWorld\(\s*["']([^"']*)["']/g)].map((match) => match[1]);
    expect(exposed).toEqual(['satchel']);
    expect(preload.match(/exposeInMainWorld\(/g)).toHaveLength(1);
    // ipcRenderer is only called (invoke on the one command channel, on/off for events), never handed on.
    const uses = new Set(
      [...preload.matchAll(/ipcRenderer(\W{0,2})(\w*)/g)].map((match) => `${match[1]}${match[2]}`),
    );
    expect([...uses].sort()).toEqual(['.invoke', '.off', '.on']);
  });

  it('checks the sender of every command and refuses every permission and redirect away', () => {
    const main = readFileSync(out('main/index.js'), 'utf8');
    expect(main).toContain('senderFrame');
    expect(main).toContain('will-redirect');
    expect(main).toMatch(/setPermissionRequestHandler\(\s*\([^)]*\)\s*=>\s*\w+\(\s*(false|!1)\s*\)\s*\)/);
    expect(main).toMatch(/setPermissionCheckHandler\(\s*\(\)\s*=>\s*(false|!1)\s*\)/);
    expect(main).toMatch(/webSecurity\s*:\s*(true|!0)/);
    expect(main).not.toMatch(/webSecurity\s*:\s*(false|!1)|allowRunningInsecureContent\s*:\s*(true|!0)/);
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
      'showErrorBox', // a core that cannot start (its data folder) is said, not a missing window
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

  it('builds the totals thread as a script of its own, which counts transactions and expenses and lists review rows on a real cache', async () => {
    const main = readFileSync(out('main/index.js'), 'utf8');
    const script = /["']\.\/(chunks\/totals-thread-[\w-]+\.js)["']/.exec(main)?.[1];
    if (!script) throw new Error('the main bundle names no totals thread script');
    const built = readFileSync(out(`main/${script}`), 'utf8');
    expect(built).not.toMatch(/from ["']electron["']/);
    const dir = mkdtempSync(path.join(tmpdir(), 'satchel-bundle-'));
    const cache = openCache(path.join(dir, 'org.sqlite'), { migrationsDir: defaultMigrationsDir() });
    const thread = createBackgroundTotals({
      file: cache.file,
      script: out(`main/${script}`),
      fallback: () => {
        throw new Error('the built totals thread did not answer');
      },
    });
    try {
      upsertTransactions(cache, recordsOf(demoState(500)));
      seedExpenses(cache);
      for (const filters of [{}, { freeText: 'bahn' }, { reviewed: false, matched: true }])
        expect(await thread.totals(filters)).toEqual(transactionTotals(cache, filters));
      for (const filters of [{}, { text: 'ü' }, { hasFile: false }, { includeDeleted: true }])
        expect(await thread.expenseCount(filters)).toBe(expenseCount(cache, filters));
      const unmatched = { by: 'transactionSearch', filters: { matched: false } } as const;
      const rows = Array.from(await thread.reviewRows(unmatched));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows).toEqual(targetRows(cache.sqlite, unmatched));
    } finally {
      await thread.close();
      cache.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
