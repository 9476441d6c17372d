import { createApiClient } from '../../src-main/api/client';
import type { CacheDb } from '../../src-main/store';
import { runSync } from '../../src-main/sync/engine';
import { allResources } from '../../src-main/sync/resources';

/** Where a sandbox answers, and the demo client's credentials. */
export interface SandboxPeer {
  url: string;
  clientId: string;
  clientSecret: string;
}

/** A real API client of the sandbox with its client credentials (no keychain). */
export function sandboxClient(
  sandbox: SandboxPeer,
  options: Omit<Parameters<typeof createApiClient>[0], 'baseUrl' | 'credentials'> = {},
) {
  return createApiClient({
    baseUrl: sandbox.url,
    credentials: async () => ({
      kind: 'client',
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
    }),
    ...options,
  });
}

/** Every resource of the sandbox into the cache, as the app's sync does. */
export function syncFromSandbox(cache: CacheDb, sandbox: SandboxPeer) {
  return runSync({ cache, client: sandboxClient(sandbox), resources: allResources });
}
