// Native modules (better-sqlite3, keytar) are compiled for one runtime at a time: Node for the
// tests and the CLI, Electron for the app. This script makes sure they fit the runtime asked for.
//
//   node scripts/native.mjs node       rebuild for Node if loading them fails
//   node scripts/native.mjs electron   rebuild for the installed Electron (needs its headers)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const target = process.argv[2];
const modules = ['better-sqlite3', 'keytar'];

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { stdio: 'inherit', env, shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (target === 'node') {
  const probe = spawnSync(
    process.execPath,
    ['-e', "new (require('better-sqlite3'))(':memory:').close(); require('keytar');"],
    { encoding: 'utf8' },
  );
  if (probe.status !== 0) {
    console.log('Native modules do not load in Node (built for Electron?); rebuilding them for Node…');
    run('npm', ['rebuild', ...modules]);
  }
} else if (target === 'electron') {
  // node-gyp (bundled with npm) builds against Electron's headers when told the runtime.
  const { version } = JSON.parse(
    readFileSync(new URL('../node_modules/electron/package.json', import.meta.url), 'utf8'),
  );
  run('npm', ['rebuild', ...modules], {
    ...process.env,
    npm_config_runtime: 'electron',
    npm_config_target: version,
    npm_config_disturl: 'https://electronjs.org/headers',
    npm_config_build_from_source: 'true',
  });
} else {
  console.error('usage: node scripts/native.mjs node|electron');
  process.exit(2);
}
