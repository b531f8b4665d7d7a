import { Knex } from 'knex';
import { LoginFailureCount } from './login-failure.store';
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

const CLIENT_COLUMNS = [
  'c.id',
  'c.tenant_id',
  't.name as tenant_name',
  'c.username',
  'c.password_hash',
  'c.permissions',
  'c.enabled',
];

const clientQuery = (db: Knex, username: string) =>
  db('api_clients as c')
    .join('tenants as t', 't.id', 'c.tenant_id')
    .select(CLIENT_COLUMNS)
    .where('c.username', username);

/** Loads a client with its tenant name by username. */
export async function findClientByUsername(db: Knex, username: string): Promise<ApiClient | undefined> {
  const row = await clientQuery(db, username).first();
  return row ? toClient(row as ClientRow) : undefined;
}

/**
 * Loads a client as {@link findClientByUsername} does and, in the same statement, the
 * failed-login counters of `failureKeys` that exist (one round trip on the authentication hot
 * path). `failures` is empty when the client does not exist.
 */
export async function findClientWithLoginFailures(
  db: Knex,
  username: string,
  failureKeys: string[],
): Promise<{ client: ApiClient | undefined; failures: LoginFailureCount[] }> {
  const q = clientQuery(db, username);
  failureKeys.forEach((key, i) =>
    q
      .leftJoin(`login_failures as f${i}`, (j) => j.onVal(`f${i}.throttle_key`, '=', key))
      .select({ [`f${i}_failures`]: `f${i}.failures`, [`f${i}_window_start`]: `f${i}.window_start` }),
  );
  const row = (await q.first()) as (ClientRow & Record<string, unknown>) | undefined;
  if (!row) return { client: undefined, failures: [] };
  const failures = failureKeys.flatMap((key, i) =>
    row[`f${i}_failures`] === null || row[`f${i}_failures`] === undefined
      ? []
      : [{ key, failures: Number(row[`f${i}_failures`]), windowStart: Number(row[`f${i}_window_start`]) }],
  );
  return { client: toClient(row), failures };
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
