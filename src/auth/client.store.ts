import { Knex } from 'knex';
import { preparedRows } from '../db/prepared';
import { LoginFailureCount } from './login-failure.store';
import { Permission, parsePermissions } from './permissions';
import { TrustedDocumentList, trustedDocumentsOf } from './trusted-document.store';

/** An API client as the auth layer sees it (CONTRACT §2). */
export interface ApiClient {
  id: number;
  tenantId: number;
  tenantName: string;
  username: string;
  passwordHash: string;
  permissions: ReadonlySet<Permission>;
  enabled: boolean;
  /**
   * The client's rate limit (docs/operations.md "Rate limits"): its own, else its tenant's
   * default; null: not limited.
   */
  rateLimit: ClientRateLimit | null;
  /**
   * Trusted documents only (docs/graphql.md "Trusted documents"): `/graphql` refuses any
   * document that is not in {@link trustedDocuments}.
   */
  trustedDocumentsOnly: boolean;
  /** The client's trusted documents (its persisted operations), null when it has none. */
  trustedDocuments: TrustedDocumentList | null;
}

/** A rate limit as the dataset states it: `burst` requests at once, refilled at `requestsPerSecond`. */
export interface ClientRateLimit {
  /** Long-run requests per second, > 0 (fractions allowed: 0.5 is one request every 2 s). */
  requestsPerSecond: number;
  /** Requests that may be sent at once, a whole number ≥ 1. */
  burst: number;
}

interface ClientRow {
  id: number;
  tenant_id: number;
  tenant_name: string;
  username: string;
  password_hash: string;
  permissions: string;
  enabled: number | boolean;
  rate_limit_rps: number | null;
  rate_limit_burst: number | null;
  tenant_rate_limit_rps: number | null;
  tenant_rate_limit_burst: number | null;
  trusted_documents_only: number | boolean;
  trusted_documents_version: string | null;
}

/** The client's own limit when it has one, else its tenant's; null when neither is set. */
function rateLimitOf(r: ClientRow): ClientRateLimit | null {
  if (r.rate_limit_rps != null && r.rate_limit_burst != null)
    return { requestsPerSecond: Number(r.rate_limit_rps), burst: Number(r.rate_limit_burst) };
  if (r.tenant_rate_limit_rps != null && r.tenant_rate_limit_burst != null)
    return { requestsPerSecond: Number(r.tenant_rate_limit_rps), burst: Number(r.tenant_rate_limit_burst) };
  return null;
}

/** The client of row `r`, with its trusted documents read through `db` (see trustedDocumentsOf). */
async function toClient(db: Knex, r: ClientRow): Promise<ApiClient> {
  const id = Number(r.id);
  return {
    id,
    tenantId: Number(r.tenant_id),
    tenantName: r.tenant_name,
    username: r.username,
    passwordHash: r.password_hash,
    permissions: new Set(parsePermissions(r.permissions)),
    enabled: Boolean(r.enabled),
    rateLimit: rateLimitOf(r),
    trustedDocumentsOnly: Boolean(r.trusted_documents_only),
    trustedDocuments: await trustedDocumentsOf(db, id, r.trusted_documents_version ?? null),
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
  'c.rate_limit_rps',
  'c.rate_limit_burst',
  't.rate_limit_rps as tenant_rate_limit_rps',
  't.rate_limit_burst as tenant_rate_limit_burst',
  'c.trusted_documents_only',
  'c.trusted_documents_version',
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
    ', c.rate_limit_rps, c.rate_limit_burst' +
    ', t.rate_limit_rps as tenant_rate_limit_rps, t.rate_limit_burst as tenant_rate_limit_burst' +
    ', c.trusted_documents_only, c.trusted_documents_version' +
    f.map((i) => `, f${i}.failures as f${i}_failures, f${i}.window_start as f${i}_window_start`).join('') +
    ' from api_clients c inner join tenants t on t.id = c.tenant_id' +
    f.map((i) => ` left join login_failures f${i} on f${i}.throttle_key = ?`).join('') +
    ' where c.username = ? limit 1'
  );
};

/** Loads a client with its tenant name and trusted documents by username. */
export async function findClientByUsername(db: Knex, username: string): Promise<ApiClient | undefined> {
  const row = await clientQuery(db, username).first();
  return row ? toClient(db, row as ClientRow) : undefined;
}

/**
 * Loads a client as {@link findClientByUsername} does and, in the same statement, the
 * failed-login counters of `failureKeys` that exist (one round trip on the authentication hot
 * path, hand-written SQL prepared on SQLite, see {@link preparedRows}; `db` may be a
 * transaction; a second statement reads the client's trusted documents only when their version
 * changed since this process last read them). `failures` is empty when the client does not exist.
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
  return { client: await toClient(db, row), failures };
}

/** Fields written when creating or updating a client. */
export interface ClientWrite {
  tenantId: number;
  username: string;
  passwordHash: string;
  permissions: Permission[];
  enabled: boolean;
  /** Trusted documents only (see {@link ApiClient.trustedDocumentsOnly}); absent: false for a new client, kept on update. */
  trustedDocumentsOnly?: boolean;
}

/** Inserts a client; returns its id. */
export async function insertClient(db: Knex, c: ClientWrite, nowMs: number): Promise<number> {
  const [id] = await db('api_clients').insert({
    tenant_id: c.tenantId,
    username: c.username,
    password_hash: c.passwordHash,
    permissions: [...c.permissions].sort().join(','),
    enabled: c.enabled,
    trusted_documents_only: c.trustedDocumentsOnly ?? false,
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
      ...(c.trustedDocumentsOnly === undefined ? {} : { trusted_documents_only: c.trustedDocumentsOnly }),
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

/**
 * Sets (or, with null, removes) the own rate limit of the client `username`, or of the tenant
 * named `tenant` (the default of its clients without one). `db` may be a transaction.
 * @returns true when the stored limit changed; false when it was already so or the row does not exist.
 */
export async function setRateLimit(
  db: Knex,
  of: { username: string } | { tenant: string },
  limit: ClientRateLimit | null,
): Promise<boolean> {
  const [table, where] =
    'username' in of ? ['api_clients', { username: of.username }] : ['tenants', { name: of.tenant }];
  const row = (await db(table).select('rate_limit_rps', 'rate_limit_burst').where(where).first()) as
    { rate_limit_rps: number | null; rate_limit_burst: number | null } | undefined;
  if (!row) return false;
  const rps = limit?.requestsPerSecond ?? null;
  const burst = limit?.burst ?? null;
  const storedRps = row.rate_limit_rps === null ? null : Number(row.rate_limit_rps);
  const storedBurst = row.rate_limit_burst === null ? null : Number(row.rate_limit_burst);
  if (storedRps === rps && storedBurst === burst) return false;
  await db(table).where(where).update({ rate_limit_rps: rps, rate_limit_burst: burst });
  return true;
}
