import { existsSync } from 'node:fs';
import path from 'node:path';
import { build as buildApp } from 'electron-vite';
import { build as buildVite } from 'vite';
import { bridgeBundle, chromiumPath, repoRoot } from './paths';

/** Builds the renderer exactly as the app ships it, plus the test bridge, before any e2e test. */
export default async function setup(): Promise<void> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium not found at ${chromiumPath}: install Debian's chromium (apt-get install chromium).`,
    );
  }
  await buildApp({
    root: repoRoot,
    configFile: path.join(repoRoot, 'electron.vite.config.ts'),
    logLevel: 'warn',
  });
  await buildVite({
    root: repoRoot,
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir: path.dirname(bridgeBundle),
      emptyOutDir: true,
      lib: {
        entry: path.join(repoRoot, 'test/e2e/bridge-entry.ts'),
        formats: ['iife'],
        name: 'satchelBridge',
        fileName: () => path.basename(bridgeBundle),
      },
    },
  });
}
