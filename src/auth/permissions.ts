import { registerEnumType } from 'type-graphql';

/** The permissions an API client can hold (CONTRACT §2). */
export enum Permission {
  TOKEN_ISSUE = 'TOKEN_ISSUE',
  TOKEN_INTROSPECT = 'TOKEN_INTROSPECT',
  CRS_RATING = 'CRS_RATING',
  CRS_REFUND = 'CRS_REFUND',
  SQS_DONATION_PERMISSION = 'SQS_DONATION_PERMISSION',
  SQS_GROUP_CREATE_UPDATE_PERMISSION = 'SQS_GROUP_CREATE_UPDATE_PERMISSION',
  SQS_GROUP_READ_PERMISSION = 'SQS_GROUP_READ_PERMISSION',
  SQS_GROUP_DELETE_PERMISSION = 'SQS_GROUP_DELETE_PERMISSION',
  SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION = 'SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION',
  SQS_RECURRING_DONATION_READ_PERMISSION = 'SQS_RECURRING_DONATION_READ_PERMISSION',
  SQS_RECURRING_DONATION_DELETE_PERMISSION = 'SQS_RECURRING_DONATION_DELETE_PERMISSION',
  PCRF_LOCATION_READ_PERMISSION = 'PCRF_LOCATION_READ_PERMISSION',
  ADMIN = 'ADMIN',
}

registerEnumType(Permission, { name: 'Permission', description: 'A permission an API client can hold.' });

const ALL = new Set<string>(Object.values(Permission));

/** True when `value` names a permission. */
export function isPermission(value: string): value is Permission {
  return ALL.has(value);
}

/**
 * Parses a comma-separated permission list (stored column or CLI flag). Blank items are
 * ignored. @throws Error naming the first unknown permission.
 */
export function parsePermissions(list: string): Permission[] {
  const out = new Set<Permission>();
  for (const raw of list.split(',')) {
    const p = raw.trim();
    if (!p) continue;
    if (!isPermission(p)) throw new Error(`unknown permission: ${p}`);
    out.add(p);
  }
  return [...out].sort();
}
