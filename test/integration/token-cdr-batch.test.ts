import { importDataset } from '../../src/dataset/import';
import { findClientByUsername } from '../../src/auth/client.store';
import { Logger, createLogger } from '../../src/logger';
import { CdrBatchWriter, sharedCdrWriter } from '../../src/modules/cdrs/cdr.batch-writer';
import { CdrRecorder, TokenCdr } from '../../src/modules/cdrs/cdr.recorder';
import { TokenTx } from '../../src/modules/cdrs/cdr.layouts';
import { TokenService, hashToken } from '../../src/modules/tokens/token.service';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb } from '../helpers/db';
import { baseDataset } from '../helpers/fixtures';
import { waitFor } from '../helpers/wait';

/** The token CDRs "validate" of a token, in write order. */
async function validates(t: TestDb, token: string) {
  const rows = await t
    .db('cdrs')
    .where({ type: 'token', transaction_type: TokenTx.VALIDATE, record_id: hashToken(token).slice(0, 16) })
    .orderBy('id');
  return rows.map(
    (r: { fields: string; actor: string; created_at: number | string; service_id: number }) => ({
      ...JSON.parse(r.fields),
      actor: r.actor,
      createdAt: Number(r.created_at),
      serviceId: Number(r.service_id),
    }),
  );
}

describe('token CDRs "validate" through the batch writer', () => {
  let t: TestDb;
  const clock = new FakeClock();
  let svc: TokenService;
  let acme: { clientId: number; tenantId: number; actor: string };

  beforeAll(async () => {
    t = await createTestDb();
    await importDataset(t.db, baseDataset(), clock);
    // A flush interval no test waits out: only flushCdrs() (and a full batch) writes.
    sharedCdrWriter(t.db, undefined, { flushIntervalMs: 60_000 });
    svc = new TokenService(t.db, clock, 3600);
    const c = (await findClientByUsername(t.db, 'portal'))!;
    acme = { clientId: c.id, tenantId: c.tenantId, actor: 'portal' };
  });
  afterAll(() => t.destroy());

  it('buffers them off the request path, then writes them in order with their own time and content', async () => {
    const { accessToken } = await svc.issue(acme, 'client_credentials', '353871234567');
    const firstAt = clock.nowMs();
    const burst = await Promise.all(Array.from({ length: 40 }, () => svc.introspect(acme, accessToken)));
    expect(burst.every((r) => r.active)).toBe(true);
    clock.advanceSeconds(5);
    await svc.revoke(acme, accessToken);
    expect(await svc.introspect(acme, accessToken)).toEqual({ active: false });
    expect(await validates(t, accessToken)).toEqual([]);
    expect(sharedCdrWriter(t.db).pending).toBe(41);

    await svc.flushCdrs();
    const rows = await validates(t, accessToken);
    expect(rows).toHaveLength(41);
    const ok = { msisdn: '353871234567', status: 'successful', actor: 'portal', serviceId: 102 };
    expect(rows.slice(0, 40)).toEqual(Array(40).fill({ ...ok, createdAt: firstAt }));
    expect(rows[40]).toEqual({ ...ok, status: 'validation_failed', createdAt: firstAt + 5000 });
    expect(sharedCdrWriter(t.db).pending).toBe(0);
  });

  it('writes the buffer before a validation that finds the token expired, then its expire CDR', async () => {
    const { accessToken } = await svc.issue(acme, 'client_credentials', '353871234568');
    await svc.introspect(acme, accessToken);
    clock.advanceSeconds(3600);
    expect(await svc.introspect(acme, accessToken)).toEqual({ active: false });
    const rows = await t
      .db('cdrs')
      .where({ type: 'token', record_id: hashToken(accessToken).slice(0, 16) })
      .orderBy('id');
    expect(rows.map((r: { transaction_type: number }) => r.transaction_type)).toEqual([
      TokenTx.CREATE,
      TokenTx.VALIDATE,
      TokenTx.VALIDATE,
      TokenTx.EXPIRE,
    ]);
  });
});

describe('CdrBatchWriter', () => {
  let t: TestDb;
  const clock = new FakeClock();
  const cdr = (n: number): TokenCdr => ({
    transaction: TokenTx.VALIDATE,
    status: 'successful',
    tokenHash: `${n}`.padStart(16, '0') + '0'.repeat(48),
    msisdn: '353871234567',
  });
  let tenantId: number;

  beforeAll(async () => {
    t = await createTestDb();
    await importDataset(t.db, baseDataset(), clock);
    tenantId = (await findClientByUsername(t.db, 'portal'))!.tenantId;
  });
  afterAll(() => t.destroy());

  it('writes on its own within the flush interval, one batch INSERT per full batch', async () => {
    const writer = new CdrBatchWriter(t.db, undefined, { flushIntervalMs: 20, batchMax: 7 });
    const rec = new CdrRecorder(clock);
    const before = Number((await t.db('cdrs').count({ n: '*' }))[0].n);
    for (let i = 0; i < 23; i++) await writer.add(rec.tokenRow({ tenantId, actor: 'w' }, cdr(i)));
    await waitFor(async () => Number((await t.db('cdrs').count({ n: '*' }))[0].n) === before + 23, {
      what: 'the 23 buffered CDRs written',
    });
    const ids = await t.db('cdrs').where({ actor: 'w' }).orderBy('id').pluck('record_id');
    expect(ids).toEqual(Array.from({ length: 23 }, (_, i) => `${i}`.padStart(16, '0')));
  });

  it('keeps a failed batch for the next flush and gives it up, logged, after the last attempt', async () => {
    const errors: unknown[] = [];
    const logger = createLogger('silent') as Logger;
    jest.spyOn(logger, 'error').mockImplementation(((obj: unknown) => errors.push(obj)) as never);
    const writer = new CdrBatchWriter(t.db, logger, { flushIntervalMs: 60_000 });
    const rec = new CdrRecorder(clock);
    // No such tenant: the foreign key refuses the batch.
    await writer.add({ ...rec.tokenRow({ tenantId: 999_999, actor: 'x' }, cdr(1)) });
    await writer.flush();
    expect(writer.pending).toBe(1);
    await writer.flush();
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(writer.dropped).toBe(1);
    expect(errors).toHaveLength(3);
    expect(errors[2]).toMatchObject({ cdrs: 1, retried: 0, dropped: 1 });
  });
});
