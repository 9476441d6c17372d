import { mkdirSync } from 'node:fs';
import path from 'node:path';
import packageJson from '../package.json';
import { API_VERSION, type AppInfo, type Notice } from '../src-shared/ipc';
import { createEventBus, type EventBus } from './events';
import { createProfileStore, type ProfileStore } from './profiles';
import { createKeychainSecrets, type Secrets } from './secrets';
import { defaultMigrationsDir, shippedSchemaVersion } from './store/migrations';

/**
 * The app core: every service Satchel has, built from plain options. It imports nothing from
 * electron, so the Electron shell, the CLI and the tests all run the very same core.
 */
export interface CoreOptions {
  /** Where Satchel keeps its caches and settings; created if missing. */
  dataDir: string;
  secrets?: Secrets;
  /** Folder of the cache's SQL migrations (the packaged app passes its resources path). */
  migrationsDir?: string;
  clock?: () => Date;
  platform?: string;
}

export interface Core {
  readonly events: EventBus;
  readonly secrets: Secrets;
  readonly profiles: ProfileStore;
  info(): AppInfo;
  notify(level: Notice['level'], message: string): void;
  close(): void;
}

export function createCore(options: CoreOptions): Core {
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const clock = options.clock ?? (() => new Date());
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir();
  const schemaVersion = shippedSchemaVersion(migrationsDir);
  const events = createEventBus();
  const secrets = options.secrets ?? createKeychainSecrets();

  const profiles = createProfileStore({ dataDir, secrets, now: clock });

  return {
    events,
    secrets,
    profiles,
    info: () => ({
      name: packageJson.productName,
      version: packageJson.version,
      apiVersion: API_VERSION,
      dataDir,
      schemaVersion,
      platform: options.platform ?? process.platform,
    }),
    notify(level, message) {
      events.emit('app.notice', { level, message, at: clock().toISOString() });
    },
    close() {
      // Nothing is open yet; services that hold files or timers release them here.
    },
  };
}
