import { Knex } from 'knex';

/** A tenant's portal branding as stored: each field null for its default (docs/portal.md). */
export interface TenantPortalRow {
  tenantId: number;
  /** The tenant's name (the default display name). */
  name: string;
  displayName: string | null;
  /** `#rrggbb`. */
  primaryColor: string | null;
  logoUrl: string | null;
}

/** A tenant's name and stored portal branding, or undefined when there is no such tenant. */
export async function findTenantPortal(db: Knex, tenantId: number): Promise<TenantPortalRow | undefined> {
  const r = (await db('tenants')
    .select('id', 'name', 'portal_display_name', 'portal_primary_color', 'portal_logo_url')
    .where({ id: tenantId })
    .first()) as Record<string, unknown> | undefined;
  if (!r) return undefined;
  return {
    tenantId: Number(r.id),
    name: String(r.name),
    displayName: (r.portal_display_name as string | null) ?? null,
    primaryColor: (r.portal_primary_color as string | null) ?? null,
    logoUrl: (r.portal_logo_url as string | null) ?? null,
  };
}

/**
 * Stores a tenant's portal branding (the dataset's `tenants[].portal`); null fields (or a null
 * `portal`) go back to the defaults. Returns whether anything changed.
 */
export async function setTenantPortal(
  db: Knex,
  tenantId: number,
  portal: Pick<TenantPortalRow, 'displayName' | 'primaryColor' | 'logoUrl'> | null,
): Promise<boolean> {
  const now = await findTenantPortal(db, tenantId);
  const next = {
    displayName: portal?.displayName ?? null,
    primaryColor: portal?.primaryColor ?? null,
    logoUrl: portal?.logoUrl ?? null,
  };
  if (
    now &&
    now.displayName === next.displayName &&
    now.primaryColor === next.primaryColor &&
    now.logoUrl === next.logoUrl
  )
    return false;
  await db('tenants').where({ id: tenantId }).update({
    portal_display_name: next.displayName,
    portal_primary_color: next.primaryColor,
    portal_logo_url: next.logoUrl,
  });
  return true;
}
