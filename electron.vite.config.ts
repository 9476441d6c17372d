import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const root = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // Native modules (better-sqlite3, keytar) and the rest of node_modules stay external.
      externalizeDeps: true,
      rollupOptions: { input: { index: resolve(root, 'src-main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload can require only a few built-ins: bundle everything it uses
      // (zod, the contract) into one CommonJS file.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(root, 'src-main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      // electron-vite leaves the renderer unminified; minified, the first screen parses a
      // third of the script and shows its rows sooner (docs/screens.md).
      minify: true,
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') } },
    },
  },
});
