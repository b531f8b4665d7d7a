import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import knexFactory, { Knex } from 'knex';
import { transactionRetries } from '../../src/metrics';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { DONOR, PLAN, R, grantedFrom, remainingOf, sharingDataset, sqsClient } from '../helpers/sharing';
import { simulatedDelay } from '../helpers/wait';

/**
 * Two gateways on a three-node MariaDB Galera cluster (scripts/galera-cluster.sh),
 * one on node 1 and one on node 2, keep the single-server invariants; then gateways behind
 * HAProxy lose node 2 (kill -9) in the middle of a storm, the node rejoins, and every node holds
 * the same exact figures. Run by `npm run test:cluster` (scripts/cluster-test.sh), which starts
 * the cluster and sets GALERA_CLUSTER=1; skipped otherwise.
 */
const SCRIPT = path.join(__dirname, '../../scripts/galera-cluster.sh');
const BASE = Number(process.env.GALERA_PORT_BASE ?? 3340);
const NODE_PORTS = [BASE + 1, BASE + 2, BASE + 3];
const describeCluster = process.env.GALERA_CLUSTER === '1' ? describe : describe.skip;

const CHARGED = '353871234567';
const STORM = '353870000002'; // postpaid: every storm charge is covered
const PRICE_MICROS = 120_000n; // 0.10 + 0.02 tax
const AUTH = { as: 'admin', json: true, headers: { tenant: 'acme' } };
const withPort = (url: string, port: number) => {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
};
const QUIET = { warn() {}, error() {}, deprecate() {}, debug() {} };
const log = (line: string) => process.stdout.write(`  [cluster] ${line}\n`);
const tally = (xs: Array<number | string>) =>
  Object.entries(xs.reduce<Record<string, number>>((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {}))
    .map(([k, n]) => `${k}×${n}`)
    .join(' ');
const retries = async () => (await transactionRetries.get()).values.reduce((sum, v) => sum + v.value, 0);
const returnCode = (r: TestResponse) => (r.json() as { returnCode: number }).returnCode;

/** Both fixtures in one database: the charging subscribers and catalogue, the sharing plans. */
function clusterDataset() {
  const ds = sharingDataset();
  const c = chargingDataset();
  const known = new Set(ds.subscribers!.map((s) => `${s.tenant}:${s.msisdn}`));
  ds.subscribers!.push(...c.subscribers!.filter((s) => !known.has(`${s.tenant}:${s.msisdn}`)));
  ds.ratings = c.ratings;
  ds.clients!.push(...c.clients!.filter((x) => !ds.clients!.some((y) => y.username === x.username)));
  return ds;
}

describeCluster('a three-node Galera cluster', () => {
  let a: TestApp; // node 1
  let b: TestApp; // node 2
  let nodes: Knex[];

  beforeAll(async () => {
    process.env.TEST_DATABASE_URL = `mysql://root@127.0.0.1:${NODE_PORTS[0]}/test`;
    // Generous deadlines, as in the single-server concurrency tests: these storms queue 150
    // requests per gateway on one subscriber, and the figures under test are the conflicts.
    const env = { RATING_TIMEOUT_MS: '60000', REQUEST_TIMEOUT_MS: '60000' };
    a = await startTestApp({ dataset: clusterDataset(), env });
    b = await startTestApp({ sameDatabaseAs: a, env, database: (url) => withPort(url, NODE_PORTS[1]) });
    nodes = NODE_PORTS.map((port) =>
      knexFactory({
        client: 'mysql2',
        connection: withPort(a.tdb.url, port),
        pool: { min: 0, max: 2 },
        log: QUIET,
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.destroy()));
    await b?.close();
    await a?.close();
  });

  /** Runs `check` against every node directly (after waiting for replication to apply). */
  const onEveryNode = async (check: (db: Knex, node: number) => Promise<void>) => {
    for (const [i, db] of nodes.entries()) {
      await db.raw('SET SESSION wsrep_sync_wait = 1'); // causal read: sees every commit of the cluster
      await check(db, i + 1);
    }
  };
  const balanceMicros = async (db: Knex, msisdn: string) =>
    BigInt((await db('subscribers').where({ msisdn }).first()).balance_micros);

  it('300 simultaneous charges over two nodes, balance covering exactly K: K succeed, the rest 1000, exact on every node', async () => {
    const K = 250n;
    await a.tdb
      .db('subscribers')
      .where({ msisdn: CHARGED })
      .update({ balance_micros: Number(K * PRICE_MICROS) });
    const before = await retries();
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        (i % 2 ? b : a).request('POST', '/crs-api/processRating', { ...AUTH, body: ratingBody() }),
      ),
    );
    const codes = results.map(returnCode);
    log(
      `charges: ${tally(codes)} in ${Math.round(performance.now() - t0)} ms, ${(await retries()) - before} transactions retried`,
    );
    expect(codes.filter((c) => c === 0)).toHaveLength(Number(K));
    expect(codes.filter((c) => c === 1000)).toHaveLength(300 - Number(K));
    await onEveryNode(async (db) => {
      expect(await balanceMicros(db, CHARGED)).toBe(0n);
      const ledger = await db('charges')
        .where({ msisdn: CHARGED, kind: 'charge', return_code: 0 })
        .count({ n: '*' })
        .sum({ s: 'amount_micros' })
        .first();
      expect([Number(ledger!.n), BigInt(ledger!.s)]).toEqual([Number(K), K * PRICE_MICROS]);
    });
  });

  it('the same operationIds sent to both nodes at once: each charged once, both answers alike', async () => {
    await a.tdb.db('subscribers').where({ msisdn: CHARGED }).update({ balance_micros: 100_000_000 });
    const bodies = Array.from({ length: 60 }, () => ratingBody());
    const before = await retries();
    const results = await Promise.all(
      bodies.flatMap((body) =>
        [a, b].map((gw) => gw.request('POST', '/crs-api/processRating', { ...AUTH, body })),
      ),
    );
    log(`repeats: ${tally(results.map(returnCode))}, ${(await retries()) - before} transactions retried`);
    for (let i = 0; i < bodies.length; i++) {
      expect(returnCode(results[2 * i])).toBe(0);
      expect(results[2 * i + 1].json()).toEqual(results[2 * i].json());
    }
    await onEveryNode(async (db) => {
      const ops = bodies.map((x) => (x.ratingParams as { operationId: string }).operationId);
      const rows = await db('charges').whereIn('operation_id', ops).where({ kind: 'charge' });
      expect(rows).toHaveLength(ops.length);
      expect(await balanceMicros(db, CHARGED)).toBe(100_000_000n - 60n * PRICE_MICROS);
    });
  });

  it('60 simultaneous donations over two nodes from a plan covering exactly K: K granted, conserved to the byte on every node', async () => {
    const K = 23;
    const quota = 37;
    await a.tdb
      .db('subscriber_plans')
      .where({ id: PLAN.amount })
      .update({ remaining: K * quota });
    const before = await retries();
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        sqsClient(i % 2 ? b : a).donate({
          donorId: DONOR,
          donorPlanId: PLAN.amount,
          quotaType: 'amount',
          recipients: [{ recipientId: R(i), quota }],
        }),
      ),
    );
    const codes = results.map((r) => (r.json().recipients as { errorCode: number }[])[0].errorCode);
    log(`donations: ${tally(codes)}, ${(await retries()) - before} transactions retried`);
    expect(codes.filter((c) => c === 0)).toHaveLength(K);
    expect(codes.filter((c) => c === 15)).toHaveLength(60 - K);
    await onEveryNode(async (db) => {
      expect(await remainingOf(db, PLAN.amount)).toBe(0);
      expect(await grantedFrom(db, PLAN.amount)).toBe(K * quota);
    });
  });

  it('30 simultaneous member additions over two nodes: the group never passes MAX_GROUP_SIZE (10) on any node', async () => {
    const id = (await sqsClient(a).createGroup({ ownerId: DONOR, name: 'cluster' })).json().id as string;
    const before = await retries();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        sqsClient(i % 2 ? b : a).addMember(id, { memberId: R(i), quota: 100_000 }),
      ),
    );
    log(
      `member adds: ${tally(results.map((r) => r.status))}, ${(await retries()) - before} transactions retried`,
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 422).map((r) => r.json().errorCode)).toEqual(Array(20).fill(6));
    await onEveryNode(async (db) => {
      expect(await db('group_members').where({ group_id: id })).toHaveLength(10);
    });
  });

  it('node 2 killed (kill -9) during a storm through HAProxy: only documented failures, nothing acknowledged lost, the node rejoins with the same figures', async () => {
    const viaHaproxy = (url: string) => withPort(url, BASE);
    const c = await startTestApp({ sameDatabaseAs: a, database: viaHaproxy });
    const d = await startTestApp({ sameDatabaseAs: a, database: viaHaproxy });
    const startBalance = await balanceMicros(a.tdb.db, STORM);
    await a.tdb.db('subscriber_plans').where({ id: PLAN.credit }).update({ remaining: 1_000_000 });
    const grantedBefore = await grantedFrom(a.tdb.db, PLAN.credit);
    const before = await retries();
    const charges: Array<{ op: string; code: number }> = [];
    const donations: Array<{ status: number; granted: boolean; id?: string }> = [];
    const STORM_MS = 10_000;
    const KILL_AT_MS = 3_000;
    const t0 = performance.now();
    let killedAt = 0;
    const worker = async (gw: TestApp, w: number) => {
      for (let i = 0; performance.now() - t0 < STORM_MS; i++) {
        if (i % 4 === 3) {
          const r = await sqsClient(gw).donate({
            donorId: DONOR,
            donorPlanId: PLAN.credit,
            quotaType: 'amount',
            recipients: [{ recipientId: R((w * 7 + i) % 80), quota: 10 }],
          });
          const body = r.status === 200 ? r.json() : {};
          donations.push({
            status: r.status,
            granted: r.status === 200 && (body.recipients as { errorCode: number }[])[0].errorCode === 0,
            id: body.id as string | undefined,
          });
        } else {
          const body = ratingBody({}, { msisdn: STORM });
          const r = await gw.request('POST', '/crs-api/processRating', { ...AUTH, body });
          charges.push({
            op: (body.ratingParams as { operationId: string }).operationId,
            code: returnCode(r),
          });
        }
      }
    };
    const killer = (async () => {
      await simulatedDelay(KILL_AT_MS, 'the moment of the storm when node 2 is killed');
      execFileSync(SCRIPT, ['kill', '2']);
      killedAt = performance.now() - t0;
    })();
    await Promise.all([
      killer,
      ...[c, d].flatMap((gw, g) => Array.from({ length: 8 }, (_, w) => worker(gw, g * 8 + w))),
    ]);
    log(
      `storm ${STORM_MS} ms, node 2 killed at ${Math.round(killedAt)} ms: charges ${tally(charges.map((x) => x.code))}; donations (HTTP) ${tally(donations.map((x) => x.status))}; ${(await retries()) - before} transactions retried`,
    );
    const r0 = performance.now();
    execFileSync(SCRIPT, ['restart', '2'], { stdio: 'inherit' });
    log(`node 2 rejoined and Synced in ${Math.round(performance.now() - r0)} ms`);
    await c.close();
    await d.close();

    // Every charge answer is a documented code; a database failure is one of the infrastructure codes.
    expect(charges.every((x) => [0, 2002, 2003, 3002, 4000, 5000, 5001].includes(x.code))).toBe(true);
    expect(donations.every((x) => x.status === 200 || x.status === 503)).toBe(true);
    expect(charges.filter((x) => x.code === 0).length).toBeGreaterThan(charges.length / 2);
    const acknowledged = charges.filter((x) => x.code === 0).map((x) => x.op);
    const unknown = new Set(charges.filter((x) => x.code === 5000).map((x) => x.op));
    const grantedIds = donations.filter((x) => x.granted).map((x) => x.id);
    await onEveryNode(async (db, node) => {
      const rows: Array<{ operation_id: string; amount_micros: number | string }> = await db('charges')
        .where({ msisdn: STORM, kind: 'charge', return_code: 0 })
        .select('operation_id', 'amount_micros');
      const ledger = new Set(rows.map((x) => x.operation_id));
      // No acknowledged charge lost; nothing charged that was answered as failed (5000 = unknown outcome).
      expect(acknowledged.filter((op) => !ledger.has(op))).toEqual([]);
      expect([...ledger].filter((op) => !acknowledged.includes(op) && !unknown.has(op))).toEqual([]);
      const sum = rows.reduce((s, x) => s + BigInt(x.amount_micros), 0n);
      expect(await balanceMicros(db, STORM)).toBe(startBalance - sum);
      // No acknowledged donation lost; the plan's quota conserved to the unit.
      const stored = new Set(
        (
          await db('donations')
            .whereIn('id', grantedIds as string[])
            .select('id')
        ).map((x: { id: string }) => x.id),
      );
      expect(grantedIds.filter((id) => !stored.has(id!))).toEqual([]);
      expect((await remainingOf(db, PLAN.credit)) + (await grantedFrom(db, PLAN.credit))).toBe(
        1_000_000 + grantedBefore,
      );
      log(
        `node ${node}: ${ledger.size} charges, balance ${await balanceMicros(db, STORM)} micro-units, figures agree`,
      );
    });
  }, 240_000);
});
