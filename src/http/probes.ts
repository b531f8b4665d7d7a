import Router from '@koa/router';
import { Knex } from 'knex';
import { ping } from '../db/knex';
import { runInRequestScope } from '../lib/request-scope';
import { withTimeout } from '../lib/wait';
import { Logger } from '../logger';
import { GatewayMetrics } from '../metrics';
import { OAUTH2_PATHS, authorizationServerMetadataHandler } from '../rest/oauth2';
import { OPENAPI_PATH, openApiHandler } from '../rest/openapi';
import { sendBody } from '../rest/respond';
import { VERSION } from '../version';

/** Longest `/readyz` waits for the database, ms. */
export const READY_TIMEOUT_MS = 900;

/** What the probe paths need. */
export interface ProbeDeps {
  db: Knex;
  logger: Logger;
  metrics: GatewayMetrics;
  /** PUBLIC_BASE_URL, for the OAuth metadata document. */
  publicBaseUrl: string | null;
}

/**
 * The system paths, mounted before admission so that they are never shed (docs/contract.md §8):
 * `GET /healthz` (200 with the version while the process runs), `GET /readyz` (200 when the
 * database answers a ping within {@link READY_TIMEOUT_MS}, else 503), `GET /metrics`
 * (Prometheus text), and the two public documents: the OAuth authorization server metadata and
 * the OpenAPI description.
 */
export function probeRouter({ db, logger, metrics, publicBaseUrl }: ProbeDeps): Router {
  const system = new Router();
  system.get('/healthz', (ctx) => sendBody(ctx, 200, { status: 'ok', version: VERSION }));
  system.get('/readyz', async (ctx) => {
    try {
      await runInRequestScope(READY_TIMEOUT_MS, () =>
        withTimeout(ping(db), READY_TIMEOUT_MS, 'readiness ping'),
      );
      sendBody(ctx, 200, { status: 'ready' });
    } catch (err) {
      logger.warn({ err }, 'readiness check failed');
      sendBody(ctx, 503, { status: 'unavailable' });
    }
  });
  system.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  system.get(OAUTH2_PATHS.metadata, authorizationServerMetadataHandler(publicBaseUrl));
  system.get(OPENAPI_PATH, openApiHandler());
  return system;
}
