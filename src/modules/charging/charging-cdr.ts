import { Knex } from 'knex';
import { runInRequestScope, remainingMs } from '../../lib/request-scope';
import { withTimeout } from '../../lib/wait';
import { Logger } from '../../logger';
import { CdrRecorder, ChargingCdr } from '../cdrs/cdr.recorder';
import {
  ChargingCaller,
  OperationKind,
  RatingOutcome,
  Settled,
  cdrResultOf,
  outcome,
  unrecorded,
} from './charging-outcome';
import {
  ParsedRatingRequest,
  RatingRequest,
  RatingRequestFacts,
  RatingRequestInput,
  TransportRefusal,
  factsOf,
} from './rating-request';

/** What writes charging CDRs: the database, the recorder, RATING_TIMEOUT_MS (ms) and the logger. */
export interface ChargingCdrDeps {
  knex: Knex;
  cdrs: CdrRecorder;
  timeoutMs: number;
  logger: Logger;
}

/**
 * The charging CDR frame (docs/contract.md §4): every rating and refund outcome gets one
 * charging CDR. An outcome decided inside the operation's transaction has it written there (see
 * {@link writeCdrInTransaction}; `run` then answers `cdrWritten`); any other (a refusal by the
 * rules or at the transport, busy subscriber, a failure that rolled the transaction back, the
 * deadline) gets it here in a statement of its own, bounded by RATING_TIMEOUT_MS of its own; the
 * outcome is answered once it is written or at the request's deadline, whichever comes first (the
 * write goes on). A CDR that cannot be written then (the database is down) is logged and the
 * outcome still answered. A refused request's CDR records `refused`: the typed request (its keys
 * as given) or a transport refusal's facts.
 */
export async function withChargingCdr(
  deps: ChargingCdrDeps,
  caller: ChargingCaller,
  kind: ChargingCdr['kind'],
  parsed: ParsedRatingRequest,
  refused: RatingRequestInput | RatingRequestFacts,
  run: () => Promise<Settled>,
): Promise<RatingOutcome> {
  const settled = await run();
  if (!settled.cdrWritten) {
    const keys = parsed.ok ? keysOf(parsed.request) : 'ratingParams' in refused ? factsOf(refused) : refused;
    await writeBeforeAnswer(deps.timeoutMs, () =>
      deps.cdrs
        .charging(deps.knex, caller, { kind, ...keys, ...cdrResultOf(settled.outcome) })
        .catch((err: unknown) =>
          deps.logger.error({ err, operationId: keys.operationId }, 'charging CDR not written'),
        ),
    );
  }
  return settled.outcome;
}

/**
 * Records a rating or refund request that the transport refused before it became a typed request
 * (a legacy REST body lacking a required field, with one of the wrong JSON type or a malformed
 * MSISDN; the REST edge decides the return code, docs/contract.md §4): a business outcome like a
 * refusal by the rules, with its charging CDR (the keys the body carried) and nothing charged.
 * Answers the refusal's return code.
 */
export function recordTransportRefusal(
  deps: ChargingCdrDeps,
  caller: ChargingCaller,
  kind: ChargingCdr['kind'],
  refusal: TransportRefusal,
): Promise<RatingOutcome> {
  const parsed: ParsedRatingRequest = { ok: false, returnCode: refusal.returnCode, reason: refusal.reason };
  return withChargingCdr(deps, caller, kind, parsed, refusal.facts, () =>
    Promise.resolve(unrecorded(outcome(refusal.returnCode))),
  );
}

/** The request keys a charging CDR records. */
function keysOf(r: RatingRequest): RatingRequestFacts {
  return { operationId: r.operationId, msisdn: r.msisdn, lookup: r.lookup };
}

/**
 * The CDR kind of a ledger kind: a `charge` is a rating.
 */
function cdrKind(kind: OperationKind): ChargingCdr['kind'] {
  return kind === 'charge' ? 'rating' : 'refund';
}

/**
 * Writes the charging CDR of `o` in the operation's transaction `trx`, so it commits or rolls
 * back with the outcome; a `replayed` outcome moved nothing (its CDR has no amount).
 */
export async function writeCdrInTransaction(
  cdrs: CdrRecorder,
  trx: Knex.Transaction,
  caller: ChargingCaller,
  kind: OperationKind,
  r: RatingRequest,
  o: RatingOutcome,
  replayed: boolean,
): Promise<RatingOutcome> {
  await cdrs.charging(trx, caller, {
    kind: cdrKind(kind),
    ...keysOf(r),
    ...cdrResultOf(o),
    ...(replayed ? { amount: null } : {}),
  });
  return o;
}

/**
 * Writes, in a statement of its own, the charging CDR of a request that lost the race for its
 * operationId: it moved nothing, so its CDR records the winner's outcome without an amount. A
 * failed write is logged, not thrown.
 */
export async function writeCdrOfLostRace(
  deps: ChargingCdrDeps,
  caller: ChargingCaller,
  kind: OperationKind,
  r: RatingRequest,
  o: RatingOutcome,
): Promise<void> {
  await deps.cdrs
    .charging(deps.knex, caller, { kind: cdrKind(kind), ...keysOf(r), ...cdrResultOf(o), amount: null })
    .catch((e: unknown) =>
      deps.logger.error({ err: e, operationId: r.operationId }, 'charging CDR not written'),
    );
}

/**
 * Starts `write` under a budget of its own (`budgetMs`: the database may be why the operation
 * failed) and waits for it only until the request's deadline, so that it never makes the answer
 * late; the write goes on after that. `write` must not reject (log its failure itself).
 */
async function writeBeforeAnswer(budgetMs: number, write: () => Promise<void>): Promise<void> {
  const left = remainingMs();
  const written = runInRequestScope(budgetMs, write);
  if (left === Infinity) await written;
  else if (left > 0) await withTimeout(written, left).catch(() => undefined);
}
