import { Knex } from 'knex';
import { Config } from './config';
import { Clock } from './lib/clock';
import { Logger } from './logger';
import { CdrService } from './modules/cdrs/cdr.service';
import { ChargingService } from './modules/charging/charging.service';
import { EventFeed } from './modules/events/event-feed';
import { IdempotencyService } from './modules/idempotency/idempotency.service';
import { LocationService } from './modules/locations/location.service';
import { PortalService } from './modules/portal/portal.service';
import { SharingService } from './modules/sharing/sharing.service';
import { TokenService } from './modules/tokens/token.service';

/** Every service of the gateway; built once per app and shared by all requests. */
export interface Services {
  tokens: TokenService;
  locations: LocationService;
  charging: ChargingService;
  sharing: SharingService;
  /** Reading CDRs; they are written by the services above. */
  cdrs: CdrService;
  /** The outbox feed of the GraphQL subscriptions (polls only while a subscription is open). */
  events: EventFeed;
  /** The captive portal: subscriber tokens as credentials, offers and purchases (docs/portal.md). */
  portal: PortalService;
}

/** Wires the services to a database, the configuration and a clock. */
export function createServices(db: Knex, config: Config, clock: Clock, logger: Logger): Services {
  const tokens = new TokenService(db, clock, config.tokenTtlSeconds, logger);
  return {
    tokens,
    locations: new LocationService(db),
    charging: new ChargingService(db, clock, config.ratingTimeoutMs, logger),
    sharing: new SharingService(
      db,
      clock,
      { maxGroupSize: config.maxGroupSize, maxPlansPerSubscriber: config.maxPlansPerSubscriber },
      logger,
      new IdempotencyService(db, clock, logger),
    ),
    cdrs: new CdrService(db),
    events: new EventFeed(db, config.subscriptionPollMs, logger),
    portal: new PortalService(db, clock, tokens, new IdempotencyService(db, clock, logger), {
      maxPlansPerSubscriber: config.maxPlansPerSubscriber,
    }),
  };
}
