import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The electron-builder configuration (package.json "build"). Packaging itself needs downloads
// (Electron for each platform, NSIS, the AppImage runtime), so what CI checks is that the
// configuration says what the app needs at run time.
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  build: {
    appId: string;
    productName: string;
    files: string[];
    asar: boolean;
    npmRebuild: boolean;
    asarUnpack: string[];
    extraResources: Array<{ from: string; to: string }>;
    linux: { target: string[] };
    deb: { depends: string[] };
    mac: { target: string[] };
    win: { target: string[] };
  };
};
const index = readFileSync(new URL('../../src-main/index.ts', import.meta.url), 'utf8');

describe('packaging configuration', () => {
  it('builds AppImage and deb for Linux, dmg for macOS, an NSIS installer for Windows', () => {
    expect(pkg.build.linux.target).toEqual(['AppImage', 'deb']);
    expect(pkg.build.mac.target).toEqual(['dmg']);
    expect(pkg.build.win.target).toEqual(['nsis']);
    expect(pkg.build).toMatchObject({ appId: 'app.satchel.desktop', productName: 'Satchel', asar: true });
    // Build, rebuild the native modules for Electron, package; electron-builder rebuilds them
    // again for the target architecture (npmRebuild).
    expect(pkg.scripts['dist']).toBe(
      'npm run build && npm run native:electron && electron-builder --publish never',
    );
    expect(pkg.build).toMatchObject({ npmRebuild: true });
  });

  it('ships the built app and unpacks the native modules from the asar', () => {
    expect(pkg.main).toBe('out/main/index.js');
    expect(pkg.build.files).toContain('out/**/*');
    for (const native of ['better-sqlite3', 'keytar']) {
      expect(pkg.dependencies).toHaveProperty(native);
      expect(pkg.build.asarUnpack).toContain(`node_modules/${native}/**/*`);
    }
    expect(pkg.build.asarUnpack).toContain('**/*.node');
    expect(pkg.build.deb.depends).toContain('libsecret-1-0'); // keytar's Secret Service client
  });

  it('puts the migrations where the packaged app reads them', () => {
    expect(pkg.build.extraResources).toContainEqual(
      expect.objectContaining({ from: 'resources/migrations', to: 'migrations' }),
    );
    // src-main/index.ts: path.join(process.resourcesPath, 'migrations', 'cache') when packaged.
    expect(index).toMatch(/process\.resourcesPath,\s*'migrations',\s*'cache'/);
  });

  it('is a configuration electron-builder itself loads and accepts', async () => {
    // electron-builder's own loader and schema check (no download needed): a misspelt or
    // misplaced option fails here instead of on the first packaging machine.
    const require = createRequire(import.meta.url);
    const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      getConfig(projectDir: string, configPath: null, fromOptions: null): Promise<Record<string, unknown>>;
      validateConfiguration(
        config: Record<string, unknown>,
        debug: { isEnabled: boolean; add(key: string, value: unknown): void },
      ): Promise<void>;
    };
    const quiet = { isEnabled: false, add: () => undefined };
    const config = await getConfig(fileURLToPath(new URL('../..', import.meta.url)), null, null);
    expect(config).toMatchObject({ appId: 'app.satchel.desktop', asarUnpack: pkg.build.asarUnpack });
    await expect(validateConfiguration(config, quiet)).resolves.toBeUndefined();
    await expect(
      validateConfiguration({ ...config, linux: { targets: ['AppImage'] } }, quiet),
    ).rejects.toThrow(/does not match the API schema/);
  });
});
