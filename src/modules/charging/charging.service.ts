import type { KeysetPage } from '../../db/keyset';
import { performance } from 'node:perf_hooks';
import { Knex } from 'knex';
import {
  databaseFailureOf,
  isUniqueViolation,
  retryingTransaction,
  transactionConflictOf,
} from '../../db/knex';
import { BadUserInputError, DatabaseTimeoutError, NotFoundError, isDeadlineStop } from '../../errors';
import { BulkheadTimeoutError, KeyedBulkhead } from '../../lib/bulkhead';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { Money, MoneyFormatError } from '../../lib/money';
import { requireMsisdn } from '../../lib/msisdn';
import { currentScope, remainingMs, runInRequestScope, withDeadline } from '../../lib/request-scope';
import { withTimeout } from '../../lib/wait';
import { Logger } from '../../logger';
import { CdrRecorder, ChargingCdr } from '../cdrs/cdr.recorder';
import { EventType, occurredAt } from '../events/event-catalogue';
import { recordEvent } from '../events/outbox.store';
import { Subscriber, findSubscriber, findSubscriberForUpdate } from '../subscribers/subscriber.store';
import {
  ChargeKind,
  ChargeRow,
  RatingRow,
  WILDCARD,
  addToBalance,
  countCharges,
  countRatings,
  debitIfCovered,
  findCharge,
  findChargeById,
  findRatingById,
  insertCharge,
  listCharges,
  listRatings,
  ratingsFor,
  readBalance,
  upsertRating,
} from './charging.store';
import {
  ParsedRatingRequest,
  RatingLookup,
  RatingRequest,
  RatingRequestFacts,
  RatingRequestInput,
  TransportRefusal,
  factsOf,
  fingerprint,
  parseRatingRequest,
} from './rating-request';
import { ReturnCode, ReturnCodeValue } from './return-codes';

/** The outcome of processRating / processRefund (CONTRACT §4). Amounts exact, in `currency`. */
export interface RatingOutcome {
  returnCode: ReturnCodeValue;
  operationId: string | null;
  /** Charged (rating) or credited (refund) amount; null when nothing moved. */
  chargedAmount: Money | null;
  /** Balance after the operation; null when no subscriber balance is involved. */
  balance: Money | null;
  currency: string | null;
}

/** The caller's tenant and, for the charging CDR, the API client's username (`actor`). */
export interface ChargingCaller {
  tenantId: number;
  actor?: string;
}

/** Whether the running operation's charging CDR was written in its transaction (see ChargingService.withCdr). */
interface CdrState {
  written: boolean;
}

/** Where an operation was when an infrastructure error hit it; decides the return code. */
type Stage = 'replay' | 'lookup' | 'rating' | 'charging' | 'commit';

/** Records a decided outcome of the running operation in the ledger and returns it (see runOperation). */
type RecordOutcome = (
  code: ReturnCodeValue,
  sub: Subscriber | null,
  amount?: Money,
  balance?: Money,
) => Promise<RatingOutcome>;

/** The part of an operation that differs between rating and refund, run inside its transaction. */
type OperationBody = (
  trx: Knex.Transaction,
  r: RatingRequest,
  record: RecordOutcome,
  stage: (s: Stage) => void,
) => Promise<RatingOutcome>;

class DeadlineExceeded extends Error {}

/**
 * The return code of an operation that failed on infrastructure (CONTRACT §4, §8): past the
 * deadline 5001 (rolled back); a COMMIT whose outcome is unknown 5000 (a retry with the same
 * operationId answers the recorded outcome); before charging, an unreachable database 2002 and a
 * timed-out one 2003; the catalogue 3002; the balance/ledger write 4000; anything else 5000.
 */
function failureCode(err: unknown, stage: Stage, pastDeadline: boolean): ReturnCodeValue {
  if (err instanceof DatabaseTimeoutError && err.commit) return ReturnCode.UNKNOWN_ERROR;
  if (pastDeadline) return ReturnCode.INTERNAL_TIMEOUT;
  const failure = databaseFailureOf(err);
  if (stage === 'replay' || stage === 'lookup') {
    if (failure === 'timeout' || err instanceof BulkheadTimeoutError)
      return ReturnCode.SUBSCRIBER_REPOSITORY_TIMEOUT;
    if (failure === 'unreachable' || stage === 'lookup') return ReturnCode.SUBSCRIBER_REPOSITORY_ERROR;
    return ReturnCode.UNKNOWN_ERROR;
  }
  if (stage === 'rating') return ReturnCode.RATING_ERROR;
  // A certification conflict at COMMIT rolled back: the outcome is known (nothing charged).
  if (stage === 'charging' || (stage === 'commit' && (failure === undefined || transactionConflictOf(err))))
    return ReturnCode.CHARGING_ERROR;
  return ReturnCode.UNKNOWN_ERROR;
}

/**
 * The most specific matching catalogue entry of `kind` (CONTRACT §4): each optional key matches
 * its value or the wildcard; more exact keys win, and on a tie serviceId weighs most, then
 * originId, then bundleId.
 */
export function bestMatch(
  ratings: RatingRow[],
  lookup: RatingLookup,
  kind: RatingRow['kind'],
): RatingRow | undefined {
  const matches = (stored: string, wanted: string | null) => stored === WILDCARD || stored === wanted;
  const score = (r: RatingRow) =>
    (r.serviceId !== WILDCARD ? 4 : 0) +
    (r.originId !== WILDCARD ? 2 : 0) +
    (r.bundleId !== WILDCARD ? 1 : 0);
  return ratings
    .filter(
      (r) =>
        r.kind === kind &&
        matches(r.serviceId, lookup.serviceId) &&
        matches(r.originId, lookup.originId) &&
        matches(r.bundleId, lookup.bundleId),
    )
    .sort((a, b) => score(b) - score(a))[0];
}

const outcome = (returnCode: ReturnCodeValue, operationId: string | null = null): RatingOutcome => ({
  returnCode,
  operationId,
  chargedAmount: null,
  balance: null,
  currency: null,
});

function fromLedger(row: ChargeRow): RatingOutcome {
  const moved = row.returnCode === ReturnCode.SUCCESS;
  return {
    returnCode: row.returnCode as ReturnCodeValue,
    operationId: row.operationId,
    chargedAmount: moved ? row.amount : null,
    balance: row.balanceAfter,
    currency: row.currency,
  };
}

/**
 * Charging of subscriber accounts (CONTRACT §4, spec 4.3): rating, exactly-once charging and
 * refunds, ledger reads and ADMIN provisioning. All writes of one operation happen in one
 * transaction; a repeat of an operationId is answered from the ledger.
 */
export class ChargingService {
  /** One operation per subscriber at a time holds a database connection (issue 10 bulkheads). */
  private readonly bulkhead = new KeyedBulkhead(1);
  /** Charging CDRs (issue 12 part 5). */
  private readonly cdrs: CdrRecorder;

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.cdrs = new CdrRecorder(clock);
  }

  /**
   * Rates and charges one typed request (spec 2.4). Order: validation (see parseRatingRequest;
   * nothing is charged), replay of a recorded operationId (same fingerprint: the first
   * outcome; different request: 2001), subscriber (unknown or not active 2000), catalogue
   * (provider/application unknown 2001, no content match 3001, download fee without transport
   * rating 3003), balance (prepaid short 1000; postpaid accumulates). Decided outcomes (0, 1000,
   * 2000, 3001, 3003) are recorded once per operationId. Infrastructure failures roll back and
   * map by stage (see failureCode): subscriber lookup 2002 (2003 when it timed out), rating 3002,
   * balance/ledger write 4000, anything else 5000. RATING_TIMEOUT_MS counts from the request's
   * arrival (authentication included); past it nothing is committed and the answer is 5001.
   * Every outcome gets its charging CDR (see withCdr).
   */
  processRating(caller: ChargingCaller, input: RatingRequestInput): Promise<RatingOutcome> {
    const parsed = parseRatingRequest(input);
    return this.withCdr(caller, 'rating', parsed, input, (cdr) =>
      !parsed.ok
        ? Promise.resolve(outcome(parsed.returnCode))
        : this.runOperation(caller, 'charge', parsed.request, cdr, (trx, r, record, stage) =>
            this.rate(trx, caller, r, record, stage),
          ),
    );
  }

  /**
   * Refunds the successful charge with the request's operationId and msisdn (CONTRACT §4):
   * validation as processRating, then a download fee in the request 3004; nothing to refund
   * 4001; otherwise the charged amount is credited back once (repeats answer 0 and credit nothing).
   */
  processRefund(caller: ChargingCaller, input: RatingRequestInput): Promise<RatingOutcome> {
    const parsed = parseRatingRequest(input);
    return this.withCdr(caller, 'refund', parsed, input, (cdr) => this.refund(caller, parsed, cdr));
  }

  /**
   * Records a rating or refund request that the transport refused before it became a typed
   * request (a legacy REST body lacking a required field, with one of the wrong JSON type or a
   * malformed MSISDN; the REST edge decides the return code, CONTRACT §4): a business outcome
   * like a refusal by the rules, with its charging CDR (the keys the body carried) and nothing
   * charged. Answers the refusal's return code.
   */
  recordTransportRefusal(
    caller: ChargingCaller,
    kind: ChargingCdr['kind'],
    refusal: TransportRefusal,
  ): Promise<RatingOutcome> {
    const parsed: ParsedRatingRequest = { ok: false, returnCode: refusal.returnCode, reason: refusal.reason };
    return this.withCdr(caller, kind, parsed, refusal.facts, () =>
      Promise.resolve(outcome(refusal.returnCode)),
    );
  }

  /** processRefund past the charging CDR frame. */
  private refund(caller: ChargingCaller, parsed: ParsedRatingRequest, cdr: CdrState): Promise<RatingOutcome> {
    if (!parsed.ok) return Promise.resolve(outcome(parsed.returnCode));
    const r = parsed.request;
    if (r.preRating && !r.preRating.downloadFeeWot.isZero())
      return Promise.resolve(outcome(ReturnCode.DOWNLOAD_FEE_IN_REFUND, r.operationId));
    return this.runOperation(caller, 'refund', r, cdr, async (trx, req, record, stage) => {
      const charge = await findCharge(trx, caller.tenantId, 'charge', req.operationId);
      if (!charge || charge.returnCode !== ReturnCode.SUCCESS || charge.msisdn !== req.msisdn)
        return outcome(ReturnCode.REFUND_FAILED, req.operationId);
      stage('lookup');
      const sub = await findSubscriberForUpdate(trx, caller.tenantId, req.msisdn);
      if (!sub) return outcome(ReturnCode.REFUND_FAILED, req.operationId);
      stage('charging');
      await addToBalance(trx, sub.id, charge.amount);
      return record(ReturnCode.SUCCESS, sub, charge.amount, await readBalance(trx, sub.id));
    });
  }

  /**
   * The charging CDR frame (issue 12 part 5): every rating and refund outcome gets one charging
   * CDR. An outcome decided inside the operation's transaction has it written there (see
   * transact); any other (a refusal by the rules or at the transport, busy subscriber, a failure
   * that rolled the transaction back, the deadline) gets it here in a statement of its own,
   * bounded by RATING_TIMEOUT_MS of its own; the outcome is answered once it is written or at the
   * request's deadline, whichever comes first (the write goes on). A CDR that cannot be written
   * then (the database is down) is logged and the outcome still answered. A refused request's
   * CDR records `refused`: the typed request (its keys as given) or a transport refusal's facts.
   */
  private async withCdr(
    caller: ChargingCaller,
    kind: ChargingCdr['kind'],
    parsed: ParsedRatingRequest,
    refused: RatingRequestInput | RatingRequestFacts,
    run: (cdr: CdrState) => Promise<RatingOutcome>,
  ): Promise<RatingOutcome> {
    const cdr: CdrState = { written: false };
    const result = await run(cdr);
    if (!cdr.written) {
      const keys = parsed.ok
        ? {
            operationId: parsed.request.operationId,
            msisdn: parsed.request.msisdn,
            lookup: parsed.request.lookup,
          }
        : 'ratingParams' in refused
          ? factsOf(refused)
          : refused;
      // The write has its own budget (the database may be why the operation failed); the answer
      // waits for it only until the request's deadline, so it never makes the outcome late.
      const left = remainingMs();
      const written = runInRequestScope(this.timeoutMs, () =>
        this.cdrs.charging(this.db, caller, { kind, ...keys, ...this.moved(result) }),
      ).catch((err: unknown) =>
        this.logger.error({ err, operationId: keys.operationId }, 'charging CDR not written'),
      );
      if (left === Infinity) await written;
      else if (left > 0) await withTimeout(written, left).catch(() => undefined);
    }
    return result;
  }

  /** The CDR's result fields of an outcome: its returnCode, the amount moved, currency and balance after. */
  private moved(
    result: RatingOutcome,
  ): Pick<ChargingCdr, 'returnCode' | 'amount' | 'currency' | 'balanceAfter'> {
    return {
      returnCode: result.returnCode,
      amount: result.chargedAmount,
      currency: result.currency,
      balanceAfter: result.balance,
    };
  }

  private async rate(
    trx: Knex.Transaction,
    caller: ChargingCaller,
    r: RatingRequest,
    record: RecordOutcome,
    stage: (s: Stage) => void,
  ): Promise<RatingOutcome> {
    stage('lookup');
    const sub = await findSubscriberForUpdate(trx, caller.tenantId, r.msisdn);
    if (!sub || sub.status !== 'active') return record(ReturnCode.INVALID_NUMBER, null);
    stage('rating');
    const ratings = await ratingsFor(trx, caller.tenantId, r.lookup.providerId, r.lookup.applicationId);
    if (ratings.length === 0) return outcome(ReturnCode.INVALID_PARAMETER, r.operationId);
    let amount: Money;
    if (r.preRating) {
      amount = r.preRating.totalPrice;
      if (!r.preRating.downloadFeeWot.isZero() && !bestMatch(ratings, r.lookup, 'transport'))
        return record(ReturnCode.MISSING_TRANSPORT_RATING, sub);
    } else {
      const content = bestMatch(ratings, r.lookup, 'content');
      if (!content) return record(ReturnCode.NO_RATING_MATCH, sub);
      amount = content.retailPrice.add(content.tax);
    }
    stage('charging');
    if (sub.paymentType === 'prepaid') {
      if (!(await debitIfCovered(trx, sub.id, amount)))
        return record(ReturnCode.INSUFFICIENT_FUNDS, sub, Money.ZERO, sub.balance);
    } else {
      await addToBalance(trx, sub.id, Money.ZERO.sub(amount));
    }
    return record(ReturnCode.SUCCESS, sub, amount, await readBalance(trx, sub.id));
  }

  /** Shared exactly-once frame: replay, deadline, one transaction, failure mapping by stage. */
  private async runOperation(
    caller: ChargingCaller,
    kind: ChargeKind,
    r: RatingRequest,
    cdr: CdrState,
    body: OperationBody,
  ): Promise<RatingOutcome> {
    return withDeadline(this.timeoutMs, () =>
      this.bulkheaded(caller, kind, r, (deadline) => this.transact(caller, kind, r, deadline, cdr, body)),
    );
  }

  /** Waits (off the pool) for the subscriber's turn, at most until the deadline. */
  private async bulkheaded(
    caller: ChargingCaller,
    kind: ChargeKind,
    r: RatingRequest,
    run: (deadline: number) => Promise<RatingOutcome>,
  ): Promise<RatingOutcome> {
    const deadline = currentScope()!.deadlineMs;
    try {
      return await this.bulkhead.run(`${caller.tenantId}:${r.msisdn}`, deadline - performance.now(), () =>
        run(deadline),
      );
    } catch (err) {
      if (!(err instanceof BulkheadTimeoutError)) throw err;
      this.logger.warn({ operationId: r.operationId, kind }, 'subscriber busy past the deadline');
      return outcome(ReturnCode.SUBSCRIBER_REPOSITORY_TIMEOUT, r.operationId);
    }
  }

  /** One exactly-once transaction: replay, the operation's body, the ledger record, the deadline. */
  private async transact(
    caller: ChargingCaller,
    kind: ChargeKind,
    r: RatingRequest,
    deadline: number,
    cdr: CdrState,
    body: OperationBody,
  ): Promise<RatingOutcome> {
    const fp = fingerprint(kind, r);
    const checkDeadline = () => {
      if (performance.now() > deadline) throw new DeadlineExceeded();
    };
    const replay = (row: ChargeRow) =>
      row.fingerprint === fp ? fromLedger(row) : outcome(ReturnCode.INVALID_PARAMETER, r.operationId);
    let stage = 'replay' as Stage;
    try {
      // A deadlock or certification conflict reruns the whole attempt from the replay check.
      const result = await retryingTransaction(this.db, async (trx) => {
        stage = 'replay';
        // The outcome's charging CDR, in this transaction (a replay moved nothing).
        const withCdr = async (o: RatingOutcome, replayed = false) => {
          await this.cdrs.charging(trx, caller, {
            kind: kind === 'charge' ? 'rating' : 'refund',
            operationId: r.operationId,
            msisdn: r.msisdn,
            lookup: r.lookup,
            ...this.moved(o),
            ...(replayed ? { amount: null } : {}),
          });
          return o;
        };
        const existing = await findCharge(trx, caller.tenantId, kind, r.operationId);
        if (existing) return withCdr(replay(existing), true);
        const record: RecordOutcome = async (code, sub, amount = Money.ZERO, balance) => {
          checkDeadline();
          stage = 'charging';
          await insertCharge(trx, {
            tenantId: caller.tenantId,
            kind,
            operationId: r.operationId,
            msisdn: r.msisdn,
            fingerprint: fp,
            returnCode: code,
            amount,
            balanceAfter: balance ?? null,
            currency: sub?.currency ?? null,
            reason: null,
            createdAt: this.clock.nowMs(),
          });
          // Issue 12 part 1: the event commits (or rolls back) with the ledger row.
          if (code === ReturnCode.SUCCESS && sub)
            await recordEvent(trx, this.clock, {
              tenantId: caller.tenantId,
              type: kind === 'refund' ? EventType.refundCompleted : EventType.chargeCompleted,
              subject: sub.msisdn,
              payload: {
                operationId: r.operationId,
                msisdn: sub.msisdn,
                amount: amount.toString(),
                balance: (balance ?? sub.balance).toString(),
                currency: sub.currency,
                occurredAt: occurredAt(this.clock.nowMs()),
              },
            });
          checkDeadline();
          return {
            returnCode: code,
            operationId: r.operationId,
            chargedAmount: code === ReturnCode.SUCCESS ? amount : null,
            balance: balance ?? null,
            currency: sub?.currency ?? null,
          };
        };
        const result = await body(trx, r, record, (s) => {
          checkDeadline();
          stage = s;
        });
        checkDeadline();
        await withCdr(result);
        checkDeadline();
        stage = 'commit';
        return result;
      });
      cdr.written = true;
      return result;
    } catch (err) {
      if (err instanceof DeadlineExceeded) return outcome(ReturnCode.INTERNAL_TIMEOUT, r.operationId);
      if (isUniqueViolation(err)) {
        // Another request recorded this operationId first; its outcome stands.
        const winner = await findCharge(this.db, caller.tenantId, kind, r.operationId).catch(() => undefined);
        if (winner) {
          const o = replay(winner);
          // This request moved nothing: its CDR records the outcome without an amount.
          await this.cdrs
            .charging(this.db, caller, {
              kind: kind === 'charge' ? 'rating' : 'refund',
              operationId: r.operationId,
              msisdn: r.msisdn,
              lookup: r.lookup,
              ...this.moved(o),
              amount: null,
            })
            .catch((e: unknown) =>
              this.logger.error({ err: e, operationId: r.operationId }, 'charging CDR not written'),
            );
          cdr.written = true;
          return o;
        }
      }
      this.logger.error({ err, stage, operationId: r.operationId }, 'charging operation failed');
      // A statement stopped by the deadline's own timer may fire a hair before the clock passes it.
      const pastDeadline = performance.now() > deadline || isDeadlineStop(err);
      return outcome(failureCode(err, stage, pastDeadline), r.operationId);
    }
  }

  /**
   * A subscriber of the tenant by MSISDN (with or without `+`).
   * @throws BadUserInputError for a malformed MSISDN.
   */
  async subscriber(caller: ChargingCaller, msisdn: string): Promise<Subscriber | undefined> {
    return findSubscriber(this.db, caller.tenantId, requireMsisdn(msisdn, 'msisdn'));
  }

  /**
   * One page of a subscriber's ledger (list order newest first; see src/db/keyset.ts), in the
   * caller's tenant; `msisdn` canonical. Reads `page.limit + 1` rows, the extra one saying that
   * more follow (what `connectionFromRows` expects). Empty for an unknown subscriber.
   */
  chargePage(caller: ChargingCaller, msisdn: string, page: KeysetPage<number>): Promise<ChargeRow[]> {
    return listCharges(this.db, caller.tenantId, msisdn, page);
  }

  /** How many ledger entries a subscriber of the caller's tenant has (`msisdn` canonical). */
  chargeCount(caller: ChargingCaller, msisdn: string): Promise<number> {
    return countCharges(this.db, caller.tenantId, msisdn);
  }

  /** A ledger entry of the caller's tenant by its row id, or undefined. */
  charge(caller: ChargingCaller, id: number): Promise<ChargeRow | undefined> {
    return findChargeById(this.db, caller.tenantId, id);
  }

  /** One page of the caller's rating catalogue (list order by id; see src/db/keyset.ts): `page.limit + 1` rows at most. */
  ratings(caller: ChargingCaller, page: KeysetPage<number>): Promise<RatingRow[]> {
    return listRatings(this.db, caller.tenantId, page);
  }

  /** How many catalogue entries the caller's tenant has. */
  ratingCount(caller: ChargingCaller): Promise<number> {
    return countRatings(this.db, caller.tenantId);
  }

  /** A catalogue entry of the caller's tenant by its row id, or undefined. */
  rating(caller: ChargingCaller, id: number): Promise<RatingRow | undefined> {
    return findRatingById(this.db, caller.tenantId, id);
  }

  /**
   * ADMIN: creates or updates a catalogue entry (absent optional keys are wildcards).
   * @throws BadUserInputError naming the offending field.
   */
  async upsertRating(
    caller: ChargingCaller,
    input: {
      providerId: string;
      applicationId: string;
      serviceId?: string | null;
      originId?: string | null;
      bundleId?: string | null;
      kind: string;
      /** Decimal string or Money; non-negative. */
      retailPrice: string | Money;
      /** Decimal string or Money; non-negative. */
      tax: string | Money;
    },
  ): Promise<RatingRow> {
    const fields: { field: string; description: string }[] = [];
    for (const k of ['providerId', 'applicationId'] as const)
      if (!/^[^\s*]{1,64}$/.test(input[k]))
        fields.push({ field: k, description: '1-64 characters, no spaces' });
    for (const k of ['serviceId', 'originId', 'bundleId'] as const) {
      const v = input[k];
      if (v !== null && v !== undefined && !/^[^\s]{1,64}$/.test(v))
        fields.push({ field: k, description: '1-64 characters or *' });
    }
    if (input.kind !== 'content' && input.kind !== 'transport')
      fields.push({ field: 'kind', description: 'content or transport' });
    const prices: Partial<Record<'retailPrice' | 'tax', Money>> = {};
    for (const k of ['retailPrice', 'tax'] as const) {
      const v = input[k];
      if (v instanceof Money ? v.isNegative() : !Money.isValid(v))
        fields.push({ field: k, description: 'non-negative decimal, at most 6 fractional digits' });
      else prices[k] = v instanceof Money ? v : Money.parse(v);
    }
    if (fields.length) throw new BadUserInputError(`invalid rating: ${fields[0].field}`, fields);
    return (
      await upsertRating(
        this.db,
        {
          tenantId: caller.tenantId,
          providerId: input.providerId,
          applicationId: input.applicationId,
          serviceId: input.serviceId ?? WILDCARD,
          originId: input.originId ?? WILDCARD,
          bundleId: input.bundleId ?? WILDCARD,
          kind: input.kind as RatingRow['kind'],
          retailPrice: prices.retailPrice!,
          tax: prices.tax!,
        },
        this.clock.nowMs(),
      )
    ).row;
  }

  /**
   * ADMIN: adds a signed decimal `amount` (a string or a Money, in the subscriber's currency) to a
   * balance with a reason, written to the ledger as an `adjustment`. A prepaid balance may not go
   * below zero. Returns the subscriber with its new balance and the ledger entry written.
   * @throws BadUserInputError naming `amount` (not a decimal, or a prepaid overdraft) or `reason`
   *   (blank or over 255 characters); NotFoundError (no such subscriber in the caller's tenant).
   */
  async adjustBalance(
    caller: ChargingCaller,
    msisdn: string,
    amount: string | Money,
    reason: string,
  ): Promise<{ subscriber: Subscriber; charge: ChargeRow }> {
    let delta: Money;
    try {
      delta = amount instanceof Money ? amount : Money.parse(amount, { allowNegative: true });
    } catch (err) {
      if (err instanceof MoneyFormatError)
        throw new BadUserInputError('amount is not a decimal', [
          { field: 'amount', description: 'signed decimal, at most 6 fractional digits' },
        ]);
      throw err;
    }
    if (!reason.trim() || reason.length > 255)
      throw new BadUserInputError('reason is required', [
        { field: 'reason', description: '1-255 characters' },
      ]);
    const m = requireMsisdn(msisdn, 'msisdn');
    return retryingTransaction(this.db, async (trx) => {
      const sub = await findSubscriberForUpdate(trx, caller.tenantId, m);
      if (!sub)
        throw new NotFoundError(`subscriber ${m} not found`, {
          fields: [{ field: 'msisdn', description: 'names no subscriber of your tenant' }],
        });
      if (delta.isNegative() && sub.paymentType === 'prepaid') {
        if (!(await debitIfCovered(trx, sub.id, Money.ZERO.sub(delta)))) {
          throw new BadUserInputError('a prepaid balance cannot go below zero', [
            { field: 'amount', description: 'exceeds the prepaid balance' },
          ]);
        }
      } else {
        await addToBalance(trx, sub.id, delta);
      }
      const balance = await readBalance(trx, sub.id);
      const entry: Omit<ChargeRow, 'id'> = {
        tenantId: caller.tenantId,
        kind: 'adjustment',
        operationId: newId(),
        msisdn: m,
        fingerprint: null,
        returnCode: ReturnCode.SUCCESS,
        amount: delta,
        balanceAfter: balance,
        currency: sub.currency,
        reason,
        createdAt: this.clock.nowMs(),
      };
      const id = await insertCharge(trx, entry);
      await recordEvent(trx, this.clock, {
        tenantId: caller.tenantId,
        type: EventType.balanceAdjusted,
        subject: m,
        payload: {
          msisdn: m,
          amount: delta.toString(),
          balance: balance.toString(),
          currency: sub.currency,
          reason,
          occurredAt: occurredAt(this.clock.nowMs()),
        },
      });
      return { subscriber: { ...sub, balance }, charge: { ...entry, id } };
    });
  }
}
