import type { Context } from 'koa';
import { GatewayMetrics } from '../metrics';
import { RunWithDeadline } from './deadline';
import { AnswerUnavailable } from './unavailable';

/** Admits a request and serves it with `run` under its deadline, or sheds it. */
export type Admit = (ctx: Context, run: (ctx: Context) => Promise<unknown>) => Promise<void>;

/**
 * Load shedding (docs/contract.md §8): at most `maxInflight` admitted requests at once; one more
 * is answered at once as `unavailable` says for its path (reason `overloaded`: 503 with
 * `retry-after`, see src/http/unavailable.ts) and counted in `http_requests_shed_total`. An admitted request
 * runs under its deadline (`withDeadline`, see src/http/deadline.ts) and counts until it is
 * answered. Shedding and deadline are one call per request (a hot path). The probes are mounted
 * before admission and never shed.
 */
export function admission(
  maxInflight: number,
  metrics: GatewayMetrics,
  withDeadline: RunWithDeadline,
  unavailable: AnswerUnavailable,
): Admit {
  let admitted = 0;
  const settled = (): void => {
    admitted--;
  };
  return (ctx, run) => {
    if (admitted >= maxInflight) {
      metrics.shed.inc();
      unavailable(ctx, 'overloaded');
      return Promise.resolve();
    }
    admitted++;
    return withDeadline(ctx, run, settled);
  };
}
