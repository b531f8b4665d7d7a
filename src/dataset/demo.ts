import { Permission } from '../auth/permissions';
import type { SharingService } from '../modules/sharing/sharing.service';
import { Dataset } from './dataset.schema';
import type { roamingZones as RoamingZones } from './roaming-zones';

/** Demo API client credentials printed by `npm start` and pre-filled in Apollo Sandbox. */
export const DEMO_CREDENTIALS = { tenant: 'demo', username: 'demo', password: 'demo-password' } as const;

/** A second tenant's client, to show that tenants never see each other's data. */
export const OTHER_TENANT_CREDENTIALS = {
  tenant: 'globex',
  username: 'globex-portal',
  password: 'globex-password',
} as const;

/**
 * The demo dataset loaded into an empty database on first start (CONTRACT §8–9): two tenants,
 * an all-permission demo client, prepaid, postpaid and inactive subscribers, a small rating
 * catalogue, plan definitions and subscriber plans (the demo family, {@link DEMO_FAMILY}), and roaming zones
 * of real networks (every ITU zone for `demo`, the UK networks for `globex`).
 */
export function demoDataset(): Dataset {
  // Loaded here, not at start-up: the network list is only read to build the demo dataset.
  const roamingZones: typeof RoamingZones = (require('./roaming-zones') as typeof import('./roaming-zones'))
    .roamingZones;
  const demoZones = roamingZones('demo');
  const globexZones = roamingZones('globex', (mcc) => mcc === '234' || mcc === '235');
  // Sections in the order the dataset has always been printed in.
  return {
    ratings: demoRatings(),
    planDefinitions: demoPlanDefinitions(),
    subscriberPlans: demoSubscriberPlans(),
    locationInfoTypes: [...demoZones.locationInfoTypes, ...globexZones.locationInfoTypes],
    locations: [...demoZones.locations, ...globexZones.locations],
    tenants: demoTenants(),
    clients: demoClients(),
    subscribers: demoSubscribers(),
  };
}

type Rows<K extends keyof Dataset> = NonNullable<Dataset[K]>;

/**
 * The demo tenant's rating catalogue: an exact entry, a wildcard fallback for the same provider
 * and application, and a transport rating.
 */
function demoRatings(): Rows<'ratings'> {
  return [
    {
      tenant: 'demo',
      providerId: '6010',
      applicationId: '50000029',
      serviceId: '30000020',
      originId: '9',
      bundleId: '1234',
      kind: 'content',
      retailPrice: '0.10',
      tax: '0.02',
    },
    {
      tenant: 'demo',
      providerId: '6010',
      applicationId: '50000029',
      kind: 'content',
      retailPrice: '0.50',
      tax: '0.10',
    },
    {
      tenant: 'demo',
      providerId: '6010',
      applicationId: '50000029',
      kind: 'transport',
      retailPrice: '0.05',
      tax: '0.01',
    },
  ];
}

/**
 * The demo tenant's plan definitions: the family data plan (volume, shared by share), a voice
 * plan that cannot be shared, and a one-off data gift shared by amount. The voice plan (7.50) and
 * the data gift (4.99) have a price, so the captive portal offers them (docs/portal.md).
 */
function demoPlanDefinitions(): Rows<'planDefinitions'> {
  return [
    {
      tenant: 'demo',
      name: DEMO_FAMILY.planDefinition,
      unitMeteringType: 'volume',
      unitAmount: 6_000_000_000,
      shareable: true,
      recurring: true,
      shareQuotaType: 'share',
      maxRecipients: 5,
    },
    {
      tenant: 'demo',
      name: 'Voice 500',
      unitMeteringType: 'time',
      unitAmount: 30_000,
      shareable: false,
      recurring: true,
      shareQuotaType: 'amount',
      maxRecipients: 5,
      price: '7.50',
    },
    {
      tenant: 'demo',
      name: 'Data 1GB gift',
      unitMeteringType: 'volume',
      unitAmount: 1_000_000_000,
      shareable: true,
      recurring: false,
      shareQuotaType: 'amount',
      maxRecipients: 3,
      price: '4.99',
    },
  ];
}

/**
 * The demo subscribers' plans: the family plan 456 and the data gift 458 of the family owner,
 * and the voice plan 457 of the postpaid subscriber.
 */
function demoSubscriberPlans(): Rows<'subscriberPlans'> {
  return [
    {
      tenant: 'demo',
      id: DEMO_FAMILY.planId,
      msisdn: DEMO_FAMILY.ownerId,
      planDefinition: DEMO_FAMILY.planDefinition,
      remaining: 6_000_000_000,
    },
    { tenant: 'demo', id: 457, msisdn: '353871234568', planDefinition: 'Voice 500', remaining: 30_000 },
    {
      tenant: 'demo',
      id: 458,
      msisdn: DEMO_FAMILY.ownerId,
      planDefinition: 'Data 1GB gift',
      remaining: 1_000_000_000,
    },
  ];
}

/** The two tenants: `demo` and `globex`. */
function demoTenants(): Rows<'tenants'> {
  return [{ name: DEMO_CREDENTIALS.tenant }, { name: OTHER_TENANT_CREDENTIALS.tenant }];
}

/** The API clients: `demo` holds every permission; `globex-portal` only tokens and locations. */
function demoClients(): Rows<'clients'> {
  return [
    { ...DEMO_CREDENTIALS, permissions: Object.values(Permission) },
    {
      ...OTHER_TENANT_CREDENTIALS,
      permissions: [
        Permission.TOKEN_ISSUE,
        Permission.TOKEN_INTROSPECT,
        Permission.PCRF_LOCATION_READ_PERMISSION,
      ],
    },
  ];
}

/**
 * The subscribers: prepaid, postpaid and inactive ones and the demo family's children in `demo`
 * (EUR), and one prepaid subscriber in `globex` (GBP).
 */
function demoSubscribers(): Rows<'subscribers'> {
  return [
    {
      tenant: 'demo',
      msisdn: '353871234567',
      status: 'active',
      paymentType: 'prepaid',
      balance: '10.00',
      currency: 'EUR',
    },
    {
      tenant: 'demo',
      msisdn: '353871234568',
      status: 'active',
      paymentType: 'postpaid',
      balance: '0.00',
      currency: 'EUR',
    },
    {
      tenant: 'demo',
      msisdn: '353871234569',
      status: 'inactive',
      paymentType: 'prepaid',
      balance: '5.00',
      currency: 'EUR',
    },
    // The demo family: children of 353871234567 who receive shares of the family plan.
    ...DEMO_FAMILY.members.map((m) => ({
      tenant: 'demo',
      msisdn: m.msisdn,
      status: 'active' as const,
      paymentType: 'prepaid' as const,
      balance: '1.00',
      currency: 'EUR',
    })),
    {
      tenant: 'globex',
      msisdn: '447700900123',
      status: 'active',
      paymentType: 'prepaid',
      balance: '20.00',
      currency: 'GBP',
    },
  ];
}

/**
 * The demo family (docs/quota-sharing.md): owner 353871234567 holds plan 456 ("Family Data 6GB",
 * 6 GB a period, shareable by share, recurring); the group "Family" gives each child 25 %
 * (2500000), and a recurring donation shares it again at every renewal.
 */
export const DEMO_FAMILY = {
  ownerId: '353871234567',
  planId: 456,
  planDefinition: 'Family Data 6GB',
  groupName: 'Family',
  members: [
    { msisdn: '353871234570', quota: 2_500_000 },
    { msisdn: '353871234571', quota: 2_500_000 },
  ],
} as const;

/**
 * Creates the demo family's group, members and recurring donation through the sharing service
 * (groups are not part of the dataset format); run once, after the demo import.
 */
export async function seedDemoFamily(sharing: SharingService, tenantId: number): Promise<string> {
  const caller = { tenantId };
  const group = await sharing.createGroup(caller, {
    ownerId: DEMO_FAMILY.ownerId,
    name: DEMO_FAMILY.groupName,
    quotaType: 'share',
  });
  for (const m of DEMO_FAMILY.members)
    await sharing.addMember(caller, group.id, { memberId: m.msisdn, quota: m.quota });
  await sharing.createRecurring(caller, {
    donorId: DEMO_FAMILY.ownerId,
    donorPlanId: DEMO_FAMILY.planId,
    groupId: group.id,
  });
  return group.id;
}

/** `Basic …` header value of the demo client. */
export function demoAuthorization(): string {
  return `Basic ${Buffer.from(`${DEMO_CREDENTIALS.username}:${DEMO_CREDENTIALS.password}`).toString('base64')}`;
}
