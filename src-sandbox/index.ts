import type { Socket } from 'node:net';
import type { OperationId } from '../src-shared/api';
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from '../src-shared/demo';
import { createControl, createRequestLog, registerControlRoutes, type Control } from './control';
import { DEFAULT_DATA, createState, type State } from './data/state';
import { createAuth } from './http/auth';
import { createCorruptions } from './http/corruptions';
import { createFaults } from './http/faults';
import { createRateLimiter } from './http/rate-limit';
import { buildServer, type Handlers } from './http/server';
import { openApiDocument } from './openapi';
import { bankHandlers } from './routes/bank';
import type { RouteContext } from './routes/context';
import { dimensionHandlers } from './routes/dimensions';
import { fileHandlers } from './routes/files';
import { referenceHandlers } from './routes/reference';
import { supplierHandlers } from './routes/suppliers';

/**
 * A faithful local spend API 1.44.0 with deterministic demo data: the app's demo
 * organisation, the developers' server and the peer of every integration test.
 */

export interface SandboxOptions {
  /** 0 (the default here) picks a free port; the CLI defaults to 4010. */
  port?: number;
  host?: string;
  seed?: number;
  transactions?: number;
  suppliers?: number;
  endDate?: string;
  clientId?: string;
  clientSecret?: string;
  readLimit?: number;
  writeLimit?: number;
  windowSeconds?: number;
  tokenTtlSeconds?: number;
  erpSupplierNumbers?: boolean;
  /** Average size of the expense files in KiB, as scans and photos are; 0 (the default): tiny. */
  fileKb?: number;
  /** Serve the /__control routes as well as returning the in-process handle. */
  control?: boolean;
  /** Clock in milliseconds; tests pass their own to expire tokens and windows. */
  now?: () => number;
}

export interface Sandbox {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Present when started with `control: true`. */
  control?: Control;
  /** The generated data, for tests that compare answers with it. */
  state: State;
  /**
   * In-process only. False closes the port, cutting the connections that are open: every
   * request is refused (`ECONNREFUSED`), as by an API that no longer answers at all (the
   * `drop` fault, by contrast, accepts the connection and then breaks it). True opens the same
   * address again, with the same data.
   */
  setReachable(reachable: boolean): Promise<void>;
  stop(): Promise<void>;
}

export { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET };

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now;
  const clientId = options.clientId ?? DEMO_CLIENT_ID;
  const clientSecret = options.clientSecret ?? DEMO_CLIENT_SECRET;
  const state = createState({
    seed: options.seed ?? DEFAULT_DATA.seed,
    transactions: options.transactions ?? DEFAULT_DATA.transactions,
    suppliers: options.suppliers ?? DEFAULT_DATA.suppliers,
    endDate: options.endDate ?? DEFAULT_DATA.endDate,
    erpSupplierNumbers: options.erpSupplierNumbers ?? false,
    fileKb: options.fileKb ?? DEFAULT_DATA.fileKb,
  });
  const auth = createAuth({ clientId, clientSecret, tokenTtlSeconds: options.tokenTtlSeconds ?? 3600, now });
  const limiter = createRateLimiter(
    {
      read: options.readLimit ?? 180,
      write: options.writeLimit ?? 20,
      windowSeconds: options.windowSeconds ?? 60,
    },
    now,
  );
  const faults = createFaults();
  const corruptions = createCorruptions();
  const requestLog = createRequestLog();
  let document: unknown;
  const context: RouteContext = { state, auth, now, openapi: () => (document ??= openApiDocument()) };
  const handlers: Handlers = {
    ...bankHandlers(context),
    ...fileHandlers(context),
    ...supplierHandlers(context),
    ...dimensionHandlers(context),
    ...referenceHandlers(context),
  } satisfies Record<OperationId, unknown>;
  const control = options.control
    ? createControl(state, { faults, corruptions, auth, limiter, now, requestLog })
    : undefined;
  const app = buildServer({
    auth,
    limiter,
    faults,
    corruptions,
    handlers,
    now,
    ...(control ? { onRequest: (entry) => requestLog.add(entry) } : {}),
    ...(control ? { extraRoutes: (server) => registerControlRoutes(server, control, faults) } : {}),
  });
  const host = options.host ?? '127.0.0.1';
  const address = await app.listen({ port: options.port ?? 0, host });
  const url = address.replace('[::1]', 'localhost');
  const port = Number(new URL(url).port);
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let reachable = true;
  async function setReachable(wanted: boolean): Promise<void> {
    if (wanted === reachable) return;
    reachable = wanted;
    if (!wanted) {
      const closed = new Promise<void>((resolve) => app.server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      return closed;
    }
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen(port, host, () => {
        app.server.off('error', reject);
        resolve();
      });
    });
  }
  return {
    url,
    clientId,
    clientSecret,
    state,
    ...(control ? { control } : {}),
    setReachable,
    stop: async () => {
      // Fastify closes a listening server: one taken off the network is opened to be closed.
      await setReachable(true);
      await app.close();
    },
  };
}
