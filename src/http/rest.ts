import Router from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import type Koa from 'koa';
import { Logger } from '../logger';
import { ExactRows, exactRowDispatch, restRouter } from '../rest/router';
import { ROUTES } from '../rest/routes';
import { Authenticate, MakeContext } from './request-context';

/** The legacy REST layer, built from the route table. */
export interface RestMount {
  /**
   * Rows without path parameters, and the routes of the routers given to {@link restMount}
   * (`/graphql`), served by exact method and path from the entry middleware.
   */
  rows: ExactRows;
  /** Every row (those with path parameters are served from here), then 405 for a known path. */
  routes: Router;
}

/**
 * Builds the REST layer over the route table (src/rest/routes.ts): every row's operation is
 * parsed and validated against `schema` here, at start-up. `exact`: other routers whose routes
 * without path parameters are served from the entry middleware with the rows (`/graphql`'s:
 * nothing in front of it serves its path, so it skips the probe and explorer routers' scans).
 * @throws Error naming a row whose operation does not validate, or a method and path served twice.
 */
export function restMount(
  schema: GraphQLSchema,
  makeContext: MakeContext,
  logger: Logger,
  authenticate: Authenticate,
  exact: Router[] = [],
): RestMount {
  const routes = restRouter(ROUTES, schema, makeContext, logger, authenticate);
  return { rows: exactRowDispatch(routes, ...exact), routes };
}

/**
 * Mounts the rows with path parameters and the 405 answers of the REST layer; they run after the
 * not-found part (src/http/not-found.ts), which rewrites what they leave unanswered.
 */
export function mountRest(koa: Koa, rest: RestMount): void {
  koa.use(rest.routes.routes());
  koa.use(rest.routes.allowedMethods());
}

/**
 * Mounts `routers` (probe and explorer paths), after checking that none of their paths and
 * methods is an exact REST row's, which would shadow it (rows are served before the routers).
 * @throws Error naming the path (a start-up failure).
 */
export function mountBesideRows(koa: Koa, rows: ExactRows, ...routers: Router[]): void {
  for (const router of routers)
    for (const layer of router.stack)
      for (const method of layer.methods)
        if (typeof layer.path === 'string' && rows.rowOf(method, layer.path))
          throw new Error(`${method} ${layer.path} is both a REST row and a probe or explorer path`);
  for (const router of routers) koa.use(router.routes());
}
