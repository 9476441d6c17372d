import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Secrets } from '../../src-main/secrets';

/** Every profiles.json (a data folder's registry) at most `depth` folders below `root`. */
function registries(root: string, depth: number): string[] {
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(root, entry.name);
    if (entry.isFile() && entry.name === 'profiles.json') return [full];
    return entry.isDirectory() && depth > 0 ? registries(full, depth - 1) : [];
  });
}

/**
 * Deletes the keychain entries (`profile:<id>`) of the connections whose data folders lie under
 * `roots`, and nothing else. Tests that drive the CLI share its default keychain service and run
 * in parallel: clearing the whole service after one of them would delete another's secret in the
 * middle of its run.
 */
export async function deleteProfileSecrets(secrets: Secrets, roots: readonly string[]): Promise<void> {
  for (const file of roots.flatMap((root) => registries(root, 2))) {
    const { profiles } = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Array<{ id: string }> };
    for (const profile of profiles) await secrets.delete(`profile:${profile.id}`);
  }
}
