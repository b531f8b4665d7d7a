import { Permission } from '../auth/permissions';

/** Dataset sections this version imports (CONTRACT §9). */
export const SUPPORTED_SECTIONS = ['tenants', 'clients', 'subscribers'] as const;

/** Sections of the dataset format that later versions import; rejected here with a clear message. */
export const PENDING_SECTIONS = [
  'ratings',
  'planDefinitions',
  'subscriberPlans',
  'locationInfoTypes',
  'locations',
] as const;

const tenantName = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' };

/**
 * JSON Schema (draft-07) of the dataset document (CONTRACT §9) for the supported sections.
 * Money is a decimal string with at most 6 fractional digits.
 */
export const DATASET_SCHEMA = {
  $id: 'https://subscriber-gateway/dataset.schema.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    tenants: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { name: tenantName },
      },
    },
    clients: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant', 'username', 'password', 'permissions'],
        properties: {
          tenant: tenantName,
          username: { type: 'string', pattern: '^[^:\\s]{1,128}$' },
          password: { type: 'string', minLength: 8, maxLength: 1024 },
          permissions: { type: 'array', uniqueItems: true, items: { enum: Object.values(Permission) } },
          enabled: { type: 'boolean' },
        },
      },
    },
    subscribers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant', 'msisdn', 'status', 'paymentType', 'currency'],
        properties: {
          tenant: tenantName,
          msisdn: { type: 'string', pattern: '^\\+?[0-9]{5,15}$' },
          status: { enum: ['active', 'inactive', 'suspended'] },
          paymentType: { enum: ['prepaid', 'postpaid'] },
          balance: { type: 'string', pattern: '^-?[0-9]{1,16}(\\.[0-9]{1,6})?$' },
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        },
      },
    },
  },
} as const;

/** A dataset document after validation. */
export interface Dataset {
  tenants?: { name: string }[];
  clients?: {
    tenant: string;
    username: string;
    password: string;
    permissions: Permission[];
    enabled?: boolean;
  }[];
  subscribers?: {
    tenant: string;
    msisdn: string;
    status: 'active' | 'inactive' | 'suspended';
    paymentType: 'prepaid' | 'postpaid';
    balance?: string;
    currency: string;
  }[];
}
