import 'reflect-metadata';
import http from 'node:http';
import { Knex } from 'knex';
import { createApp } from './app';
import { findClientByUsername } from './auth/client.store';
import { verifyPassword } from './auth/password';
import { Config, ConfigError, loadConfig } from './config';
import { importDataset } from './dataset/import';
import { DEMO_CREDENTIALS, demoAuthorization, demoDataset, seedDemoFamily } from './dataset/demo';
import { createKnex } from './db/knex';
import { migrateLatest } from './db/migrations';
import { systemClock } from './lib/clock';
import { Logger, createLogger } from './logger';
import { countTenants, findTenantByName } from './modules/tenants/tenant.store';
import { createServices } from './services';
import { VERSION } from './version';

/** True when the demo client still has the demo password (so it is safe to print and pre-fill). */
async function demoClientPresent(db: Knex): Promise<boolean> {
  const c = await findClientByUsername(db, DEMO_CREDENTIALS.username);
  return !!c && c.enabled && (await verifyPassword(DEMO_CREDENTIALS.password, c.passwordHash));
}

/**
 * Process entry (CONTRACT §8): migrate, load the demo dataset into an empty database, serve on
 * HOST:PORT, print the URLs and demo credentials, and shut down gracefully on SIGINT/SIGTERM.
 * Resolves with the listening server.
 */
export async function serve(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
): Promise<http.Server> {
  const db = createKnex(config.databaseUrl);
  const applied = await migrateLatest(db);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if ((await countTenants(db)) === 0) {
    const summary = await importDataset(db, demoDataset(), systemClock);
    const tenant = (await findTenantByName(db, DEMO_CREDENTIALS.tenant))!;
    const sharing = createServices(db, config, systemClock, logger).sharing;
    const familyGroupId = await seedDemoFamily(sharing, tenant.id);
    logger.info({ summary, familyGroupId }, 'demo dataset loaded into the empty database');
  }
  const demo = await demoClientPresent(db);
  const app = await createApp({
    config,
    db,
    logger,
    sandboxAuthorization: demo ? demoAuthorization() : undefined,
  });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
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

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    server.close(async () => {
      await app.close();
      await db.destroy();
      process.exit(0);
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return server;
}

/** Runs `serve` with the environment's configuration; a bad configuration exits with status 2. */
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
  await serve(config);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
