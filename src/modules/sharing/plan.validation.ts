import { BadUserInputError } from '../../errors';
import { Money } from '../../lib/money';
import { MSISDN_RULE, normalizeMsisdn } from '../../lib/msisdn';
import { PlanDefinitionRow, ShareQuotaType } from './sharing.rows';

/** ADMIN input of a plan definition (CONTRACT §5, §9). */
export interface PlanDefinitionInput {
  name: string;
  unitMeteringType: string;
  unitAmount: number;
  shareable: boolean;
  recurring: boolean;
  shareQuotaType: string;
  maxRecipients?: number | null;
  /**
   * The portal price (a decimal string or Money in the subscriber's currency, not negative);
   * absent or null: the definition is not on offer (docs/portal.md).
   */
  price?: string | Money | null;
}

/** ADMIN input of a subscriber plan (CONTRACT §9): `remaining` in the plan's unit. */
export interface SubscriberPlanInput {
  id: number;
  msisdn: string;
  planDefinition: string;
  remaining: number;
}

/** Largest plan id: fits the INT UNSIGNED key on MySQL and a GraphQL Int. */
export const MAX_PLAN_ID = 2_147_483_647;

/**
 * Checks a plan definition; returns it with the default `maxRecipients` (5) and its `price` as
 * Money (null when absent).
 * @throws BadUserInputError naming each offending field.
 */
export function validatePlanDefinition(
  input: PlanDefinitionInput,
): Omit<PlanDefinitionRow, 'id' | 'tenantId'> {
  const fields: { field: string; description: string }[] = [];
  if (!input.name.trim() || input.name.length > 128)
    fields.push({ field: 'name', description: '1-128 characters' });
  if (!['volume', 'time', 'credit'].includes(input.unitMeteringType))
    fields.push({ field: 'unitMeteringType', description: 'volume, time or credit' });
  if (!Number.isSafeInteger(input.unitAmount) || input.unitAmount < 0)
    fields.push({ field: 'unitAmount', description: 'non-negative integer (bytes, seconds or minor units)' });
  if (!['amount', 'share'].includes(input.shareQuotaType))
    fields.push({ field: 'shareQuotaType', description: 'amount or share' });
  const maxRecipients = input.maxRecipients ?? 5;
  if (!Number.isInteger(maxRecipients) || maxRecipients < 1 || maxRecipients > 1000)
    fields.push({ field: 'maxRecipients', description: '1-1000' });
  const price = input.price ?? null;
  const priceOk = price === null || (price instanceof Money ? !price.isNegative() : Money.isValid(price));
  if (!priceOk)
    fields.push({ field: 'price', description: 'non-negative decimal, at most 6 fractional digits' });
  if (fields.length) throw new BadUserInputError(`invalid plan definition: ${fields[0].field}`, fields);
  return {
    name: input.name,
    unitMeteringType: input.unitMeteringType as PlanDefinitionRow['unitMeteringType'],
    unitAmount: input.unitAmount,
    shareable: input.shareable,
    recurring: input.recurring,
    shareQuotaType: input.shareQuotaType as ShareQuotaType,
    maxRecipients,
    price: price === null ? null : price instanceof Money ? price : Money.parse(price as string),
  };
}

/**
 * Checks a subscriber plan; returns it with the canonical MSISDN.
 * @throws BadUserInputError naming each offending field.
 */
export function validateSubscriberPlan(input: SubscriberPlanInput): SubscriberPlanInput {
  const fields: { field: string; description: string }[] = [];
  if (!Number.isSafeInteger(input.id) || input.id < 1 || input.id > MAX_PLAN_ID)
    fields.push({ field: 'id', description: `integer 1-${MAX_PLAN_ID}` });
  const msisdn = normalizeMsisdn(input.msisdn);
  if (!msisdn) fields.push({ field: 'msisdn', description: MSISDN_RULE });
  if (!Number.isSafeInteger(input.remaining) || input.remaining < 0)
    fields.push({ field: 'remaining', description: 'non-negative integer in the plan unit' });
  if (fields.length) throw new BadUserInputError(`invalid subscriber plan: ${fields[0].field}`, fields);
  return { ...input, msisdn: msisdn! };
}
