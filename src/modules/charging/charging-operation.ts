import { Knex } from 'knex';
import { isUniqueViolation } from '../../db/knex';
import { KeyedBulkhead } from '../../lib/bulkhead';
import { Clock } from '../../lib/clock';
import { Money } from '../../lib/money';
import { DeadlineExceededError, assertBeforeDeadline, withDeadline } from '../../lib/request-scope';
import { EventType, occurredAt } from '../events/event-catalogue';
import { recordEvent } from '../events/outbox.store';
import { Subscriber } from '../subscribers/subscriber.store';
import { ChargingCdrDeps, writeCdrInTransaction, writeCdrOfLostRace } from './charging-cdr';
import {
  Committing,
  Stage,
  atStage,
  attemptInTransaction,
  failureCode,
  isPastDeadline,
} from './charging-failure';
import {
  ChargingCaller,
  OperationKind,
  RatingOutcome,
  Settled,
  fromLedger,
  outcome,
  unrecorded,
} from './charging-outcome';
import { ChargeRow, findCharge, insertCharge } from './charging.store';
import { RatingRequest, fingerprint } from './rating-request';
import { ReturnCode, ReturnCodeValue } from './return-codes';

/**
 * The exactly-once frame that rating and refund share (docs/contract.md §4): RATING_TIMEOUT_MS,
 * one operation per subscriber at a time, one transaction (read the recorded operationId → the
 * operation's own steps → its charging CDR → COMMIT), and the mapping of failures to return codes.
 */

/** What an operation needs: the CDR writer's needs, the clock and the per-subscriber bulkhead. */
export interface OperationDeps extends ChargingCdrDeps {
  clock: Clock;
  /** One operation per subscriber at a time holds a database connection. */
  bulkhead: KeyedBulkhead;
}

/** One rating or refund being run: who asks, the ledger kind and the request. */
export interface Operation {
  caller: ChargingCaller;
  kind: OperationKind;
  request: RatingRequest;
  /** The request's fingerprint: a repeat of the operationId with another request answers 2001. */
  fingerprint: string;
}

/** What an operation's own steps decided, and the stage its last step reached (its CDR's stage). */
export interface Decided {
  outcome: RatingOutcome;
  stage: Stage;
}

/** An operation's own steps (read → judge → write), run in its transaction after the replay check. */
export type Decide = (trx: Knex.Transaction, op: Operation) => Promise<Decided>;

/**
 * Runs `decide` exactly once per operationId: under RATING_TIMEOUT_MS (the request scope's
 * deadline tightened to it, counted from the request's arrival; outside a request from now),
 * after the subscriber's turn (busy past the deadline: 2003), in one transaction that first
 * answers a recorded operationId from the ledger. Past the deadline nothing is committed: the
 * steps stop at {@link assertBeforeDeadline} (`operation`) and the answer is 5001. Failures never
 * throw: they map to return codes (see failureCode).
 */
export function runOperation(
  deps: OperationDeps,
  caller: ChargingCaller,
  kind: OperationKind,
  r: RatingRequest,
  decide: Decide,
): Promise<Settled> {
  return withDeadline(deps.timeoutMs, () =>
    bulkheaded(deps, caller, kind, r, () =>
      transact(deps, { caller, kind, request: r, fingerprint: fingerprint(kind, r) }, decide),
    ),
  );
}

/** Waits (off the pool) for the subscriber's turn, at most until the deadline. */
async function bulkheaded(
  deps: OperationDeps,
  caller: ChargingCaller,
  kind: OperationKind,
  r: RatingRequest,
  run: () => Promise<Settled>,
): Promise<Settled> {
  try {
    return await deps.bulkhead.run(`${caller.tenantId}:${r.msisdn}`, run);
  } catch (err) {
    if (!(err instanceof DeadlineExceededError && err.where === 'bulkhead')) throw err;
    deps.logger.warn({ operationId: r.operationId, kind }, 'subscriber busy past the deadline');
    return unrecorded(outcome(ReturnCode.SUBSCRIBER_REPOSITORY_TIMEOUT, r.operationId));
  }
}

/** The operation's transaction, then what its failure (if any) answers. */
async function transact(deps: OperationDeps, op: Operation, decide: Decide): Promise<Settled> {
  const ended = await attemptInTransaction(deps.knex, (trx) => attempt(deps, trx, op, decide));
  if (ended.ok) return { outcome: ended.value, cdrWritten: true };
  return settleFailure(deps, op, ended.err, ended.stage);
}

/**
 * One attempt, straight through: read the recorded operationId (a replay answers it, and its
 * COMMIT counts as part of the replay), run the operation's steps, write the outcome's charging
 * CDR. A deadlock reruns the whole attempt.
 */
async function attempt(
  deps: OperationDeps,
  trx: Knex.Transaction,
  op: Operation,
  decide: Decide,
): Promise<Committing<RatingOutcome>> {
  const { caller, kind, request: r } = op;
  const existing = await atStage('replay', () => findCharge(trx, caller.tenantId, kind, r.operationId));
  if (existing) {
    const replayed = replayOf(op, existing);
    await atStage('replay', () => writeCdrInTransaction(deps.cdrs, trx, caller, kind, r, replayed, true));
    return { value: replayed, commitStage: 'replay' };
  }
  const decided = await decide(trx, op);
  assertBeforeDeadline('operation');
  await atStage(decided.stage, () =>
    writeCdrInTransaction(deps.cdrs, trx, caller, kind, r, decided.outcome, false),
  );
  assertBeforeDeadline('operation');
  return { value: decided.outcome, commitStage: 'commit' };
}

/** A recorded outcome of the operationId: the same request's first outcome, another request's 2001. */
function replayOf(op: Operation, row: ChargeRow): RatingOutcome {
  return row.fingerprint === op.fingerprint
    ? fromLedger(row)
    : outcome(ReturnCode.INVALID_PARAMETER, op.request.operationId);
}

/**
 * What a failed transaction answers: past the deadline 5001; another request that recorded the
 * operationId first wins (its outcome, and this request's CDR without an amount); anything else
 * is logged and mapped by the stage it hit.
 */
async function settleFailure(
  deps: OperationDeps,
  op: Operation,
  err: unknown,
  stage: Stage,
): Promise<Settled> {
  const { caller, kind, request: r } = op;
  // A step's own check rolled it back: 5001, nothing to log.
  if (err instanceof DeadlineExceededError && err.where === 'operation')
    return unrecorded(outcome(ReturnCode.INTERNAL_TIMEOUT, r.operationId));
  if (isUniqueViolation(err)) {
    const winner = await findCharge(deps.knex, caller.tenantId, kind, r.operationId).catch(() => undefined);
    if (winner) {
      const o = replayOf(op, winner);
      await writeCdrOfLostRace(deps, caller, kind, r, o);
      return { outcome: o, cdrWritten: true };
    }
  }
  deps.logger.error({ err, stage, operationId: r.operationId }, 'charging operation failed');
  return unrecorded(outcome(failureCode(err, stage, isPastDeadline(err)), r.operationId));
}

/** A decided outcome to record in the ledger (see {@link recordOutcome}). */
export interface Verdict {
  code: ReturnCodeValue;
  /** The subscriber charged or credited; null when the MSISDN names no active subscriber. */
  sub: Subscriber | null;
  /** Amount moved (default zero), in the subscriber's currency. */
  amount?: Money;
  /** Balance after the operation. */
  balance?: Money;
}

/**
 * Records a decided outcome once per operationId: its ledger row and, for a success, the
 * charge/refund event, which commits or rolls back with the row (docs/contract.md §4). Bounded by
 * the deadline before and after.
 */
export async function recordOutcome(
  deps: OperationDeps,
  trx: Knex.Transaction,
  op: Operation,
  v: Verdict,
): Promise<Decided> {
  assertBeforeDeadline('operation');
  const amount = v.amount ?? Money.ZERO;
  await atStage('charging', () => writeLedger(deps.clock, trx, op, { ...v, amount }));
  assertBeforeDeadline('operation');
  return {
    outcome: {
      returnCode: v.code,
      operationId: op.request.operationId,
      chargedAmount: v.code === ReturnCode.SUCCESS ? amount : null,
      balance: v.balance ?? null,
      currency: v.sub?.currency ?? null,
    },
    stage: 'charging',
  };
}

/** The ledger row of a verdict and, for a success, its event in the outbox. */
async function writeLedger(
  clock: Clock,
  trx: Knex.Transaction,
  op: Operation,
  v: Verdict & { amount: Money },
): Promise<void> {
  const { caller, kind, request: r } = op;
  await insertCharge(trx, {
    tenantId: caller.tenantId,
    kind,
    operationId: r.operationId,
    msisdn: r.msisdn,
    fingerprint: op.fingerprint,
    returnCode: v.code,
    amount: v.amount,
    balanceAfter: v.balance ?? null,
    currency: v.sub?.currency ?? null,
    reason: null,
    createdAt: clock.nowMs(),
  });
  const sub = v.sub;
  if (v.code !== ReturnCode.SUCCESS || !sub) return;
  await recordEvent(trx, clock, {
    tenantId: caller.tenantId,
    type: kind === 'refund' ? EventType.refundCompleted : EventType.chargeCompleted,
    subject: sub.msisdn,
    payload: {
      operationId: r.operationId,
      msisdn: sub.msisdn,
      amount: v.amount.toString(),
      balance: (v.balance ?? sub.balance).toString(),
      currency: sub.currency,
      occurredAt: occurredAt(clock.nowMs()),
    },
  });
}
