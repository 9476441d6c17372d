import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY } from '../../src-main/shell/csp';
import { isAllowedExternalUrl, isAppNavigation } from '../../src-main/shell/navigation';
import { isTrustedSender } from '../../src-main/shell/sender';
import { windowOptions } from '../../src-main/shell/window-options';

describe('window options', () => {
  it('let the page be as small as 800 × 560, measured without the frame', () => {
    // The size every area is laid out for and checked at (test/e2e/small-window.test.ts).
    expect(windowOptions('/preload.cjs')).toMatchObject({
      minWidth: 800,
      minHeight: 560,
      useContentSize: true,
    });
  });

  it('isolate the renderer from Node and keep web security on', () => {
    const { webPreferences } = windowOptions('/app/out/preload/index.cjs');
    expect(webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
});

describe('IPC sender check', () => {
  const fileApp = 'file:///opt/Satchel/resources/app.asar/out/renderer/index.html';

  it('accepts the app page itself', () => {
    expect(isTrustedSender(fileApp, true, fileApp)).toBe(true);
    expect(isTrustedSender('http://localhost:5173/#/settings', true, 'http://localhost:5173/')).toBe(true);
  });

  it('refuses sub-frames, other files, other origins and garbage', () => {
    expect(isTrustedSender(fileApp, false, fileApp)).toBe(false);
    expect(isTrustedSender('file:///tmp/evil.html', true, fileApp)).toBe(false);
    expect(isTrustedSender('https://example.com/', true, fileApp)).toBe(false);
    expect(isTrustedSender('http://localhost:5174/', true, 'http://localhost:5173/')).toBe(false);
    expect(isTrustedSender('not a url', true, fileApp)).toBe(false);
  });

  it('refuses the app page’s path on another host (a Windows share, file://server/...)', () => {
    // On Windows file://server/path is the SMB share \\server\path: the same path, another machine.
    const elsewhere = 'file://files.example.com/opt/Satchel/resources/app.asar/out/renderer/index.html';
    expect(isTrustedSender(elsewhere, true, fileApp)).toBe(false);
    expect(isAppNavigation(elsewhere, fileApp)).toBe(false);
    // "localhost" is this machine: URL parsing makes it the empty host.
    expect(isAppNavigation(fileApp.replace('file:///', 'file://localhost/'), fileApp)).toBe(true);
  });
});

describe('content security policy', () => {
  it('allows scripts only from the app and nothing remote', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/https?:|\*|unsafe-eval/);
  });

  it('lets the preview read cached receipts from the app’s file route and nothing remote', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives.get('img-src')).toEqual(["'self'", 'data:', 'blob:', 'satchel-file:']);
    expect(directives.get('connect-src')).toEqual(["'self'", 'satchel-file:']);
    expect(directives.get('worker-src')).toEqual(["'self'"]);
    // The file route is named only where the preview needs it, never for scripts or styles.
    for (const [name, sources] of directives) {
      if (name !== 'img-src' && name !== 'connect-src') expect(sources, name).not.toContain('satchel-file:');
      for (const source of sources ?? []) {
        expect(source, name).toMatch(/^('self'|'none'|'unsafe-inline'|data:|blob:|satchel-file:)$/);
      }
    }
    expect(directives.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(
      /wasm-unsafe-eval|unsafe-hashes|strict-dynamic|filesystem:|ws:|wss:/,
    );
  });

  it('is the same text as the meta tag of the renderer page, less what only a header carries', () => {
    const html = readFileSync(new URL('../../src-renderer/index.html', import.meta.url), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
    expect(meta?.[1]).toBe(META_CONTENT_SECURITY_POLICY);
    // A browser ignores frame-ancestors in a meta tag (and says so on the console): the header has it.
    expect(META_CONTENT_SECURITY_POLICY).not.toMatch(/frame-ancestors|report-uri|sandbox/);
    expect(CONTENT_SECURITY_POLICY).toBe(`${META_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`);
  });
});

describe('navigation and external links', () => {
  it('keeps the window on the app and opens only https links outside', () => {
    const app = 'file:///opt/Satchel/out/renderer/index.html';
    expect(isAppNavigation(`${app}#/settings`, app)).toBe(true);
    expect(isAppNavigation('https://evil.example/', app)).toBe(false);
    expect(isAllowedExternalUrl('https://help.example.com/satchel')).toBe(true);
    expect(isAllowedExternalUrl('http://help.example.com/')).toBe(false);
    expect(isAllowedExternalUrl('file:///etc/passwd')).toBe(false);
    expect(isAllowedExternalUrl('https://user:pw@example.com/')).toBe(false);
    expect(isAllowedExternalUrl('javascript:alert(1)')).toBe(false);
  });
});
