import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from '../src-shared/demo';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src-sandbox';
import type { Profile, ProfileStore } from './profiles';

/**
 * The demo organisation: the sandbox started inside the app on a free loopback port, and a
 * connection to it like any other (its demo key in the keychain, its own cache file), so a
 * new user sees the whole app in seconds with no account. The sandbox's data is generated
 * from a fixed seed on every start; the cache, review marks and unsent edits are kept.
 */

export const DEMO_NAME = 'Demo organisation';

/**
 * Rate limits of the in-app sandbox: thirty times the production default, so the first sync
 * of the demo takes seconds, not minutes. The limits still apply and still show in the UI.
 */
export const DEMO_SANDBOX: SandboxOptions = {
  host: '127.0.0.1',
  port: 0,
  readLimit: 5400,
  writeLimit: 600,
  windowSeconds: 60,
};

export interface DemoService {
  /** Starts the sandbox if needed and returns the demo connection, created or moved to it. */
  open(): Promise<Profile>;
  /** Whether a connection is the app's demo organisation (and needs the sandbox running). */
  isDemo(profileId: string): boolean;
  /** Starts the sandbox for a demo connection before it is used; other connections pass. */
  ensureFor(profileId: string): Promise<void>;
  /** The running sandbox's address, or null. */
  url(): string | null;
  stop(): Promise<void>;
}

export function createDemo(options: {
  profiles: ProfileStore;
  /** Called when a connection's address changed, so cached API clients are dropped. */
  onMoved: (profileId: string) => void;
  sandbox?: SandboxOptions;
}): DemoService {
  let running: Promise<Sandbox> | null = null;
  let current: Sandbox | null = null;
  let opening: Promise<Profile> | null = null;

  function sandbox(): Promise<Sandbox> {
    running ??= startSandbox({ ...DEMO_SANDBOX, ...options.sandbox }).then(
      (started) => (current = started),
      (error: unknown) => {
        running = null;
        throw error;
      },
    );
    return running;
  }

  function freeName(): string {
    const taken = new Set(options.profiles.list().map((profile) => profile.name.toLowerCase()));
    let name = DEMO_NAME;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${DEMO_NAME} ${n}`;
    return name;
  }

  async function connect(): Promise<Profile> {
    const { url } = await sandbox();
    const existing = options.profiles.list().find((profile) => profile.demo);
    if (!existing) {
      return options.profiles.add({
        name: freeName(),
        baseUrl: url,
        auth: { kind: 'client', clientId: DEMO_CLIENT_ID, clientSecret: DEMO_CLIENT_SECRET },
        demo: true,
      });
    }
    let profile = existing;
    if (profile.baseUrl !== url) {
      profile = options.profiles.moveTo(profile.id, url);
      options.onMoved(profile.id);
    }
    // A keychain emptied by hand: the demo key is not secret, so it is simply stored again.
    const stored = await options.profiles.credentials(profile.id).catch(() => null);
    if (!stored) {
      profile = await options.profiles.reauthenticate(profile.id, {
        kind: 'client',
        clientId: DEMO_CLIENT_ID,
        clientSecret: DEMO_CLIENT_SECRET,
      });
      options.onMoved(profile.id);
    }
    return profile;
  }

  const isDemo = (profileId: string) =>
    options.profiles.list().some((profile) => profile.id === profileId && profile.demo);

  return {
    open() {
      opening ??= connect().finally(() => {
        opening = null;
      });
      return opening;
    },
    isDemo,
    async ensureFor(profileId) {
      if (isDemo(profileId)) await this.open();
    },
    url: () => current?.url ?? null,
    async stop() {
      const started = running;
      running = null;
      current = null;
      if (started) await (await started.catch(() => null))?.stop();
    },
  };
}
