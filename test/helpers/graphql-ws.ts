import { Client, FormattedExecutionResult, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TestApp } from './app';
import { waitFor as poll } from './wait';

/** A subscription's results as they arrive, and its end. */
export interface Received {
  results: FormattedExecutionResult[];
  ended: Promise<void>;
  /** Resolves with the results once there are `n` of them (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<FormattedExecutionResult[]>;
  stop(): void;
}

/** Starts `query` on `client` and collects what arrives. */
export function subscribe(client: Client, query: string, variables: Record<string, unknown>): Received {
  // graphql-ws types the sink by the operation's result shape; these tests read it as plain data.
  const results: FormattedExecutionResult[] = [];
  let stop!: () => void;
  const ended = new Promise<void>((resolve, reject) => {
    stop = client.subscribe(
      { query, variables },
      {
        next: (r) => {
          results.push(r as FormattedExecutionResult);
        },
        error: (e) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))),
        complete: () => resolve(),
      },
    );
  });
  ended.catch(() => undefined);
  return {
    results,
    ended,
    stop,
    waitFor: async (n, ms = 10_000) => {
      await poll(() => results.length >= n, {
        what: `${n} subscription results`,
        timeoutMs: ms,
        detail: () => `got ${JSON.stringify(results)}`,
      });
      return results;
    },
  };
}

/**
 * A graphql-ws client of `app` with `authorization` (and the other `params`, e.g. `tenant`) in its
 * connection_init payload; every close is pushed to `closes`.
 */
export function wsClient(
  app: TestApp,
  authorization: string | undefined,
  closes: { code: number; reason: string }[] = [],
  params: Record<string, string> = {},
): Client {
  return createClient({
    url: `${app.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: authorization ? { authorization, ...params } : params,
    retryAttempts: 0,
    lazy: true,
    on: {
      closed: (e) => {
        const ev = e as { code: number; reason: string };
        closes.push({ code: ev.code, reason: ev.reason });
      },
    },
  });
}

/** Waits until `app`'s feed counts `n` open subscriptions (so later commits are delivered). */
export async function subscribed(app: TestApp, n: number): Promise<void> {
  await poll(() => app.app.services.events.subscriptionCount >= n, {
    what: `${n} subscriptions registered with the feed`,
    detail: () => `${app.app.services.events.subscriptionCount} registered`,
  });
}

/** Waits until no subscription is open on any of `apps` (they end with their connections). */
export async function noSubscriptions(...apps: TestApp[]): Promise<void> {
  await poll(() => apps.every((a) => a.app.services.events.subscriptionCount === 0), {
    what: 'the subscriptions to end with their connections',
    timeoutMs: 5000,
  });
}
