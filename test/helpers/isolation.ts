import { createHash } from 'node:crypto';
import {
  GraphQLArgument,
  GraphQLField,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLOutputType,
  GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
} from 'graphql';
import { Knex } from 'knex';
import { Permission } from '../../src/auth/permissions';
import { Dataset } from '../../src/dataset/dataset.schema';
import { demoDataset } from '../../src/dataset/demo';

/** Tenant A (the data's owner) and tenant B (the intruder) of the isolation walk. */
export const OWNER = { tenant: 'demo', username: 'demo', password: 'demo-password' } as const;
export const INTRUDER = { tenant: 'globex', username: 'globex-admin', password: 'globex-admin-pw' } as const;
/** A client of tenant A with no permission bit. */
export const POWERLESS = { tenant: 'demo', username: 'demo-none', password: 'demo-none-pw' } as const;

/** `Basic …` value of a walk client. */
export function basicOf(c: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

/**
 * The demo dataset (two tenants, `demo` holding the data) plus an all-permission client of
 * `globex` and a permission-less client of `demo`.
 */
export function isolationDataset(): Dataset {
  const ds = demoDataset();
  ds.clients = [
    ...(ds.clients ?? []),
    { ...INTRUDER, permissions: Object.values(Permission) },
    { ...POWERLESS, permissions: [] },
  ];
  return ds;
}

/**
 * Tables whose rows change on any authenticated request whatever its outcome, so they are left
 * out of the "no effect" snapshot: none is known today; a table named here must say why.
 */
export const VOLATILE_TABLES: ReadonlySet<string> = new Set<string>([
  // Migration bookkeeping: never written by a request, but not business data either.
  'knex_migrations',
  'knex_migrations_lock',
]);

/** Per table: its row count, a hash of every row, and a hash of tenant A's rows (when it has `tenant_id`). */
export type Snapshot = Record<string, { count: number; all: string; owner: string | null }>;

/** Every table's name in the database (SQLite or MariaDB). */
export async function tableNames(db: Knex, dialect: 'sqlite' | 'mysql'): Promise<string[]> {
  const sqlite = dialect === 'sqlite';
  const rows = sqlite
    ? ((await db.raw("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")) as {
        name: string;
      }[])
    : ((await db.raw('show tables'))[0] as Record<string, string>[]).map((r) => ({
        name: Object.values(r)[0],
      }));
  return rows
    .map((r) => r.name)
    .filter((n) => !VOLATILE_TABLES.has(n))
    .sort();
}

const hash = (rows: string[]): string => createHash('sha256').update(rows.join('\n')).digest('hex');

/** Row counts and row checksums of `tables`, every row read and sorted by its JSON text. */
export async function snapshot(db: Knex, tables: string[], ownerTenantId: number): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const t of tables) {
    const rows = ((await db(t).select('*')) as Record<string, unknown>[]).map((r) => ({ ...r }));
    const text = (r: Record<string, unknown>) =>
      JSON.stringify(r, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('hex') : v));
    const sorted = rows.map(text).sort();
    const owned =
      rows.length && 'tenant_id' in rows[0]
        ? rows
            .filter((r) => Number(r.tenant_id) === ownerTenantId)
            .map(text)
            .sort()
        : null;
    out[t] = { count: rows.length, all: hash(sorted), owner: owned && hash(owned) };
  }
  return out;
}

/**
 * Tables whose snapshot differs between `a` and `b`. Tables in `ownerOnly` (every table, with
 * `'all'`) are compared on tenant A's rows only where they have a `tenant_id`: the caller's own
 * tenant may legitimately gain rows there (its own write, its own audit CDR).
 */
export function changedTables(a: Snapshot, b: Snapshot, ownerOnly: ReadonlySet<string> | 'all'): string[] {
  return Object.keys(a).filter((t) => {
    if ((ownerOnly === 'all' || ownerOnly.has(t)) && a[t].owner !== null) return a[t].owner !== b[t]?.owner;
    return a[t].count !== b[t]?.count || a[t].all !== b[t]?.all;
  });
}

/** An argument value builder: from the walk's tenant-A facts to a value. */
export type Builder = (facts: Facts) => unknown;

/** What the walk knows of tenant A's data, found through its all-permission client. */
export interface Facts {
  msisdn: string;
  planId: number;
  groupId: string;
  recurringId: string;
  donationId: string;
  token: string;
  location: string;
  locationInfo: string;
  planDefinition: string;
  nodeIds: string[];
}

/**
 * Argument and input field values by `Parent.name` first, then by `name`, then by named type.
 * A root field whose required arguments reach neither fails the walk, naming what is unmapped.
 */
export const BY_NAME: Record<string, Builder> = {
  msisdn: (f) => f.msisdn,
  ownerId: (f) => f.msisdn,
  memberId: (f) => f.msisdn,
  donorId: (f) => f.msisdn,
  recipientId: (f) => f.msisdn,
  clientId: (f) => f.msisdn,
  memberIds: (f) => [f.msisdn],
  donorPlanId: (f) => f.planId,
  planId: (f) => f.planId,
  groupId: (f) => f.groupId,
  token: (f) => f.token,
  ids: (f) => f.nodeIds,
  representations: (f) => [
    { __typename: 'Subscriber', msisdn: f.msisdn },
    { __typename: 'Group', id: f.groupId },
    { __typename: 'Donation', id: f.donationId },
    { __typename: 'RecurringDonation', id: f.recurringId },
    { __typename: 'Location', name: f.location },
  ],
  reason: () => 'isolation walk',
  amount: () => '1.00',
  from: () => '2000-01-01',
  to: () => '2100-01-01',
  idempotencyKey: () => undefined,
  'PurchasePlanInput.idempotencyKey': () => 'isolation-walk-1',
  'Query.group.id': (f) => f.groupId,
  'Mutation.deleteGroup.id': (f) => f.groupId,
  'Mutation.updateGroup.id': (f) => f.groupId,
  'Query.donation.id': (f) => f.donationId,
  'Query.recurringDonation.id': (f) => f.recurringId,
  'Mutation.deleteRecurringDonation.id': (f) => f.recurringId,
  'Query.node.id': (f) => f.nodeIds[0],
  'Query.subscriberPlan.id': (f) => f.planId,
  'Mutation.renewSubscriberPlan.id': (f) => f.planId,
  'Query.location.name': (f) => f.location,
  'Query.locationInfo.name': (f) => f.locationInfo,
  'Query.locations.name': (f) => f.location,
  'Query.locationList.name': (f) => f.location,
  'Mutation.deleteLocation.name': (f) => f.location,
};

/** Values of required arguments by named type, when no name rule applies. */
export const BY_TYPE: Record<string, Builder> = {
  MSISDN: (f) => f.msisdn,
  Decimal: () => '1.00',
  Int: (f) => f.planId,
  SafeInt: () => 1000,
  ID: (f) => f.groupId,
  Boolean: () => true,
};

/** A value for `type` at `path` (`Parent.name`), or throws naming the unmapped argument. */
export function valueFor(type: GraphQLInputType, path: string, facts: Facts, schema: GraphQLSchema): unknown {
  const name = path.split('.').pop()!;
  const rule = BY_NAME[path] ?? BY_NAME[name];
  if (rule) return rule(facts);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [valueFor(inner.ofType as GraphQLInputType, path, facts, schema)];
  const named = getNamedType(inner) as GraphQLNamedType;
  if (BY_TYPE[named.name]) return BY_TYPE[named.name](facts);
  if (isEnumType(named)) return named.getValues()[0].name;
  if (isInputObjectType(named)) {
    const obj: Record<string, unknown> = {};
    for (const f of Object.values(named.getFields())) {
      if (!isNonNullType(f.type) && !BY_NAME[f.name] && !BY_NAME[`${named.name}.${f.name}`]) continue;
      obj[f.name] = valueFor(f.type, `${named.name}.${f.name}`, facts, schema);
    }
    return obj;
  }
  if (named.name === 'String' && isNonNullType(type)) return `walk-${name}`;
  if (!isNonNullType(type)) return undefined;
  throw new Error(
    `isolation walk: no argument builder for ${path} (${String(type)}); add one to BY_NAME or BY_TYPE`,
  );
}

/** Variables for every argument of `field` of `parent` (optional ones only when mapped). */
export function argumentsFor(
  parent: string,
  field: GraphQLField<unknown, unknown>,
  facts: Facts,
  schema: GraphQLSchema,
) {
  const vars: Record<string, unknown> = {};
  for (const a of field.args as readonly GraphQLArgument[]) {
    const path = `${parent}.${field.name}.${a.name}`;
    const mapped = BY_NAME[path] ?? BY_NAME[a.name];
    if (!isNonNullType(a.type) && !mapped) continue;
    vars[a.name] = valueFor(a.type, path, facts, schema);
  }
  return vars;
}

/**
 * A selection of every field of `type` without required arguments, not deprecated, to `depth`
 * levels (the last level: leaf fields only; unions: `__typename`).
 */
export function selectionOf(type: GraphQLOutputType, depth: number): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (isUnionType(named) || depth === 0) return '{ __typename }';
  if (!isObjectType(named) && !isInterfaceType(named)) return '';
  const parts = ['__typename'];
  for (const f of Object.values(named.getFields())) {
    if (f.args.some((a) => isNonNullType(a.type)) || f.deprecationReason) continue;
    const inner = getNamedType(f.type);
    if (isLeafType(inner)) parts.push(f.name);
    else if (depth > 1) parts.push(`${f.name} ${selectionOf(f.type, depth - 1)}`);
  }
  return `{ ${parts.join(' ')} }`;
}

/** The document of root field `field` of `kind` with its variables declared. */
export function documentFor(
  kind: 'query' | 'mutation' | 'subscription',
  field: GraphQLField<unknown, unknown>,
  vars: Record<string, unknown>,
): string {
  const used = field.args.filter((a) => a.name in vars);
  const decl = used.length ? `(${used.map((a) => `$${a.name}: ${String(a.type)}`).join(', ')})` : '';
  const args = used.length ? `(${used.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  // An unpaged list multiplies the cost of every nested connection: its items' own fields only.
  const list = isListType(isNonNullType(field.type) ? field.type.ofType : field.type);
  return `${kind} Walk${decl} { ${field.name}${args} ${selectionOf(field.type, list ? 1 : 3)} }`;
}

/** A REST row's path and body aimed at tenant A: its params, first query parameter and `doc` example. */
export function restRequest(
  row: {
    path: string;
    doc: { query?: Readonly<Record<string, unknown>>; request?: { example: Record<string, unknown> } };
  },
  facts: Facts,
  member: string,
): { path: string; body: unknown } {
  const id = row.path.includes('recurringDonations') ? facts.recurringId : facts.groupId;
  const name = row.path.startsWith('/pcc/pcrf/locationInfos/') ? facts.locationInfo : facts.location;
  let path = row.path
    .replace(':id', encodeURIComponent(id))
    .replace(':name', encodeURIComponent(name))
    .replace(':memberId', member);
  const byQuery: Record<string, string> = {
    name,
    ownerId: facts.msisdn,
    donorId: facts.msisdn,
    memberId: member,
    groupId: facts.groupId,
  };
  const q = Object.keys(row.doc.query ?? {}).find((k) => k in byQuery);
  if (q) path += `?${q}=${encodeURIComponent(byQuery[q])}`;
  const example = row.doc.request?.example;
  const body =
    example &&
    (JSON.parse(
      JSON.stringify(example)
        .replaceAll('353879876543', member)
        .replaceAll('Z3JvdXAtaWQtZXhhbXBs', facts.groupId)
        .replaceAll('Jq3V0y0dUQ2l1bXpRk0ZlVh4W1hZ3lqXz8n0bGkQm4', facts.token)
        .replaceAll('353871234567', facts.msisdn),
    ) as unknown);
  return { path, body };
}
