import 'reflect-metadata';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Knex } from 'knex';
import type { GatewayApp, createApp as CreateApp } from './app';
import { findClientByUsername, listClientHashes, recordDemoPasswordChecks } from './auth/client.store';
import { verifyPassword } from './auth/password';
import { Config, ConfigError, loadConfig } from './config';
import {
  DEMO_CREDENTIALS,
  OTHER_TENANT_CREDENTIALS,
  demoAuthorization,
  demoDataset,
  seedDemoFamily,
} from './dataset/demo';
import { createKnex, maintenanceLimits } from './db/knex';
import { migrateLatest } from './db/migrations';
import { systemClock } from './lib/clock';
import { applyHeapMode } from './lib/heap';
import { startTracing, stopTracing } from './lib/tracing';
import { Logger, createLogger, routeConsoleToLogger } from './logger';
import { countTenants, findTenantByName } from './modules/tenants/tenant.store';
import { VERSION } from './version';

// Start-up time: what only an empty database needs (the dataset import with its JSON
// Schema validator, the services that seed the demo data) is loaded when it is needed; the app
// (Apollo, type-graphql, Koa) is loaded while the demo password check runs.
const lazy = {
  app: () => require('./app') as typeof import('./app'),
  importDataset: () => (require('./dataset/import') as typeof import('./dataset/import')).importDataset,
  createServices: () => (require('./services') as typeof import('./services')).createServices,
};

/** Raised at start-up when the configuration and the database together are unsafe to serve. */
export class UnsafeStartError extends Error {
  override name = 'UnsafeStartError';
}

/** The published demo passwords a production start refuses. */
const DEMO_PASSWORDS = [DEMO_CREDENTIALS.password, OTHER_TENANT_CREDENTIALS.password];

/**
 * The fingerprint recorded in `api_clients.demo_password_check` once a client's stored password
 * hash was found not to be a published demo password: SHA-256 (64 hex characters) of the demo
 * passwords and that hash. A new password (a new salt, so a new hash) or another list of demo
 * passwords no longer matches it, and the hash is checked again.
 */
export function demoPasswordCheckOf(passwordHash: string): string {
  return createHash('sha256')
    .update(`${DEMO_PASSWORDS.join('\n')}\n${passwordHash}`)
    .digest('hex');
}

/**
 * Checks each client's stored hash against every published demo password, one scrypt run at a
 * time on the thread pool (overlapping the loading of the app, not each other: each run holds
 * 16 MiB, N=16384 r=8, so four at once raised the start's peak RSS by 64 MiB), and skips the
 * clients whose hash an earlier start already found clean (its fingerprint,
 * {@link demoPasswordCheckOf}, is recorded): so a start runs scrypt (about 90 ms of CPU each on
 * the bench machine) only for new or changed passwords, not twice per client every time.
 * Records the clean hashes it checked; a failure to record is logged and only means that the
 * next start checks them again. Resolves when all are done.
 * @throws UnsafeStartError naming the clients that use one.
 */
async function refuseDemoPasswords(db: Knex, logger?: Logger): Promise<void> {
  const clients = (await listClientHashes(db)).map((c) => ({
    ...c,
    check: demoPasswordCheckOf(c.passwordHash),
  }));
  const unchecked = clients.filter((c) => c.demoPasswordCheck !== c.check);
  logger?.info(
    { clients: clients.length, checked: unchecked.length },
    'checking API client passwords against the published demo passwords (those unchanged since an earlier check are skipped)',
  );
  const offenders: string[] = [];
  for (const c of unchecked) {
    for (const password of DEMO_PASSWORDS) {
      if (!(await verifyPassword(password, c.passwordHash))) continue;
      offenders.push(c.username);
      break;
    }
  }
  if (offenders.length)
    throw new UnsafeStartError(
      `refusing to start in production: API client(s) ${offenders.join(', ')} use a published demo password; ` +
        'change it with `client create` or remove the client',
    );
  await recordDemoPasswordChecks(db, unchecked).catch((err: unknown) =>
    logger?.warn({ err }, 'could not record the demo password check; the next start checks again'),
  );
}

/**
 * Production refuses to serve a client whose password is one of the published demo passwords.
 * @throws UnsafeStartError naming the clients.
 */
export async function assertNoDemoPasswords(db: Knex, logger?: Logger): Promise<void> {
  await refuseDemoPasswords(db, logger);
}

/**
 * Reads the client rows `serve`'s password check needs, then starts that check (scrypt, on the
 * thread pool) and hands it back unawaited in `done`, so that it runs while the app's modules
 * load: in production, the refusal of published demo passwords (`done` rejects with
 * UnsafeStartError); otherwise whether the sandbox may be pre-filled with the demo credentials
 * (demo data on, and the demo client still has the demo password).
 */
async function startPasswordCheck(
  config: Config,
  db: Knex,
  logger: Logger,
): Promise<{ done: Promise<boolean> }> {
  if (config.production) return { done: refuseDemoPasswords(db, logger).then(() => false) };
  if (!config.demoData) return { done: Promise.resolve(false) };
  const c = await findClientByUsername(db, DEMO_CREDENTIALS.username);
  return {
    done: c?.enabled ? verifyPassword(DEMO_CREDENTIALS.password, c.passwordHash) : Promise.resolve(false),
  };
}

/**
 * Migrates the database (statements unbounded: a migration may take long) and, when `DEMO_DATA`
 * is on and the database is empty, loads the demo dataset (docs/contract.md §8). In production it then
 * runs {@link assertNoDemoPasswords} unless `checkDemoPasswords` is false (`serve` runs that
 * check itself, while the app loads).
 * @throws UnsafeStartError from that check.
 */
export async function prepareDatabase(
  config: Config,
  logger: Logger,
  { checkDemoPasswords = true }: { checkDemoPasswords?: boolean } = {},
): Promise<void> {
  const db = createKnex(config.databaseUrl, maintenanceLimits(config.db), knexLog(logger));
  try {
    const applied = await migrateLatest(db);
    if (applied.length) logger.info({ applied }, 'migrations applied');
    if (config.demoData && (await countTenants(db)) === 0) {
      const summary = await lazy.importDataset()(db, demoDataset(), systemClock);
      const tenant = (await findTenantByName(db, DEMO_CREDENTIALS.tenant))!;
      const sharing = lazy.createServices()(db, config, systemClock, logger).sharing;
      const familyGroupId = await seedDemoFamily(sharing, tenant.id);
      logger.info({ summary, familyGroupId }, 'demo dataset loaded into the empty database');
    }
    if (config.production && checkDemoPasswords) await assertNoDemoPasswords(db, logger);
  } finally {
    await db.destroy();
  }
}

/** knex's own warnings as pino lines. */
function knexLog(logger: Logger) {
  return {
    warn: (msg: string) => logger.warn({ knex: msg }, 'knex'),
    error: (msg: string) => logger.error({ knex: msg }, 'knex'),
  };
}

/** A served gateway and the way to stop it. */
export interface RunningGateway {
  server: http.Server;
  /**
   * Graceful shutdown: stops accepting connections, stops the renewal consumer (the
   * events being applied finish) and closes the subscription connections, lets in-flight
   * requests finish for up to SHUTDOWN_TIMEOUT_MS, closes idle keep-alive connections, stops
   * Apollo and closes the pool. Resolves true when every request finished in time.
   */
  shutdown(reason: string): Promise<boolean>;
}

/**
 * Process entry (docs/contract.md §8): migrate, load the demo dataset into an empty database when
 * DEMO_DATA is on, serve on HOST:PORT, print the URLs (and the demo credentials when they work).
 * The caller wires signals to `shutdown` (see main).
 */
export async function serve(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
): Promise<RunningGateway> {
  await prepareDatabase(config, logger, { checkDemoPasswords: false });
  const db = createKnex(config.databaseUrl, config.db, knexLog(logger));
  const { app, demo } = await loadApp(config, db, logger);
  const server = http.createServer(app.koa.callback());
  app.attach(server);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  announce(config, server, demo);
  return { server, shutdown: shutdownOf(config, logger, db, server, app) };
}

/**
 * Loads and builds the app over `db` once the password check passed (it runs while the app's
 * modules load; nothing listens before it passed). `demo`: the explorer may be pre-filled with
 * the demo credentials. Destroys `db` when the check fails.
 * @throws UnsafeStartError from the production check.
 */
async function loadApp(
  config: Config,
  db: Knex,
  logger: Logger,
): Promise<{ app: GatewayApp; demo: boolean }> {
  let demo: boolean;
  let createApp: typeof CreateApp;
  try {
    const passwordCheck = await startPasswordCheck(config, db, logger);
    passwordCheck.done.catch(() => undefined); // awaited below, once the app is loaded
    createApp = lazy.app().createApp;
    demo = await passwordCheck.done;
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const app = await createApp({
    config,
    db,
    logger,
    sandboxAuthorization: demo ? demoAuthorization() : undefined,
  });
  return { app, demo };
}

/** Prints where the gateway listens (the database URL without its credentials). */
function announce(config: Config, server: http.Server, demo: boolean): void {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown =
    config.publicBaseUrl ??
    `http://${['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host}:${port}`;
  const lines = [
    `Subscriber Gateway ${VERSION} listening on ${config.host}:${port} (database ${config.databaseUrl.replace(/\/\/[^@]*@/, '//***@')})`,
    `  GraphQL (explorer in a browser):        ${shown}/graphql`,
    `  REST base URL:                          ${shown}/   e.g. POST ${shown}/token`,
  ];
  if (demo)
    lines.push(
      `  Demo credentials: ${DEMO_CREDENTIALS.username} / ${DEMO_CREDENTIALS.password} (tenant ${DEMO_CREDENTIALS.tenant})`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The graceful shutdown of {@link RunningGateway}, run once (later calls get the first's
 * promise); the app's lifecycle moves serving → draining → stopped on the way.
 */
function shutdownOf(
  config: Config,
  logger: Logger,
  db: Knex,
  server: http.Server,
  app: GatewayApp,
): (reason: string) => Promise<boolean> {
  let stopping: Promise<boolean> | undefined;
  const steps = async (reason: string): Promise<boolean> => {
    logger.info({ reason, inflight: app.inflight() }, 'shutting down: draining in-flight requests');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // No new renewal deliveries; subscription connections closed (1001), so `closed` can resolve.
    await app.stopBackground();
    const drained = await app.drain(config.shutdownTimeoutMs);
    server.closeAllConnections();
    await closed;
    await app.close();
    await db.destroy();
    logger.info({ drained }, drained ? 'shut down cleanly' : 'shut down with requests still in flight');
    return drained;
  };
  return (reason) => (stopping ??= steps(reason));
}

/**
 * Runs `serve` with the environment's configuration; a bad configuration exits with status 2.
 * Resolves once the gateway listens. The process entry is src/main.ts.
 */
export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  await runGateway(config);
}

/**
 * Serves until SIGTERM or SIGINT, then shuts down gracefully (the spans not yet exported are
 * flushed) and exits 0 (docs/contract.md §8: SIGTERM drains in-flight requests and exits 0). Used by `npm start` and the CLI's `serve`.
 */
export async function runGateway(config: Config): Promise<void> {
  applyHeapMode(config.heapMode);
  startTracing(); // already started by src/main.ts; the CLI's `serve` starts it here

  const logger = createLogger(config.logLevel);
  routeConsoleToLogger(logger);
  const gateway = await serve(config, logger);
  const onSignal = (signal: NodeJS.Signals) => {
    gateway
      .shutdown(signal)
      .then(() => stopTracing())
      .then(
        () => logger.flush(() => process.exit(0)),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          logger.flush(() => process.exit(1));
        },
      );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
