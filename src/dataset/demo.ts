import { Permission } from '../auth/permissions';
import { Dataset } from './dataset.schema';
import { roamingZones } from './roaming-zones';

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
 * catalogue, and roaming zones
 * of real networks (every ITU zone for `demo`, the UK networks for `globex`).
 */
export function demoDataset(): Dataset {
  const demoZones = roamingZones('demo');
  const globexZones = roamingZones('globex', (mcc) => mcc === '234' || mcc === '235');
  return {
    ratings: [
      // An exact entry, a wildcard fallback for the same provider and application, and a transport rating.
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
    ],
    locationInfoTypes: [...demoZones.locationInfoTypes, ...globexZones.locationInfoTypes],
    locations: [...demoZones.locations, ...globexZones.locations],
    tenants: [{ name: DEMO_CREDENTIALS.tenant }, { name: OTHER_TENANT_CREDENTIALS.tenant }],
    clients: [
      { ...DEMO_CREDENTIALS, permissions: Object.values(Permission) },
      {
        ...OTHER_TENANT_CREDENTIALS,
        permissions: [
          Permission.TOKEN_ISSUE,
          Permission.TOKEN_INTROSPECT,
          Permission.PCRF_LOCATION_READ_PERMISSION,
        ],
      },
    ],
    subscribers: [
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
      {
        tenant: 'globex',
        msisdn: '447700900123',
        status: 'active',
        paymentType: 'prepaid',
        balance: '20.00',
        currency: 'GBP',
      },
    ],
  };
}

/** `Basic …` header value of the demo client. */
export function demoAuthorization(): string {
  return `Basic ${Buffer.from(`${DEMO_CREDENTIALS.username}:${DEMO_CREDENTIALS.password}`).toString('base64')}`;
}
