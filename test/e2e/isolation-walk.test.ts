import { GraphQLField, GraphQLObjectType, GraphQLSchema, buildSchema } from 'graphql';
import { Client } from 'graphql-ws';
import { DEMO_FAMILY, seedDemoFamily } from '../../src/dataset/demo';
import { gatewaySchema } from '../../src/graphql/schema';
import { ROUTES } from '../../src/rest/routes';
import { RestRoute } from '../../src/rest/route';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { subscribe, wsClient } from '../helpers/graphql-ws';
import {
  Facts,
  INTRUDER,
  OWNER,
  POWERLESS,
  Snapshot,
  argumentsFor,
  basicOf,
  changedTables,
  documentFor,
  isolationDataset,
  restRequest,
  snapshot,
  tableNames,
} from '../helpers/isolation';

/**
 * Tenant isolation, proven per operation (docs/contract.md §2 "Tenant", OWASP API1/API3/API5):
 * every root field of the live schema and every REST row is sent with tenant A's ids, MSISDNs and
 * names (a) by an all-permission client of tenant B, (b) by tenant B's client naming tenant A in
 * the `tenant` header, and (c) by a client of tenant A without any permission. Each answer must
 * carry none of tenant A's data, be the documented refusal, and change no row of any table.
 * A new root field or REST row is walked by itself; one whose arguments have no builder fails.
 */

const MEMBER = DEMO_FAMILY.members[0].msisdn;

type Mode = 'other-tenant' | 'tenant-header' | 'no-permission';
const MODES: Mode[] = ['other-tenant', 'tenant-header', 'no-permission'];

/**
 * Operations that may write in the caller's own tenant (tenant B): for them only tenant A's rows
 * must stay. Upserts keyed by a name create tenant B's own row of that name; a token issued by
 * tenant B for any MSISDN belongs to tenant B (docs/contract.md §3) with its create CDR.
 */
const OWN_TENANT_WRITES = new Set([
  'Mutation.upsertRating',
  'Mutation.upsertLocation',
  'Mutation.upsertLocationInfoType',
  'Mutation.upsertPlanDefinition',
  'Mutation.issueToken',
  'POST /token',
  'POST /oauth2/token',
]);

/**
 * Tables compared on tenant A's rows only when tenant B calls: they record tenant B's own
 * attempt in tenant B. A token validation writes a `validation_failed` token CDR (docs/events.md
 * "Token CDR"); a rating or refund of an MSISDN unknown in the caller's tenant is answered
 * returnCode 2000 and recorded, with its charging CDR, in the caller's ledger (docs/contract.md §4,
 * exactly once per operationId).
 */
const CALLER_AUDIT = new Set(['cdrs', 'charges']);

describe('isolation walk: every operation and REST row, another tenant and no permission', () => {
  let a: TestApp;
  let schema: GraphQLSchema;
  let tables: string[];
  let ownerTenantId: number;
  let facts: Facts;
  /** Strings of tenant A's data that no refused answer may contain. */
  let secrets: string[];
  const outcomes: string[] = [];
  const clients: Client[] = [];

  const authOf = (mode: Mode) => basicOf(mode === 'no-permission' ? POWERLESS : INTRUDER);
  const tenantOf = (mode: Mode) => (mode === 'other-tenant' ? INTRUDER.tenant : OWNER.tenant);
  const gql = (auth: string, query: string, variables: Record<string, unknown> = {}, tenant?: string) =>
    a.request('POST', '/graphql', { auth, headers: tenant ? { tenant } : {}, body: { query, variables } });
  const ownerGql = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = await gql(basicOf(OWNER), query, variables);
    const body = r.json() as { data?: Record<string, never>; errors?: unknown };
    if (!body.data) throw new Error(`owner query failed: ${r.text}`);
    return body.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  /** Sends `send`, asserting no tenant-A data in the answer and no effect on any table. */
  const noLeakNoEffect = async (
    what: string,
    sent: string | null,
    send: () => Promise<TestResponse>,
    ownerOnly: ReadonlySet<string> | 'all',
  ) => {
    await a.app.services.tokens.flushCdrs();
    const before: Snapshot = await snapshot(a.tdb.db, tables, ownerTenantId);
    const res = await send();
    await a.app.services.tokens.flushCdrs();
    const after = await snapshot(a.tdb.db, tables, ownerTenantId);
    const leaked = sent === null ? [] : leakedIn(res.text, sent, secrets);
    const answer = `${res.status} ${res.text.slice(0, 400)}`;
    if (leaked.length) throw new Error(`${what}: tenant A data ${leaked.join(', ')} in the answer ${answer}`);
    const changed = changedTables(before, after, ownerOnly);
    if (changed.length) throw new Error(`${what}: changed ${changed.join(', ')} (answer ${answer})`);
    return res;
  };

  beforeAll(async () => {
    a = await startTestApp({ dataset: isolationDataset(), env: { SUBSCRIPTION_POLL_MS: '50' } });
    schema = await gatewaySchema();
    tables = await tableNames(a.tdb.db, a.tdb.dialect);
    ownerTenantId = (await a.tdb.db('tenants').where({ name: OWNER.tenant }).first()).id as number;
    const groupId = await seedDemoFamily(a.app.services.sharing, ownerTenantId);
    // Tenant A's own traffic: a charge, a token, a donation, so that every table has A's rows.
    const owner = basicOf(OWNER);
    const tenant = { tenant: OWNER.tenant };
    const charge = ROUTES.find((r) => r.path === '/crs-api/processRating')!.doc.request!.example;
    expect(
      (await a.request('POST', '/crs-api/processRating', { auth: owner, headers: tenant, body: charge }))
        .status,
    ).toBe(200);
    const token = await a.request('POST', '/token', {
      auth: owner,
      json: true,
      body: { grant_type: 'client_credentials', client_id: DEMO_FAMILY.ownerId },
    });
    const donation = {
      donorId: DEMO_FAMILY.ownerId,
      donorPlanId: 458,
      quotaType: 'amount',
      recipients: [{ recipientId: MEMBER, quota: 1000 }],
    };
    expect(
      (
        await a.request('POST', '/sqs/api/donations', {
          auth: owner,
          headers: { ...tenant, permissions: 'SQS_DONATION_PERMISSION' },
          body: donation,
        })
      ).status,
    ).toBe(200);
    const d = await ownerGql(
      `query ($m: MSISDN!) {
        subscriber(msisdn: $m) { id }
        donations(donorId: $m) { edges { node { id } } }
        recurringDonations(donorId: $m) { edges { node { id } } }
        subscriberPlans(msisdn: $m) { edges { node { id } } }
        group(id: "${groupId}") { id }
      }`,
      { m: DEMO_FAMILY.ownerId },
    );
    const ds = isolationDataset();
    const names = (t: string) => new Set(ds.locations!.filter((l) => l.tenant === t).map((l) => l.name));
    const theirs = names(INTRUDER.tenant);
    const location = [...names(OWNER.tenant)].find((n) => !theirs.has(n))!;
    const infos = await ownerGql(`query ($n: String!) { location(name: $n) { id infoList { id name } } }`, {
      n: location,
    });
    facts = {
      msisdn: DEMO_FAMILY.ownerId,
      planId: DEMO_FAMILY.planId,
      groupId,
      recurringId: d.recurringDonations.edges[0].node.id,
      donationId: d.donations.edges[0].node.id,
      token: (token.json() as { access_token: string }).access_token,
      location,
      locationInfo: infos.location.infoList[0].name,
      planDefinition: DEMO_FAMILY.planDefinition,
      nodeIds: [
        d.subscriber.id,
        d.group.id,
        d.subscriberPlans.edges[0].node.id,
        infos.location.id,
        infos.location.infoList[0].id,
      ],
    };
    const msisdns = ds.subscribers!.filter((s) => s.tenant === OWNER.tenant).map((s) => s.msisdn);
    secrets = [
      ...msisdns,
      facts.groupId,
      facts.recurringId,
      facts.donationId,
      facts.token,
      facts.location,
      facts.locationInfo,
      ...facts.nodeIds,
      ...ds.planDefinitions!.map((p) => p.name),
    ];
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await a?.close();
    // The walk's outcome table, for reviewing a new row's refusal: ISOLATION_WALK_OUTCOMES=1.
    if (process.env.ISOLATION_WALK_OUTCOMES)
      process.stdout.write(`isolation walk outcomes:\n${outcomes.join('\n')}\n`);
  });

  it("sees tenant A's data and effects when tenant A itself asks (the walk's detectors work)", async () => {
    const read = `query ($m: MSISDN!) { subscriber(msisdn: $m) { msisdn } groups(ownerId: $m) { edges { node { id } } } }`;
    const res = await gql(basicOf(OWNER), read, { m: facts.msisdn });
    expect(leakedIn(res.text, '', secrets)).toEqual(expect.arrayContaining([facts.msisdn, facts.groupId]));
    const before = await snapshot(a.tdb.db, tables, ownerTenantId);
    const adjust = `mutation ($m: MSISDN!) { adjustBalance(msisdn: $m, amount: "0.01", reason: "walk control") { userErrors { code } } }`;
    expect((await gql(basicOf(OWNER), adjust, { m: facts.msisdn })).text).toContain('"userErrors":[]');
    const after = await snapshot(a.tdb.db, tables, ownerTenantId);
    expect(changedTables(before, after, 'all')).toEqual(expect.arrayContaining(['charges', 'subscribers']));
  });

  it('fails, naming it, on a root field whose argument has no builder', () => {
    const s = buildSchema('scalar Weird input X { weird: Weird! } type Query { f(x: X!): Int }');
    const f = s.getQueryType()!.getFields().f;
    expect(() => argumentsFor('Query', f, facts, s)).toThrow(/no argument builder for X\.weird \(Weird!\)/);
  });

  it('walks every query and mutation root field', async () => {
    const roots: ['query' | 'mutation', GraphQLObjectType | null | undefined][] = [
      ['query', schema.getQueryType()],
      ['mutation', schema.getMutationType()],
    ];
    for (const [kind, type] of roots)
      for (const field of Object.values(type!.getFields()) as GraphQLField<unknown, unknown>[]) {
        const key = `${type!.name}.${field.name}`;
        const vars = argumentsFor(type!.name, field, facts, schema);
        const query = documentFor(kind, field, vars);
        for (const mode of MODES) {
          const res = await noLeakNoEffect(
            `${key} [${mode}]`,
            // The federation SDL is the public schema, whose examples use the demo MSISDN.
            key === 'Query._service' ? null : JSON.stringify(vars),
            () => gql(authOf(mode), query, vars, tenantOf(mode)),
            ownerOnlyFor(key, mode),
          );
          outcomes.push(`${key} [${mode}] ${graphqlOutcome(res, field.name)}`);
          expectRefused(key, mode, res, field.name);
        }
      }
    const fields = roots.reduce((n, [, t]) => n + Object.keys(t!.getFields()).length, 0);
    expect(outcomes.filter((o) => /^(Query|Mutation)\./.test(o))).toHaveLength(fields * MODES.length);
  }, 600_000);

  it('walks every REST row', async () => {
    for (const row of ROUTES) {
      const key = `${row.method} ${row.path}`;
      const { path, body } = restRequest(row, facts, MEMBER);
      for (const mode of MODES) {
        const res = await noLeakNoEffect(
          `${key} [${mode}]`,
          decodeURIComponent(path) + JSON.stringify(body ?? null),
          async () =>
            a.request(row.method, path, {
              auth: authOf(mode),
              headers: {
                tenant: tenantOf(mode),
                accept: 'application/json',
                ...(row.permissionHeader ? { permissions: row.permissionHeader } : {}),
              },
              body,
            }),
          ownerOnlyFor(key, mode),
        );
        outcomes.push(`${key} [${mode}] ${res.status} ${res.text.slice(0, 120)}`);
        expectRestRefused(key, mode, row, res);
      }
    }
    expect(outcomes.filter((o) => /^(GET|POST|PUT|DELETE) /.test(o))).toHaveLength(
      ROUTES.length * MODES.length,
    );
  }, 600_000);

  it('walks every subscription root field over graphql-ws: an error, no event', async () => {
    const type = schema.getSubscriptionType()!;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
      const vars = argumentsFor(type.name, field, facts, schema);
      const query = documentFor('subscription', field, vars);
      for (const mode of MODES) {
        const params: Record<string, string> = mode === 'tenant-header' ? { tenant: OWNER.tenant } : {};
        const c = wsClient(a, authOf(mode), [], params);
        clients.push(c);
        const sub = subscribe(c, query, vars);
        const err = await sub.ended.then(
          () => null,
          (e: Error) => e,
        );
        // Refused either as a protocol error or as one result with errors and no data.
        const said = err ? err.message : JSON.stringify(sub.results);
        outcomes.push(`Subscription.${field.name} [${mode}] ${said.slice(0, 160)}`);
        const refused =
          err !== null ||
          (sub.results.length === 1 && !sub.results[0].data && !!sub.results[0].errors?.length);
        expect({ field: field.name, mode, refused }).toEqual({ field: field.name, mode, refused: true });
        expect(leakedIn(said, JSON.stringify(vars), secrets)).toEqual([]);
      }
    }
    expect(a.app.services.events.subscriptionCount).toBe(0);
  }, 120_000);
});

/**
 * The secrets in `answer`: any that the request did not send, and any the request sent that
 * appears outside an error message or the `self` link of the request (a refusal may name the MSISDN or id it was asked about, as
 * it does for an unknown one: that tells nothing of tenant A).
 */
function leakedIn(answer: string, sent: string, secrets: string[]): string[] {
  const outsideMessages = answer.replace(
    /"(message|error_description|errorMessage|description|href)":"(?:[^"\\]|\\.)*"/g,
    '',
  );
  return secrets.filter((s) => answer.includes(s) && (!sent.includes(s) || outsideMessages.includes(s)));
}

/** What `key` sent in `mode` may change in the caller's own tenant (see {@link changedTables}). */
function ownerOnlyFor(key: string, mode: Mode): ReadonlySet<string> | 'all' {
  if (mode !== 'other-tenant') return new Set();
  return OWN_TENANT_WRITES.has(key) ? 'all' : CALLER_AUDIT;
}

/** A GraphQL answer in a few words: `error:<code>`, `null`, `empty`, or `data` (what the walk judges). */
function graphqlOutcome(res: TestResponse, field: string): string {
  const body = res.json() as {
    data?: Record<string, unknown> | null;
    errors?: { extensions?: { code?: string } }[];
  };
  if (body.errors?.length) return `${res.status} error:${body.errors[0].extensions?.code ?? '?'}`;
  const v = body.data?.[field];
  if (v === null || v === undefined) return `${res.status} null`;
  if (Array.isArray(v))
    return `${res.status} ${v.length === 0 || v.every((x) => x === null) ? 'empty' : 'data'}`;
  const userErrors = (v as { userErrors?: { code: string }[] }).userErrors;
  if (userErrors)
    return `${res.status} ${userErrors.length ? `userErrors:${userErrors[0].code}` : 'no userErrors'}`;
  const edges = (v as { edges?: unknown[] }).edges;
  if (edges) return `${res.status} ${edges.length === 0 ? 'empty' : 'data'}`;
  return `${res.status} data`;
}

/**
 * The documented answer of a root field sent by tenant B with tenant A's ids, where it is not the
 * rule of docs/contract.md §2 and docs/graphql.md (another tenant's object is `null`, a list
 * of another tenant's is empty, a mutation on it is a `*_NOT_FOUND` userError or NOT_FOUND).
 */
const GRAPHQL_OTHER_TENANT: Record<string, RegExp> = {
  // An unknown or another tenant's token is inactive and nothing else (docs/contract.md §3).
  'Query.introspectToken': /"active":false,"clientId":null,"expiry":null/,
  // The public federation SDL (no tenant data).
  'Query._service': /^200 data/,
  // A subscriber token is the only credential of the portal fields.
  'Query.me': /^200 error:FORBIDDEN/,
  'Mutation.purchasePlan': /^200 error:FORBIDDEN/,
  // An MSISDN unknown in the caller's tenant: returnCode 2000; a refund of no charge: 4001 (§4).
  'Mutation.processRating': /"returnCode":2000/,
  'Mutation.processRefund': /"returnCode":4001/,
  // RFC 7009: revoking an unknown (here: another tenant's) token answers revoked, and revokes nothing.
  'Mutation.revokeToken': /"revoked":true/,
  // Writes in the caller's own tenant (OWN_TENANT_WRITES): done there, tenant A untouched.
  'Mutation.upsertRating': /^200 no userErrors/,
  'Mutation.upsertLocation': /^200 no userErrors/,
  'Mutation.upsertLocationInfoType': /^200 no userErrors/,
  'Mutation.upsertPlanDefinition': /^200 no userErrors/,
  'Mutation.issueToken': /^200 no userErrors/,
};
const GRAPHQL_OTHER_TENANT_RULE = /^200 (null|empty|error:(NOT_FOUND|FORBIDDEN)|userErrors:\w*NOT_FOUND)/;

/** Asserts the documented refusal of a root field in `mode` (see {@link GRAPHQL_OTHER_TENANT}). */
function expectRefused(key: string, mode: Mode, res: TestResponse, field: string): void {
  const outcome = `${graphqlOutcome(res, field)} ${res.text}`;
  let expected: RegExp;
  if (mode === 'tenant-header') expected = /^403 error:FORBIDDEN/;
  else if (key === 'Query._service') expected = /^200 data/;
  else if (mode === 'no-permission') expected = /^200 error:FORBIDDEN/;
  else expected = GRAPHQL_OTHER_TENANT[key] ?? GRAPHQL_OTHER_TENANT_RULE;
  expect({ key, mode, outcome: outcome.slice(0, 300) }).toEqual({
    key,
    mode,
    outcome: expect.stringMatching(expected),
  });
}

/**
 * The documented answer of a REST row sent by tenant B with tenant A's ids, where it is not 404
 * (docs/contract.md §3-§6): status and a pattern of the body.
 */
const REST_OTHER_TENANT: Record<string, [number, RegExp]> = {
  'POST /token': [201, /"access_token"/], // tenant B's own token (OWN_TENANT_WRITES)
  'POST /oauth2/token': [200, /"access_token"/],
  'POST /token/introspect': [200, /^\{"active":false\}$/],
  'POST /oauth2/introspect': [200, /^\{"active":false\}$/],
  'POST /oauth2/revoke': [200, /^\{\}$/],
  'POST /crs-api/processRating': [200, /^\{"returnCode":2000\}$/],
  'POST /crs-api/processRefund': [200, /^\{"returnCode":4001\}$/],
  'POST /sqs/api/groups': [422, /"errorCode":14/], // the owner is not a subscriber of the tenant
  'GET /sqs/api/groups': [200, /"totalElements":0/],
  'GET /sqs/api/recurringDonations': [200, /"totalElements":0/],
};

/** Asserts the documented refusal of a REST row in `mode` (OAuth 2.0 rows answer 400 `unauthorized_client`). */
function expectRestRefused(key: string, mode: Mode, row: RestRoute<never>, res: TestResponse): void {
  const oauth2 = row.style === 'oauth2';
  let expected: [number, RegExp];
  if (mode !== 'other-tenant') expected = oauth2 ? [400, /"unauthorized_client"/] : [403, /./];
  else expected = REST_OTHER_TENANT[key] ?? [404, /not found/];
  const got = { key, mode, status: res.status, body: res.text.slice(0, 300) };
  expect(got).toEqual({ key, mode, status: expected[0], body: expect.stringMatching(expected[1]) });
}
