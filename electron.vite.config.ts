import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const root = dirname(fileURLToPath(import.meta.url));

/**
 * `import x from 'file?base64'`: the file's bytes as a base64 string, a module of its own
 * (pdf.js's CMaps and fonts, src-renderer/features/preview/pdf.ts).
 */
function base64Modules(): Plugin {
  const suffix = '?base64';
  return {
    name: 'satchel-base64-modules',
    enforce: 'pre',
    async load(id) {
      if (!id.endsWith(suffix)) return null;
      const bytes = await readFile(id.slice(0, -suffix.length));
      return `export default ${JSON.stringify(bytes.toString('base64'))};`;
    },
  };
}

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
    plugins: [react(), base64Modules()],
    build: {
      outDir: 'out/renderer',
      // electron-vite leaves the renderer unminified; minified, the first screen parses a
      // third of the script and shows its rows sooner (docs/screens.md).
      minify: true,
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') } },
    },
  },
});
