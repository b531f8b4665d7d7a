import { Dataset } from '../../src/dataset/dataset.schema';
import { baseDataset } from './fixtures';

/** Fixture: acme subscribers and a catalogue for provider 6010 / application 50000029. */
export function chargingDataset(): Dataset {
  const ds = baseDataset();
  ds.subscribers = [
    {
      tenant: 'acme',
      msisdn: '353871234567',
      status: 'active',
      paymentType: 'prepaid',
      balance: '10.00',
      currency: 'EUR',
    },
    {
      tenant: 'acme',
      msisdn: '353870000001',
      status: 'active',
      paymentType: 'prepaid',
      balance: '0.05',
      currency: 'EUR',
    },
    {
      tenant: 'acme',
      msisdn: '353870000002',
      status: 'active',
      paymentType: 'postpaid',
      balance: '0',
      currency: 'EUR',
    },
    {
      tenant: 'acme',
      msisdn: '353870000003',
      status: 'suspended',
      paymentType: 'prepaid',
      balance: '10',
      currency: 'EUR',
    },
    {
      tenant: 'rival',
      msisdn: '353879999999',
      status: 'active',
      paymentType: 'prepaid',
      balance: '10',
      currency: 'EUR',
    },
  ];
  ds.ratings = [
    {
      tenant: 'acme',
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
      tenant: 'acme',
      providerId: '6010',
      applicationId: '50000029',
      serviceId: '30000020',
      kind: 'content',
      retailPrice: '0.20',
      tax: '0.04',
    },
    {
      tenant: 'acme',
      providerId: '6010',
      applicationId: '50000029',
      kind: 'content',
      retailPrice: '0.50',
      tax: '0.10',
    },
    {
      tenant: 'acme',
      providerId: '6010',
      applicationId: '50000029',
      kind: 'transport',
      retailPrice: '0.05',
      tax: '0.01',
    },
    {
      tenant: 'acme',
      providerId: '7000',
      applicationId: 'transport-only',
      kind: 'transport',
      retailPrice: '0.05',
      tax: '0.01',
    },
    {
      tenant: 'acme',
      providerId: '8000',
      applicationId: 'content-only',
      serviceId: 'S1',
      kind: 'content',
      retailPrice: '1.00',
      tax: '0.00',
    },
  ];
  ds.clients!.push({
    tenant: 'acme',
    username: 'crs',
    password: 'crs-password',
    permissions: ['CRS_RATING', 'CRS_REFUND'] as never,
  });
  return ds;
}

let seq = 0;
/** A valid rating body; `patch` edits ratingParams (or the top level with `top`). */
export function ratingBody(
  patch: Record<string, unknown> = {},
  opts: {
    msisdn?: string;
    top?: Record<string, unknown>;
    lookup?: Record<string, unknown>;
    preRating?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  const msisdn = opts.msisdn ?? '353871234567';
  return {
    msisdn,
    ratingParams: {
      msisdn,
      operationId: `op-${process.pid}-${++seq}`,
      contentId: 'content-1',
      contentDescription: 'ringtone',
      lookup: {
        providerId: '6010',
        applicationId: '50000029',
        serviceId: '30000020',
        originId: '9',
        bundleId: '1234',
        ...opts.lookup,
      },
      ...(opts.preRating ? { preRating: opts.preRating } : {}),
      ...patch,
    },
    ...opts.top,
  };
}
