import { Knex } from 'knex';
import { preparedRows } from '../db/prepared';
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

/**
 * The SQL of {@link findClientWithLoginFailures} for `keys` failure counters (0 to 2): one text
 * per count, so each is prepared once. Bindings: the counter keys, then the username.
 */
const clientWithFailuresSql = (keys: number): string => {
  const f = Array.from({ length: keys }, (_, i) => i);
  return (
    'select c.id, c.tenant_id, t.name as tenant_name, c.username, c.password_hash, c.permissions, c.enabled' +
    f.map((i) => `, f${i}.failures as f${i}_failures, f${i}.window_start as f${i}_window_start`).join('') +
    ' from api_clients c inner join tenants t on t.id = c.tenant_id' +
    f.map((i) => ` left join login_failures f${i} on f${i}.throttle_key = ?`).join('') +
    ' where c.username = ? limit 1'
  );
};

/** Loads a client with its tenant name by username. */
export async function findClientByUsername(db: Knex, username: string): Promise<ApiClient | undefined> {
  const row = await clientQuery(db, username).first();
  return row ? toClient(row as ClientRow) : undefined;
}

/**
 * Loads a client as {@link findClientByUsername} does and, in the same statement, the
 * failed-login counters of `failureKeys` that exist (one round trip on the authentication hot
 * path, a prepared statement on both dialects, see {@link preparedRows}; `db` may be a
 * transaction). `failures` is empty when the client does not exist.
 * @throws the driver's error, DatabaseTimeoutError or DeadlineExceededError (see src/db/bound-client.ts).
 */
export async function findClientWithLoginFailures(
  db: Knex,
  username: string,
  failureKeys: string[],
): Promise<{ client: ApiClient | undefined; failures: LoginFailureCount[] }> {
  const rows = await preparedRows<ClientRow & Record<string, unknown>>(
    db,
    clientWithFailuresSql(failureKeys.length),
    [...failureKeys, username],
  );
  const row = rows[0];
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

/** An API client's stored password hash and the demo-password fingerprint recorded for it (start-up checks). */
export interface ClientHash {
  username: string;
  passwordHash: string;
  /** `api_clients.demo_password_check`: see recordDemoPasswordChecks; null when never recorded. */
  demoPasswordCheck: string | null;
}

/** Every API client's username and stored password hash (start-up checks; no secrets leave the process). */
export async function listClientHashes(db: Knex): Promise<ClientHash[]> {
  const rows = await db('api_clients').select('username', 'password_hash', 'demo_password_check');
  return rows.map((r: { username: string; password_hash: string; demo_password_check: string | null }) => ({
    username: r.username,
    passwordHash: r.password_hash,
    demoPasswordCheck: r.demo_password_check ?? null,
  }));
}

/**
 * Records, per client, the fingerprint of a password hash found not to be a demo password
 * (`check`, 64 hex characters; see demoPasswordCheckOf in src/server.ts). Only where the stored
 * hash is still `passwordHash`: a password changed meanwhile stays unrecorded, so the next start
 * checks it.
 */
export async function recordDemoPasswordChecks(
  db: Knex,
  checks: Array<{ username: string; passwordHash: string; check: string }>,
): Promise<void> {
  for (const c of checks)
    await db('api_clients')
      .where({ username: c.username, password_hash: c.passwordHash })
      .update({ demo_password_check: c.check });
}
