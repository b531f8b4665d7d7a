import { Knex } from 'knex';
import type { SubscriberPrincipal } from '../../auth/subscriber';
import { lockingTransaction } from '../../db/knex';
import {
  Connection,
  ConnectionArgs,
  connectionFromArray,
  connectionFromRows,
  integerCursor,
  pageRequest,
} from '../../graphql/relay';
import { Clock } from '../../lib/clock';
import { CdrRecorder } from '../cdrs/cdr.recorder';
import { IdempotencyService } from '../idempotency/idempotency.service';
import {
  findPlanDefinitionsByIds,
  findSubscriberPlans,
  listPricedPlanDefinitions,
  listSubscriberPlans,
} from '../sharing/plan.store';
import { PlanDefinitionRow, SubscriberPlanRow } from '../sharing/sharing.rows';
import { Subscriber, findSubscriber } from '../subscribers/subscriber.store';
import { TokenService } from '../tokens/token.service';
import { findTenantPortal } from './portal.store';
import { PurchaseResult, checkPurchaseInput, purchaseIn } from './purchase';

/** Branding of one tenant's portal (dataset `tenants[].portal`, defaults otherwise). */
export interface PortalBranding {
  displayName: string;
  /** `#rrggbb`. */
  primaryColor: string;
  logoUrl: string | null;
}

/** A subscriber token that is active now (not expired, not revoked, known). */
export interface PortalSession {
  tenantId: number;
  msisdn: string;
  branding: PortalBranding;
}

/** The primary colour of a tenant's portal without one of its own. */
export const DEFAULT_PRIMARY_COLOR = '#0b5cad';

/** The cursors of `PortalSubscriber.offers` (plan definition ids) and `.plans` (plan ids). */
const OFFER_CURSOR = integerCursor('offer');
const PLAN_CURSOR = integerCursor('portalPlan');

/**
 * The MSISDN as the portal shows it: every digit but the last four replaced by "•"
 * (`353871234567` → `••••••••4567`).
 */
export function maskMsisdn(msisdn: string): string {
  const keep = Math.min(4, msisdn.length);
  return '•'.repeat(msisdn.length - keep) + msisdn.slice(msisdn.length - keep);
}

/**
 * The captive portal's rules (docs/portal.md): a raw access token as the subscriber's credential
 * (a portal link opened, or `authorization: Bearer` on /graphql), the tenant's branding, what the
 * subscriber reads (itself, the offers of its tenant, its plans) and the purchase of an offer,
 * exactly once per idempotency key.
 */
export class PortalService {
  private readonly cdrs: CdrRecorder;

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly tokens: TokenService,
    private readonly idempotency: IdempotencyService,
    private readonly limits: { maxPlansPerSubscriber: number },
  ) {
    this.cdrs = new CdrRecorder(clock);
  }

  /**
   * Validates a raw access token as a portal link (records the token CDR "validate", actor
   * `portal`; "expire" the first time it is found expired). null when expired, revoked or unknown.
   * @throws a database error or DatabaseTimeoutError (the page's 503).
   */
  async open(rawToken: string): Promise<PortalSession | null> {
    const token = await this.tokens.activeToken(rawToken, true);
    if (!token) return null;
    return { tenantId: token.tenantId, msisdn: token.msisdn, branding: await this.branding(token.tenantId) };
  }

  /**
   * The subscriber principal of an `authorization: Bearer` token on /graphql, or null when the
   * token is expired, revoked or unknown (no validate CDR: see TokenService.activeToken).
   */
  async principal(rawToken: string): Promise<SubscriberPrincipal | null> {
    const token = await this.tokens.activeToken(rawToken, false);
    return token && { tenantId: token.tenantId, msisdn: token.msisdn, tokenHash: token.tokenHash };
  }

  /**
   * The name of tenant `tenantId` (the value a `tenant` header must carry, CONTRACT §2), or
   * undefined when the tenant no longer exists.
   */
  async tenantName(tenantId: number): Promise<string | undefined> {
    return (await findTenantPortal(this.db, tenantId))?.name;
  }

  /** A tenant's portal branding: its stored fields, else the tenant's name and {@link DEFAULT_PRIMARY_COLOR}. */
  async branding(tenantId: number): Promise<PortalBranding> {
    const t = await findTenantPortal(this.db, tenantId);
    return {
      displayName: t?.displayName ?? t?.name ?? '',
      primaryColor: t?.primaryColor ?? DEFAULT_PRIMARY_COLOR,
      logoUrl: t?.logoUrl ?? null,
    };
  }

  /** The principal's subscriber account, or undefined when it no longer exists. */
  subscriber(p: SubscriberPrincipal): Promise<Subscriber | undefined> {
    return findSubscriber(this.db, p.tenantId, p.msisdn);
  }

  /**
   * One page of the offers of the principal's tenant (plan definitions with a price, by id).
   * @throws BadUserInputError for paging arguments out of bounds or a foreign cursor.
   */
  async offers(p: SubscriberPrincipal, paging: ConnectionArgs): Promise<Connection<PlanDefinitionRow>> {
    const page = pageRequest(paging, OFFER_CURSOR);
    const rows = await listPricedPlanDefinitions(this.db, p.tenantId, page);
    return connectionFromRows(rows, page, OFFER_CURSOR, (d) => d.id);
  }

  /**
   * One page of the principal's plans, newest first (plan id descending; a bounded list, at most
   * MAX_PLANS_PER_SUBSCRIBER).
   * @throws BadUserInputError for paging arguments out of bounds or a foreign cursor.
   */
  async plans(p: SubscriberPrincipal, paging: ConnectionArgs): Promise<Connection<SubscriberPlanRow>> {
    const page = pageRequest(paging, PLAN_CURSOR);
    const all = (await listSubscriberPlans(this.db, p.tenantId, p.msisdn)).reverse();
    return connectionFromArray(
      all,
      page,
      PLAN_CURSOR,
      (r) => r.id,
      (a, b) => b - a,
    );
  }

  /**
   * Buys an offer for the principal's subscriber (docs/portal.md "Buying"): one transaction
   * charges the price and provisions the plan ({@link purchaseIn}), at most once per
   * `idempotencyKey` of the subscriber: a repeat with the same input answers the first result and
   * charges nothing (24 h); a refused purchase is not remembered (a retry is judged again).
   * @throws BadUserInputError (malformed input); PurchaseRefusal (a rule refused it, nothing
   *   changed); UnprocessableError (the key was used for another input) or ConflictError (the
   *   key's first request still runs), as the IdempotencyService raises them.
   */
  purchase(
    p: SubscriberPrincipal,
    input: { planDefinitionId: number; idempotencyKey: string },
  ): Promise<PurchaseResult> {
    checkPurchaseInput(input);
    // Keys are the subscriber's own: another subscriber's same key is another purchase.
    const key = `portal:${p.msisdn}:${input.idempotencyKey}`;
    return this.idempotency.run(
      {
        tenantId: p.tenantId,
        key,
        operation: 'purchasePlan',
        request: { msisdn: p.msisdn, planDefinitionId: input.planDefinitionId },
      },
      (scope) => lockingTransaction(this.db, scope),
      (trx) =>
        purchaseIn(trx, this.clock, this.cdrs, {
          tenantId: p.tenantId,
          msisdn: p.msisdn,
          planDefinitionId: input.planDefinitionId,
          operationId: key,
          maxPlansPerSubscriber: this.limits.maxPlansPerSubscriber,
        }),
    );
  }

  /**
   * ADMIN `node(id:)` / `nodes(ids:)`: the plan definitions of the tenant with these ids that are
   * on offer (have a price), in one statement, in any order; the others left out.
   */
  async offersByIds(tenantId: number, planDefinitionIds: readonly number[]): Promise<PlanDefinitionRow[]> {
    return (await findPlanDefinitionsByIds(this.db, tenantId, planDefinitionIds)).filter(
      (d) => d.price !== null,
    );
  }

  /**
   * ADMIN `node(id:)` / `nodes(ids:)`: the subscriber plans of the tenant with these plan ids, in
   * one statement, in any order; ids naming none left out.
   */
  plansByIds(tenantId: number, planIds: readonly number[]): Promise<SubscriberPlanRow[]> {
    return findSubscriberPlans(this.db, tenantId, planIds);
  }
}
