import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `tsx test/bench/run.ts [filter]`: runs every test/bench/*.bench.ts (or those whose name
 * contains the filter), prints their figures and merges them, under each bench's name, into
 * test/bench/results/latest.json (benches not run keep their last figures). A bench that
 * throws is reported and recorded as { error } and the run exits 1 after the others ran.
 */

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = (await readdir(here))
  .filter((name) => name.endsWith('.bench.ts') && name.includes(filter))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark matches "${filter}".`);
  process.exit(1);
}

type Figures = Record<string, number | string>;
const outDir = join(here, 'results');
const latest = join(outDir, 'latest.json');
const previous = await readFile(latest, 'utf8').then(
  (text) => (JSON.parse(text) as { results?: Record<string, Figures> }).results ?? {},
  () => ({}),
);
const results: Record<string, Figures> = { ...previous };
let failed = false;
for (const file of files) {
  const name = file.replace(/\.bench\.ts$/, '');
  console.log(`\n${name}`);
  try {
    const module = (await import(pathToFileURL(join(here, file)).href)) as {
      default: () => Promise<Figures>;
    };
    const figures = await module.default();
    results[name] = { ...figures, measuredAt: new Date().toISOString() };
    for (const [key, value] of Object.entries(figures)) console.log(`  ${key.padEnd(32)} ${value}`);
  } catch (error) {
    failed = true;
    results[name] = { error: (error as Error).message, measuredAt: new Date().toISOString() };
    console.error(`  failed: ${(error as Error).stack ?? String(error)}`);
  }
}

await mkdir(outDir, { recursive: true });
const output = { date: new Date().toISOString(), node: process.version, results };
await writeFile(latest, `${JSON.stringify(output, null, 2)}\n`);
console.log(`\nWritten to ${join('test', 'bench', 'results', 'latest.json')}`);
if (failed) process.exit(1);
