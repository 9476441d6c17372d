import path from 'node:path';
import { createApiClient, type ApiClient } from '../../../src-main/api/client';
import { createOutbox, type Outbox } from '../../../src-main/outbox';
import { defaultMigrationsDir, openCache, type CacheDb } from '../../../src-main/store';
import { runSync } from '../../../src-main/sync/engine';
import { allResources } from '../../../src-main/sync/resources';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src-sandbox';
import { sandboxToken } from '../../helpers/sandbox-token';

/**
 * A real sandbox over HTTP, a real SQLite cache synced from it, and the outbox over both. The
 * outbox's client can be switched off (a closed port, no retries) to be offline, and the cache
 * closed and reopened to stand for a restart.
 */
export interface OutboxSetup {
  sandbox: Sandbox;
  cache: CacheDb;
  outbox: Outbox;
  client: ApiClient;
  profileId: string;
  online: boolean;
  /** Closes the cache and opens it again, with a new outbox service (a restart). */
  restart(): void;
  sync(): ReturnType<typeof runSync>;
  /** Plain HTTP to the API with a read-write token, bypassing the app. */
  api(method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export async function outboxSetup(dir: string, options: Partial<SandboxOptions> = {}): Promise<OutboxSetup> {
  const sandbox = await startSandbox({ port: 0, seed: 3, transactions: 200, control: true, ...options });
  const file = path.join(dir, 'cache.sqlite');
  const credentials = async () => ({
    kind: 'client' as const,
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
  });
  const client = createApiClient({ baseUrl: sandbox.url, credentials, random: () => 0, timeoutMs: 5_000 });
  const offline = createApiClient({ baseUrl: 'http://127.0.0.1:9', credentials, maxRetries: 0 });
  let token: string | undefined;

  const setup: OutboxSetup = {
    sandbox,
    cache: openCache(file, { migrationsDir: defaultMigrationsDir() }),
    outbox: undefined as unknown as Outbox,
    client,
    profileId: 'org',
    online: true,
    restart() {
      setup.cache.close();
      setup.cache = openCache(file, { migrationsDir: defaultMigrationsDir() });
      setup.outbox = makeOutbox();
    },
    sync: () => runSync({ cache: setup.cache, client, resources: allResources }),
    async api(method, apiPath, body) {
      token ??= await sandboxToken(sandbox, 'read write');
      const response = await fetch(`${sandbox.url}${apiPath}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      setup.cache.close();
      await sandbox.stop();
    },
  };
  const makeOutbox = () =>
    createOutbox({
      cacheOf: () => setup.cache,
      clientOf: () => (setup.online ? client : offline),
    });
  setup.outbox = makeOutbox();
  return setup;
}

/** A cache row: SQL column names, with `raw` parsed. */
export type CacheRow = {
  [column: string]: unknown;
  raw: Record<string, unknown>;
  local_edit_pending: number;
};

/** The cache row of a record, with `raw` parsed. */
export function row(cache: CacheDb, table: string, id: string): CacheRow | undefined {
  const found = cache.sqlite.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as
    { [column: string]: unknown; raw: string; local_edit_pending: number } | undefined;
  return found ? { ...found, raw: JSON.parse(found.raw) as Record<string, unknown> } : undefined;
}

/** `outboxSetup` after a first sync that succeeded; `setups` gets it to close. */
export async function syncedOutbox(dir: string, setups: OutboxSetup[]): Promise<OutboxSetup> {
  const setup = await outboxSetup(dir);
  setups.push(setup);
  const summary = await setup.sync();
  if (summary.outcome !== 'succeeded') throw new Error(`the first sync ended ${summary.outcome}`);
  return setup;
}
