import { Permission } from '../../src/auth/permissions';
import { Dataset } from '../../src/dataset/dataset.schema';

/** Test clients: username → password and permissions. */
export const CLIENTS = {
  portal: {
    tenant: 'acme',
    password: 'portal-password',
    permissions: [Permission.TOKEN_ISSUE, Permission.TOKEN_INTROSPECT],
  },
  issuer: { tenant: 'acme', password: 'issuer-password', permissions: [Permission.TOKEN_ISSUE] },
  nogrant: { tenant: 'acme', password: 'nogrant-password', permissions: [] as Permission[] },
  admin: { tenant: 'acme', password: 'admin-password', permissions: Object.values(Permission) },
  rival: {
    tenant: 'rival',
    password: 'rival-password',
    permissions: [Permission.TOKEN_ISSUE, Permission.TOKEN_INTROSPECT],
  },
  disabled: {
    tenant: 'acme',
    password: 'disabled-password',
    permissions: [Permission.TOKEN_ISSUE],
    enabled: false,
  },
  pcrf: {
    tenant: 'acme',
    password: 'pcrf-password',
    permissions: [Permission.PCRF_LOCATION_READ_PERMISSION],
  },
  'rival-admin': {
    tenant: 'rival',
    password: 'rival-admin-password',
    permissions: Object.values(Permission),
  },
} as const;

export type ClientName = keyof typeof CLIENTS;

/** The base dataset every e2e test starts from. */
export function baseDataset(): Dataset {
  return {
    tenants: [{ name: 'acme' }, { name: 'rival' }],
    clients: Object.entries(CLIENTS).map(([username, c]) => ({
      tenant: c.tenant,
      username,
      password: c.password,
      permissions: [...c.permissions],
      enabled: 'enabled' in c ? c.enabled : true,
    })),
    subscribers: [
      {
        tenant: 'acme',
        msisdn: '353871234567',
        status: 'active',
        paymentType: 'prepaid',
        balance: '10.00',
        currency: 'EUR',
      },
    ],
  };
}

/** `Basic …` value for a test client (or arbitrary credentials). */
export function basic(username: string, password?: string): string {
  const pw = password ?? (CLIENTS as Record<string, { password: string }>)[username]?.password ?? 'x';
  return `Basic ${Buffer.from(`${username}:${pw}`).toString('base64')}`;
}
