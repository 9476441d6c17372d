// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

// Bare built-in names are matched exactly (`paths`), so a local module called events.ts is fine.
const builtinNames = [
  'fs',
  'path',
  'os',
  'crypto',
  'http',
  'https',
  'child_process',
  'events',
  'stream',
  'url',
  'util',
  'buffer',
  'zlib',
  'net',
];
/** @param {string} message */
const builtinPaths = (message) => builtinNames.map((name) => ({ name, message }));

/** Architectural boundaries (DESIGN.md, "The shape"), checked on every lint run. */
const boundaries = [
  {
    files: ['src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinPaths('src-shared is pure TypeScript: no Node built-ins.'),
          patterns: [
            { group: ['node:*'], message: 'src-shared is pure TypeScript: no Node built-ins.' },
            { group: ['electron', 'electron/*'], message: 'src-shared never imports electron.' },
            { group: ['react', 'react-dom', 'react-dom/*'], message: 'src-shared has no DOM or React.' },
            {
              group: ['**/src-main/**', '**/src-renderer/**', '**/src-sandbox/**'],
              message: 'Arrows point down: src-shared imports only itself.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinPaths('The renderer never gets Node.'),
          patterns: [
            {
              group: ['**/src-main/**', '**/src-sandbox/**'],
              message: 'The renderer talks to the app only through window.satchel.',
            },
            { group: ['node:*'], message: 'The renderer never gets Node.' },
            { group: ['electron', 'electron/*'], message: 'The renderer never imports electron.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/**/*.ts', 'src-sandbox/**/*.ts', 'test/**/*.ts', 'scripts/**/*.{ts,mjs}'],
    ignores: ['src-main/index.ts', 'src-main/preload.ts', 'test/unit/renderer/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['electron', 'electron/*'],
              message:
                'Only src-main/index.ts and src-main/preload.ts import electron; everything else runs in plain Node.',
            },
            { group: ['**/src-renderer/**'], message: 'Main never imports the renderer.' },
            {
              group: ['**/src-main/index', '**/src-main/preload'],
              message: 'The Electron entry points are loaded only by Electron.',
            },
          ],
        },
      ],
    },
  },
  {
    // Unit tests of the renderer's pure logic: they may import the renderer, never main.
    files: ['test/unit/renderer/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['electron', 'electron/*'], message: 'The renderer never imports electron.' },
            {
              group: ['**/src-main/**', '**/src-sandbox/**'],
              message: 'Renderer tests stay in the renderer.',
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      'test/e2e/artifacts/**',
      'test/bench/results/**',
      'resources/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  ...boundaries,
);
