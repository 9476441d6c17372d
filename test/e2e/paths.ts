import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const rendererDir = path.join(repoRoot, 'out/renderer');
export const bridgeBundle = path.join(repoRoot, 'out/e2e/bridge.js');
export const artifactsDir = path.join(repoRoot, 'test/e2e/artifacts');
export const chromiumPath = process.env['SATCHEL_CHROMIUM'] ?? '/usr/bin/chromium';
