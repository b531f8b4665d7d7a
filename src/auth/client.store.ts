import { Knex } from 'knex';
import { Permission, parsePermissions } from './permissions';

/** An API client as the auth layer sees it (CONTRACT §2). */
export interface ApiClient {
  id: number;
  tenantId: number;
  tenantName: string;
  username: string;
  passwordHash: string;
  permissions: ReadonlySet<Permission>;
  enabled: boolean;
}

interface ClientRow {
  id: number;
  tenant_id: number;
  tenant_name: string;
  username: string;
  password_hash: string;
  permissions: string;
  enabled: number | boolean;
}

function toClient(r: ClientRow): ApiClient {
  return {
    id: Number(r.id),
    tenantId: Number(r.tenant_id),
    tenantName: r.tenant_name,
    username: r.username,
    passwordHash: r.password_hash,
    permissions: new Set(parsePermissions(r.permissions)),
    enabled: Boolean(r.enabled),
  };
}

/** Loads a client with its tenant name by username. */
export async function findClientByUsername(db: Knex, username: string): Promise<ApiClient | undefined> {
  const row = await db('api_clients as c')
    .join('tenants as t', 't.id', 'c.tenant_id')
    .select(
      'c.id',
      'c.tenant_id',
      't.name as tenant_name',
      'c.username',
      'c.password_hash',
      'c.permissions',
      'c.enabled',
    )
    .where('c.username', username)
    .first();
  return row ? toClient(row as ClientRow) : undefined;
}

/** Fields written when creating or updating a client. */
export interface ClientWrite {
  tenantId: number;
  username: string;
  passwordHash: string;
  permissions: Permission[];
  enabled: boolean;
}

/** Inserts a client; returns its id. */
export async function insertClient(db: Knex, c: ClientWrite, nowMs: number): Promise<number> {
  const [id] = await db('api_clients').insert({
    tenant_id: c.tenantId,
    username: c.username,
    password_hash: c.passwordHash,
    permissions: [...c.permissions].sort().join(','),
    enabled: c.enabled,
    created_at: nowMs,
    updated_at: nowMs,
  });
  return Number(id);
}

/** Updates a client by id. */
export async function updateClient(db: Knex, id: number, c: ClientWrite, nowMs: number): Promise<void> {
  await db('api_clients')
    .where({ id })
    .update({
      tenant_id: c.tenantId,
      password_hash: c.passwordHash,
      permissions: [...c.permissions].sort().join(','),
      enabled: c.enabled,
      updated_at: nowMs,
    });
}

/** Every API client's username and stored password hash (start-up checks; no secrets leave the process). */
export async function listClientHashes(db: Knex): Promise<Array<{ username: string; passwordHash: string }>> {
  const rows = await db('api_clients').select('username', 'password_hash');
  return rows.map((r: { username: string; password_hash: string }) => ({
    username: r.username,
    passwordHash: r.password_hash,
  }));
}
