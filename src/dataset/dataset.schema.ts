import { MONEY_PATTERN, SIGNED_MONEY_PATTERN } from '../lib/money';
import type { ClientRateLimit } from '../auth/client.store';
import { Permission } from '../auth/permissions';
import { PersistedQueryManifest, TRUSTED_DOCUMENTS_SCHEMA } from './trusted-documents';

/** Dataset sections this version imports (CONTRACT §9). */
export const SUPPORTED_SECTIONS = [
  'tenants',
  'clients',
  'subscribers',
  'ratings',
  'planDefinitions',
  'subscriberPlans',
  'locationInfoTypes',
  'locations',
] as const;

const tenantName = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' };
// Names and descriptions: no control characters (they cannot travel in XML 1.0).
const entityName = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f\\u007f]+$' };
const description = { type: ['string', 'null'], maxLength: 1024, pattern: '^[^\\u0000-\\u001f\\u007f]*$' };
const int32 = { type: 'integer', minimum: -2147483647, maximum: 2147483647 };
// Quotas in bytes, seconds or minor units: exact integers up to 2^53-1.
const safeCount = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
// A per-client rate limit (docs/operations.md "Rate limits"); null removes a stored one.
const rateLimit = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['requestsPerSecond', 'burst'],
  properties: {
    requestsPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
    burst: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
};

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
        properties: {
          name: tenantName,
          // The captive portal's branding (docs/portal.md); absent fields take the defaults.
          portal: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: {
              displayName: { ...entityName, maxLength: 128 },
              primaryColor: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
              logoUrl: { type: 'string', maxLength: 1024, pattern: '^(https://|/)[^\\s"\'<>]+$' },
            },
          },
          rateLimit,
        },
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
          rateLimit,
          // Trusted documents (docs/graphql.md): an Apollo persisted query manifest, inline.
          trustedDocuments: TRUSTED_DOCUMENTS_SCHEMA,
          trustedDocumentsOnly: { type: 'boolean' },
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
          balance: { type: 'string', pattern: SIGNED_MONEY_PATTERN },
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        },
      },
    },
    ratings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant', 'providerId', 'applicationId', 'kind', 'retailPrice', 'tax'],
        properties: {
          tenant: tenantName,
          providerId: { type: 'string', pattern: '^[^\\s*]{1,64}$' },
          applicationId: { type: 'string', pattern: '^[^\\s*]{1,64}$' },
          serviceId: { type: 'string', pattern: '^[^\\s]{1,64}$' },
          originId: { type: 'string', pattern: '^[^\\s]{1,64}$' },
          bundleId: { type: 'string', pattern: '^[^\\s]{1,64}$' },
          kind: { enum: ['content', 'transport'] },
          retailPrice: { type: 'string', pattern: MONEY_PATTERN },
          tax: { type: 'string', pattern: MONEY_PATTERN },
        },
      },
    },
    planDefinitions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'tenant',
          'name',
          'unitMeteringType',
          'unitAmount',
          'shareable',
          'recurring',
          'shareQuotaType',
        ],
        properties: {
          tenant: tenantName,
          name: { ...entityName, maxLength: 128 },
          unitMeteringType: { enum: ['volume', 'time', 'credit'] },
          unitAmount: safeCount,
          shareable: { type: 'boolean' },
          recurring: { type: 'boolean' },
          shareQuotaType: { enum: ['amount', 'share'] },
          maxRecipients: { type: 'integer', minimum: 1, maximum: 1000 },
          // The captive-portal price in the subscriber's currency; absent: not on offer.
          price: { type: 'string', pattern: MONEY_PATTERN },
        },
      },
    },
    subscriberPlans: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant', 'id', 'msisdn', 'planDefinition', 'remaining'],
        properties: {
          tenant: tenantName,
          id: { type: 'integer', minimum: 1, maximum: 2147483647 },
          msisdn: { type: 'string', pattern: '^\\+?[0-9]{5,15}$' },
          planDefinition: { ...entityName, maxLength: 128 },
          remaining: safeCount,
        },
      },
    },
    locationInfoTypes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant', 'name', 'value'],
        properties: {
          tenant: tenantName,
          id: { type: 'integer', minimum: 1, maximum: 2147483647 },
          name: { ...entityName, maxLength: 64 },
          value: int32,
        },
      },
    },
    locations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant', 'name'],
        properties: {
          tenant: tenantName,
          name: entityName,
          description,
          rates: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'locationRate'],
              properties: { name: entityName, description, locationRate: int32 },
            },
          },
          infos: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'type', 'value'],
              properties: {
                name: entityName,
                description,
                type: { ...entityName, maxLength: 64 },
                value: entityName,
              },
            },
          },
          profiles: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name'],
              properties: { name: entityName, description },
            },
          },
        },
      },
    },
  },
} as const;

/**
 * The dataset format's JSON Schema as published in schema/dataset.schema.json (docs/cli.md "Dataset files"): {@link DATASET_SCHEMA} with its draft named, 2-space JSON and a final newline.
 */
export function printDatasetSchema(): string {
  return (
    JSON.stringify(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        title: 'Subscriber Gateway dataset',
        description:
          'One JSON document for `import`, the demo data and test fixtures (docs/contract.md "Dataset format"). Every section optional; rows are upserted by their natural key. Money as decimal strings; volumes in bytes, times in seconds, credit quotas in minor units.',
        ...DATASET_SCHEMA,
      },
      null,
      2,
    ) + '\n'
  );
}

/** A dataset document after validation. */
export interface Dataset {
  tenants?: {
    name: string;
    /** Portal branding; absent leaves the stored branding, null resets it to the defaults. */
    portal?: { displayName?: string; primaryColor?: string; logoUrl?: string } | null;
    /** Default rate limit of the tenant's clients that have none; absent leaves the stored one, null removes it. */
    rateLimit?: ClientRateLimit | null;
  }[];
  clients?: {
    tenant: string;
    username: string;
    password: string;
    permissions: Permission[];
    enabled?: boolean;
    /** The client's own rate limit; absent leaves the stored one, null removes it (the tenant's default applies). */
    rateLimit?: ClientRateLimit | null;
    /**
     * The client's trusted documents (docs/graphql.md "Trusted documents"); absent leaves the
     * stored list, null removes it, a manifest replaces it.
     */
    trustedDocuments?: PersistedQueryManifest | null;
    /** Refuse every `/graphql` document outside `trustedDocuments` (default false). */
    trustedDocumentsOnly?: boolean;
  }[];
  subscribers?: {
    tenant: string;
    msisdn: string;
    status: 'active' | 'inactive' | 'suspended';
    paymentType: 'prepaid' | 'postpaid';
    balance?: string;
    currency: string;
  }[];
  ratings?: {
    tenant: string;
    providerId: string;
    applicationId: string;
    serviceId?: string;
    originId?: string;
    bundleId?: string;
    kind: 'content' | 'transport';
    retailPrice: string;
    tax: string;
  }[];
  planDefinitions?: {
    tenant: string;
    name: string;
    unitMeteringType: 'volume' | 'time' | 'credit';
    unitAmount: number;
    shareable: boolean;
    recurring: boolean;
    shareQuotaType: 'amount' | 'share';
    maxRecipients?: number;
    price?: string;
  }[];
  subscriberPlans?: {
    tenant: string;
    id: number;
    msisdn: string;
    planDefinition: string;
    remaining: number;
  }[];
  locationInfoTypes?: { tenant: string; id?: number; name: string; value: number }[];
  locations?: {
    tenant: string;
    name: string;
    description?: string | null;
    rates?: { name: string; description?: string | null; locationRate: number }[];
    infos?: { name: string; description?: string | null; type: string; value: string }[];
    profiles?: { name: string; description?: string | null }[];
  }[];
}
