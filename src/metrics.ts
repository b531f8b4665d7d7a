import { Knex } from 'knex';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { onDatabaseEvents } from './db/events';
import { TRANSACTION_CONFLICTS } from './db/failure';
import { domainErrorOf } from './errors';
import { fastPathCounts } from './graphql/fast-path';
import { Clock, systemClock } from './lib/clock';
import { withTimeout } from './lib/wait';
import { outboxBacklog } from './modules/events/outbox.store';
import { RelayMetrics } from './modules/events/relay';
import { Services } from './services';

/**
 * The gateway's Prometheus metrics, all in one Registry served at `/metrics`.
 * Business outcomes are counted where they are decided (the services, see
 * {@link instrumentServices}), so REST rows and GraphQL operations both count; transport facts
 * (duration, shedding, SQS answers) in the HTTP layer. docs/operations.md "Metrics" lists
 * them with example PromQL.
 */
export interface GatewayMetrics {
  registry: Registry;
  /** `http_request_duration_seconds{method,route,status}`: every request, probes included. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** `http_requests_shed_total`: 503s because MAX_INFLIGHT requests were in flight. */
  shed: Counter;
  /** `http_requests_deadline_exceeded_total`: requests still unanswered past deadline + grace. */
  deadlineExceeded: Counter;
  /** `rating_requests_total{operation,returnCode}`: `operation` is `rating` or `refund`. */
  ratings: Counter<'operation' | 'returnCode'>;
  /** `tokens_issued_total`. */
  tokensIssued: Counter;
  /** `token_introspections_total{active}`: `active` is `true` or `false`. */
  introspections: Counter<'active'>;
  /** `sqs_requests_total{route,status,errorCode}`: every answer of a quota-sharing REST path. */
  sqsRequests: Counter<'route' | 'status' | 'errorCode'>;
  /** `donation_recipients_total{errorCode}`: one per recipient result of each donation answered. */
  donationRecipients: Counter<'errorCode'>;
  /** `login_attempts_throttled_total`: attempts refused with 429 for too many failed logins. */
  loginsThrottled: Counter;
  /**
   * The outbox relay's counters: `outbox_events_published_total`,
   * `outbox_publish_failures_total`, `outbox_relay_active`. The backlog gauges
   * (`outbox_unpublished_events`, `outbox_oldest_unpublished_age_seconds`) are read from the
   * database at scrape time, with or without a relay.
   */
  outbox: RelayMetrics;
  /**
   * `renewal_events_total{outcome}`: plan-renewal deliveries handled by the consumer
   * (src/modules/events/renewal-consumer.ts), `outcome` one of {@link RENEWAL_OUTCOMES}.
   */
  renewalEvents: Counter<'outcome'>;
}

/** Longest a scrape waits for the outbox backlog query, ms; past it the gauges keep their last values. */
export const BACKLOG_SCRAPE_TIMEOUT_MS = 500;

/**
 * What the renewal consumer did with a delivery: `renewed`, `duplicate` (event id already
 * applied; acknowledged), `dead_lettered`, `requeued` (infrastructure failure; retried later).
 */
export const RENEWAL_OUTCOMES = ['renewed', 'duplicate', 'dead_lettered', 'requeued'] as const;

/** One of {@link RENEWAL_OUTCOMES}. */
export type RenewalDeliveryOutcome = (typeof RENEWAL_OUTCOMES)[number];

/** The part of knex's tarn pool the gauges read (absent before the first query and after destroy). */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * Transactions rerun after a write conflict, by reason (`retryingTransaction`, src/db/retry.ts).
 * Process-wide, like {@link groupCommitSize}: every knex instance of the process adds to it (from
 * the moment this module is loaded, see {@link onDatabaseEvents} below), and every registry
 * {@link createMetrics} builds shows it. Registered in no registry by itself.
 */
export const transactionRetries = new Counter({
  name: 'db_transaction_retries_total',
  help: 'Transactions rolled back by a deadlock or a Galera certification conflict and rerun as a whole, by reason',
  labelNames: ['reason'] as const,
  registers: [],
});
for (const reason of TRANSACTION_CONFLICTS) transactionRetries.inc({ reason }, 0);

/**
 * Transactions per COMMIT on the embedded database (SQLite group commit, src/db/group-commit.ts).
 * Process-wide: every SQLite knex instance of the process adds to it. Registered in no registry
 * by itself.
 */
export const groupCommitSize = new Histogram({
  name: 'db_group_commit_transactions',
  help: 'Write transactions made durable by one SQLite COMMIT (group commit; 1 when nothing else was waiting)',
  buckets: [1, 2, 4, 8, 16, 32, 64],
  registers: [],
});

// The database layer holds no metric: it reports events, counted here once per process.
onDatabaseEvents({
  transactionRetried: (reason) => transactionRetries.inc({ reason }),
  groupCommitted: (transactions) => groupCommitSize.observe(transactions),
});

/**
 * Builds the registry: Node's default metrics, gauges of `db`'s connection pool and of the outbox
 * backlog read at scrape time, the HTTP, business and relay metrics, and the process-wide
 * database metrics ({@link transactionRetries}, {@link groupCommitSize}).
 */
export function createMetrics(db: Knex, clock: Clock = systemClock): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  registerPoolGauges(db, registers);
  registerFastPathCounter(registers);
  registerBacklogGauges(db, clock, registers);
  const metrics: GatewayMetrics = {
    registry,
    ...httpMetrics(registers),
    ...businessMetrics(registers),
    renewalEvents: new Counter({
      name: 'renewal_events_total',
      help: 'Plan-renewal deliveries by outcome: renewed, duplicate (already applied), dead_lettered, requeued (infrastructure failure)',
      labelNames: ['outcome'],
      registers,
    }),
    outbox: relayMetrics(registers),
  };
  for (const outcome of RENEWAL_OUTCOMES) metrics.renewalEvents.inc({ outcome }, 0);
  // Both outcomes exist from the start, so rate() and ratios work before the first of each.
  for (const active of ['true', 'false']) metrics.introspections.inc({ active }, 0);
  registry.registerMetric(transactionRetries);
  registry.registerMetric(groupCommitSize);
  return metrics;
}

/**
 * `graphql_fast_path_total{outcome}`: `/graphql` requests the fast path answered (`answered`) or
 * handed to Apollo, by reason (`fallback_*`, src/graphql/fast-path.ts), since the process
 * started; read at scrape time from {@link fastPathCounts}.
 */
function registerFastPathCounter(registers: Registry[]): void {
  new Counter({
    name: 'graphql_fast_path_total',
    help: '/graphql requests by fast-path outcome: answered by the fast path, or fallback_<reason> (answered by Apollo)',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset();
      for (const [outcome, n] of Object.entries(fastPathCounts())) this.inc({ outcome }, n);
    },
  });
}

/**
 * Gauges of `db`'s connection pool, read at scrape time (`db_pool_connections{state="used"|"free"}`,
 * `db_pool_pending_acquires`; 0 while the pool does not exist).
 */
function registerPoolGauges(db: Knex, registers: Registry[]): void {
  const pool = () => (db.client as { pool?: TarnPool }).pool;
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections of this instance by state: used (lent to a query or transaction) or free (idle)',
    labelNames: ['state'],
    registers,
    collect() {
      const p = pool();
      this.set({ state: 'used' }, p?.numUsed() ?? 0);
      this.set({ state: 'free' }, p?.numFree() ?? 0);
    },
  });
  new Gauge({
    name: 'db_pool_pending_acquires',
    help: 'Requests waiting for a database connection (bounded by DB_ACQUIRE_TIMEOUT_MS)',
    registers,
    collect() {
      this.set(pool()?.numPendingAcquires() ?? 0);
    },
  });
}

/**
 * The outbox backlog gauges (`outbox_unpublished_events`, `outbox_oldest_unpublished_age_seconds`),
 * both from one query of `db` per scrape (the first gauge collected runs it), bounded by
 * {@link BACKLOG_SCRAPE_TIMEOUT_MS}; on a failure or timeout the last values stand.
 */
function registerBacklogGauges(db: Knex, clock: Clock, registers: Registry[]): void {
  let backlog: Promise<void> | undefined;
  const last = { count: 0, ageSeconds: 0 };
  const readBacklog = () => {
    backlog ??= (async () => {
      try {
        const b = await withTimeout(outboxBacklog(db), BACKLOG_SCRAPE_TIMEOUT_MS, 'backlog query');
        last.count = b.count;
        last.ageSeconds =
          b.oldestCreatedAtMs === null ? 0 : Math.max(0, (clock.nowMs() - b.oldestCreatedAtMs) / 1000);
      } catch {
        // The database is down or slow: the last values stand (db_pool_* tell why).
      } finally {
        setImmediate(() => (backlog = undefined));
      }
    })();
    return backlog;
  };
  new Gauge({
    name: 'outbox_unpublished_events',
    help: 'Outbox events committed but not yet confirmed by the broker (the relay backlog; grows while the broker is down or AMQP_URL is unset)',
    registers,
    async collect() {
      await readBacklog();
      this.set(last.count);
    },
  });
  new Gauge({
    name: 'outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest unpublished outbox event, seconds (0 when none waits)',
    registers,
    async collect() {
      await readBacklog();
      this.set(last.ageSeconds);
    },
  });
}

/** The transport's metrics: request durations, shedding, the deadline guard. */
function httpMetrics(
  registers: Registry[],
): Pick<GatewayMetrics, 'httpDuration' | 'shed' | 'deadlineExceeded'> {
  return {
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    shed: new Counter({
      name: 'http_requests_shed_total',
      help: 'Requests refused with 503 because MAX_INFLIGHT requests were in flight',
      registers,
    }),
    deadlineExceeded: new Counter({
      name: 'http_requests_deadline_exceeded_total',
      help: 'Requests answered by the deadline guard because they were still unanswered a grace period past their deadline',
      registers,
    }),
  };
}

/** The business outcomes: ratings, tokens, introspections, quota sharing, throttled logins. */
function businessMetrics(
  registers: Registry[],
): Pick<
  GatewayMetrics,
  'ratings' | 'tokensIssued' | 'introspections' | 'sqsRequests' | 'donationRecipients' | 'loginsThrottled'
> {
  return {
    ratings: new Counter({
      name: 'rating_requests_total',
      help: 'Rating and refund outcomes by returnCode (CONTRACT §4), REST and GraphQL',
      labelNames: ['operation', 'returnCode'],
      registers,
    }),
    tokensIssued: new Counter({
      name: 'tokens_issued_total',
      help: 'Access tokens issued (POST /token, /oauth2/token, GraphQL issueToken)',
      registers,
    }),
    introspections: new Counter({
      name: 'token_introspections_total',
      help: 'Token introspections by outcome (active true or false)',
      labelNames: ['active'],
      registers,
    }),
    sqsRequests: new Counter({
      name: 'sqs_requests_total',
      help: 'Quota-sharing REST answers by route pattern, HTTP status and errorCode (none when the body has none)',
      labelNames: ['route', 'status', 'errorCode'],
      registers,
    }),
    donationRecipients: new Counter({
      name: 'donation_recipients_total',
      help: 'Donation recipient results by errorCode (0 granted); a refused donation counts once with its errorCode',
      labelNames: ['errorCode'],
      registers,
    }),
    loginsThrottled: new Counter({
      name: 'login_attempts_throttled_total',
      help: 'Login attempts refused with 429 for too many failed logins (AUTH_MAX_FAILURES*)',
      registers,
    }),
  };
}

/** The outbox relay's counters and lease gauge. */
function relayMetrics(registers: Registry[]): RelayMetrics {
  return {
    published: new Counter({
      name: 'outbox_events_published_total',
      help: 'Outbox events this instance published and the broker confirmed',
      registers,
    }),
    failures: new Counter({
      name: 'outbox_publish_failures_total',
      help: 'Relay rounds that failed (broker unreachable, nack, confirm timeout, or database error); each is retried after a backoff',
      registers,
    }),
    active: new Gauge({
      name: 'outbox_relay_active',
      help: '1 while this instance holds the relay lease and publishes the outbox, else 0',
      registers,
    }),
  };
}

/**
 * Counts the business outcomes of `services` as they are decided, by wrapping the deciding
 * methods of these instances: ratings and refunds (returnCode; those refused at the transport too), tokens issued, introspections
 * (active), donations (each recipient's errorCode; a refusal thrown with an errorCode counts
 * once). A donation answered again for a repeated Idempotency-Key counts again.
 */
export function instrumentServices(services: Services, m: GatewayMetrics): void {
  const { charging, tokens, sharing } = services;
  new Gauge({
    name: 'graphql_subscriptions_open',
    help: 'GraphQL subscriptions open on this instance (each polls the outbox while any is open)',
    registers: [m.registry],
    collect() {
      this.set(services.events.subscriptionCount);
    },
  });
  const rate = charging.processRating.bind(charging);
  charging.processRating = async (...args) => {
    const out = await rate(...args);
    m.ratings.inc({ operation: 'rating', returnCode: out.returnCode });
    return out;
  };
  const refund = charging.processRefund.bind(charging);
  charging.processRefund = async (...args) => {
    const out = await refund(...args);
    m.ratings.inc({ operation: 'refund', returnCode: out.returnCode });
    return out;
  };
  // A request refused at the transport (REST edge) is a rating or refund outcome too.
  const refuse = charging.recordTransportRefusal.bind(charging);
  charging.recordTransportRefusal = async (...args) => {
    const out = await refuse(...args);
    m.ratings.inc({ operation: args[1], returnCode: out.returnCode });
    return out;
  };
  const issue = tokens.issue.bind(tokens);
  tokens.issue = async (...args) => {
    const out = await issue(...args);
    m.tokensIssued.inc();
    return out;
  };
  const introspect = tokens.introspect.bind(tokens);
  // A `then` rather than an async wrapper: one promise less on the busiest path.
  tokens.introspect = (...args) =>
    introspect(...args).then((out) => {
      m.introspections.inc({ active: out.active ? 'true' : 'false' });
      return out;
    });
  const donate = sharing.donate.bind(sharing);
  sharing.donate = async (...args) => {
    try {
      const out = await donate(...args);
      for (const r of out.recipients) m.donationRecipients.inc({ errorCode: r.errorCode });
      return out;
    } catch (err) {
      const code = domainErrorOf(err)?.extensions.errorCode;
      if (typeof code === 'number') m.donationRecipients.inc({ errorCode: code });
      throw err;
    }
  };
}
