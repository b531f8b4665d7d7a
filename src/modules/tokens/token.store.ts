import { Knex } from 'knex';

/** A stored token: only the SHA-256 of the token is kept (CONTRACT §3). */
export interface TokenRow {
  tenantId: number;
  tokenHash: string;
  msisdn: string;
  apiClientId: number;
  issuedAt: number;
  expiresAtSeconds: number;
  revokedAt: number | null;
}

/** Inserts a token row. */
export async function insertToken(db: Knex, row: Omit<TokenRow, 'revokedAt'>): Promise<void> {
  await db('tokens').insert({
    tenant_id: row.tenantId,
    token_hash: row.tokenHash,
    msisdn: row.msisdn,
    api_client_id: row.apiClientId,
    issued_at: row.issuedAt,
    expires_at_seconds: row.expiresAtSeconds,
  });
}

/** Finds a token of the tenant by hash (revoked or expired ones included). */
export async function findToken(
  db: Knex,
  tenantId: number,
  tokenHash: string,
): Promise<TokenRow | undefined> {
  const r = await db('tokens')
    .select(
      'tenant_id',
      'token_hash',
      'msisdn',
      'api_client_id',
      'issued_at',
      'expires_at_seconds',
      'revoked_at',
    )
    .where({ token_hash: tokenHash, tenant_id: tenantId })
    .first();
  if (!r) return undefined;
  return {
    tenantId: Number(r.tenant_id),
    tokenHash: r.token_hash,
    msisdn: r.msisdn,
    apiClientId: Number(r.api_client_id),
    issuedAt: Number(r.issued_at),
    expiresAtSeconds: Number(r.expires_at_seconds),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}

/** Marks a tenant's token revoked; returns whether a live row changed. */
export async function revokeToken(
  db: Knex,
  tenantId: number,
  tokenHash: string,
  nowMs: number,
): Promise<boolean> {
  const n = await db('tokens')
    .where({ token_hash: tokenHash, tenant_id: tenantId })
    .whereNull('revoked_at')
    .update({ revoked_at: nowMs });
  return n > 0;
}
