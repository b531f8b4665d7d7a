import { performance } from 'node:perf_hooks';
import { ApolloServerPlugin } from '@apollo/server';
import {
  DocumentNode,
  GraphQLError,
  GraphQLSchema,
  OperationDefinitionNode,
  getNullableType,
  getVariableValues,
  isListType,
  isObjectType,
} from 'graphql';
import { ComplexityEstimatorArgs, getComplexity } from 'graphql-query-complexity';
import { FieldError } from '../errors';
import { DeadlineExceededError, isDeadlineExceeded, remainingMs } from '../lib/request-scope';
import type { GatewayContext } from './context';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './relay';

/**
 * GraphQL limits (docs/contract.md §7), all in one place: every operation sent to `/graphql` is
 * priced and bounded before it runs, stopped at its deadline, and made to yield while it runs.
 *
 * - **Cost.** Every operation sent to `/graphql` gets a cost before it runs
 *   ({@link operationCost}): a field costs 1 plus its selection; a list field costs 1 plus its
 *   length times its selection, where the length is the page size asked for (`first`) or, for
 *   lists without a page size, the assumed length in {@link LIST_SIZES}. Aliases and fragment
 *   spreads are counted every time they appear. An operation over `GRAPHQL_MAX_COST` is refused
 *   before execution with `QUERY_TOO_COMPLEX` (HTTP 400).
 * - **Page sizes.** Every `first` argument is 1-{@link MAX_PAGE_SIZE}; another value is refused
 *   before execution with `BAD_USER_INPUT` (HTTP 400) naming the field.
 * - **Deadline.** The request's one deadline (the request scope, src/lib/request-scope.ts; on
 *   `/graphql` GRAPHQL_TIMEOUT_MS after the request arrived, set by src/http/deadline.ts): an
 *   operation still running then stops at its next {@link checkpoint} (DeadlineExceededError
 *   `graphql`), its database statements stop too, and the response is one error with
 *   `extensions.code` `TIMEOUT` (HTTP 504) and `data: null`; the location loaders issue no
 *   further query.
 * - **Yielding.** Resolvers of long lists call {@link checkpoint} and build long lists with
 *   {@link yieldingList}, so a heavy operation hands the event loop back every few
 *   milliseconds and probes stay fast while it runs.
 *
 * The legacy REST rows run fixed documents validated at start-up (src/rest/router.ts) and are
 * not subject to the cost rule or the GraphQL deadline (their size is bounded by the data, e.g.
 * the full location list); they do yield like every other execution.
 */

/** Largest page any list argument (`first`, `last`) accepts: the connections' bound (src/graphql/relay.ts). */
export const MAX_PAGE_SIZE = PAGE_SIZE_MAX;

/** Defaults of `GRAPHQL_MAX_COST` and `GRAPHQL_TIMEOUT_MS`, held by the configuration. */
export { DEFAULT_GRAPHQL_MAX_COST, DEFAULT_GRAPHQL_TIMEOUT_MS } from '../config/defaults';

/**
 * Documents with more syntax tokens than this are refused while parsing (a guard against huge
 * alias floods before validation even starts); Apollo answers `GRAPHQL_PARSE_FAILED`, HTTP 400.
 */
export const MAX_DOCUMENT_TOKENS = 10_000;

/**
 * Most field nodes (counting every alias and fragment spread) the cost estimator walks; past it
 * the operation is refused with `QUERY_TOO_COMPLEX`.
 */
export const MAX_QUERY_NODES = 5_000;

/**
 * Assumed length of every list field that takes no page size, `Type.field` → items. Values that
 * a configuration bounds (group size, plans per subscriber) are overridden from it by
 * {@link graphqlLimitsPlugin}. A unit test fails when a list field of the schema is missing here.
 */
export const LIST_SIZES: Readonly<Record<string, number>> = {
  /** The legacy full list: every location of the tenant (REST rows do not pay this). */
  'Query.locationList': 1000,
  /** The legacy unpaged child lists (`Location.rates`/`infos`/`profiles` are connections). */
  'Location.rateList': 10,
  /** Roaming zones hold one info per network: up to 457 in the demo dataset (Europe). */
  'Location.infoList': 500,
  'Location.profileList': 10,
  /**
   * MAX_GROUP_SIZE: a connection whose page without `first`/`last` is the whole group, so that
   * is its page size when neither is given.
   */
  'Group.members': 10,
  /** A bulk member write's members (at most 100 entries). */
  'AddGroupMembersPayload.groupMembers': 100,
  'RemoveGroupMembersPayload.deletedGroupMemberIds': 100,
  /** A plan definition allows at most 1000 recipients per period; 100 per donation assumed. */
  'Donation.recipients': 100,
  'RecurringDonation.recipients': 100,
  /** One user error per offending field: two per recipient of at most 100, a few more. */
  'ShareQuotaPayload.userErrors': 210,
  'CreateRecurringDonationPayload.userErrors': 210,
  /** At most 500 ids (counted as the ids given when they are known, see operationCost). */
  'Query.nodes': 500,
  /**
   * Apollo Federation's entity lookup: one entity per representation a router sends, at most
   * 500 (counted as the representations given, see operationCost; this length only when they are
   * unknown).
   */
  'Query._entities': 500,
  /** purchasePlan's user error path (its type is named `PurchasePlanError`, not `…UserError`). */
  'PurchasePlanError.field': 5,
};

/**
 * Lists inside a connection: one item per item of the page, which the connection's `first`
 * already counts.
 */
export const PAGE_LISTS: ReadonlySet<string> = new Set([
  'LocationConnection.edges',
  'ChargeConnection.nodes',
  'CdrConnection.nodes',
  /** The deprecated page view of `groups`. */
  'GroupConnection.nodes',
  /** Deprecated page-numbered list beside `edges`: one item per item of the page. */
  'RecurringDonationConnection.nodes',
]);

/**
 * Page size of the deprecated page-numbered SQS lists (`page` beside `first`/`last` on a
 * connection field): their published fixed page.
 */
const NUMBERED_PAGE_SIZE = 100;

/**
 * Connection fields whose page size (`first`, or `last` when paging backward; the connections'
 * default when neither is given) multiplies their whole selection, page info included (an upper
 * bound). Every `XConnection.edges` list counts one item per item of the page, like
 * {@link PAGE_LISTS}.
 */
const PAGE_SIZE_ARGS = ['first', 'last'] as const;

/** Assumed length of every mutation payload's `userErrors`: one entry per refused input field. */
export const USER_ERRORS_SIZE = 10;
/** Assumed length of a user error's `field` path (`["input", "members", "3", "quota"]`). */
export const USER_ERROR_FIELD_SIZE = 5;

/**
 * The assumed length of list field `key` (`Type.field`) without a page size: {@link LIST_SIZES}
 * (with `sizes` overriding it), every payload's `userErrors` and every user error's `field`
 * path; undefined for a list the table does not know.
 */
export function assumedListSize(
  key: string,
  sizes: Readonly<Record<string, number>> = LIST_SIZES,
): number | undefined {
  if (key in sizes) return sizes[key];
  if (/Payload\.userErrors$/.test(key)) return USER_ERRORS_SIZE;
  if (/UserError\.field$/.test(key)) return USER_ERROR_FIELD_SIZE;
  return undefined;
}

/** True for a list that holds one page of a connection (its length is the connection's page size). */
export function isPageList(key: string): boolean {
  return PAGE_LISTS.has(key) || /Connection\.edges$/.test(key);
}

/** A computed operation cost, and the page-size arguments out of range. */
export interface OperationCost {
  /** Cost units (≈ fields resolved when the assumed list lengths hold). */
  cost: number;
  /** One entry per out-of-range `first`, field `first`, e.g. description `must be 1-500`. */
  invalid: FieldError[];
}

/** Options of the cost estimator. */
export interface CostOptions {
  /** Overrides of {@link LIST_SIZES}. */
  listSizes?: Readonly<Record<string, number>>;
}

/** `first must be 1-500`: the over-cap message, same as the services'. */
const pageSizeRule = `must be 1-${MAX_PAGE_SIZE}`;

/**
 * Computes the cost of one operation of `document` with its `variables` (see the module
 * comment for the rules). Every `first` is read as given; an out-of-range one is reported in
 * `invalid` and counted as {@link MAX_PAGE_SIZE}.
 * @throws GraphQLError when the document walks more than {@link MAX_QUERY_NODES} nodes, or its
 *   variables do not coerce (the caller maps both).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
  opts: CostOptions = {},
): OperationCost {
  const sizes = { ...LIST_SIZES, ...opts.listSizes };
  const invalid: FieldError[] = [];
  const estimator = ({ type, field, args, childComplexity }: ComplexityEstimatorArgs): number => {
    const key = `${type.name}.${field.name}`;
    const paging = PAGE_SIZE_ARGS.filter((name) => field.args.some((a) => a.name === name));
    if (paging.length) {
      let size = 0;
      for (const name of paging) {
        const n = args[name] as unknown;
        if (n === undefined || n === null) continue;
        const ok = typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_PAGE_SIZE;
        if (!ok) invalid.push({ field: name, description: pageSizeRule });
        size = Math.max(size, ok ? (n as number) : MAX_PAGE_SIZE);
      }
      if (args.page !== undefined && args.page !== null) size = Math.max(size, NUMBERED_PAGE_SIZE);
      // A field that declares `first` with a default gets it in `args`; a connection's own default
      // applies when neither is given, or the table's length for a connection that then serves
      // the whole list (a group's members).
      return 1 + (size || sizes[key] || PAGE_SIZE_DEFAULT) * Math.max(childComplexity, 1);
    }
    if (isPageList(key)) return 1 + childComplexity;
    if (key === 'Query.nodes' && Array.isArray(args.ids))
      return 1 + Math.max(args.ids.length, 1) * Math.max(childComplexity, 1);
    if (key === 'Query._entities' && Array.isArray(args.representations))
      return 1 + Math.max(args.representations.length, 1) * Math.max(childComplexity, 1);
    if (isListType(getNullableType(field.type)) && !type.name.startsWith('__')) {
      // Unknown list fields count as large so that a new one is not free (a test lists them).
      const size = assumedListSize(key, sizes) ?? 1000;
      return 1 + size * Math.max(childComplexity, 1);
    }
    return 1 + childComplexity;
  };
  const cost = getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    operationName,
    estimators: [estimator],
    maxQueryNodes: MAX_QUERY_NODES,
  });
  return { cost, invalid };
}

/** Every list field of `schema` outside introspection, as `Type.field`, and whether it takes `first`. */
export function listFields(schema: GraphQLSchema): { key: string; paged: boolean }[] {
  const out: { key: string; paged: boolean }[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const list = isListType(getNullableType(field.type));
      const paged = field.args.some((a) => (PAGE_SIZE_ARGS as readonly string[]).includes(a.name));
      if (list || paged) out.push({ key: `${type.name}.${field.name}`, paged });
    }
  }
  return out;
}

/** `QUERY_TOO_COMPLEX`, HTTP 400 (the `http` extension is consumed by Apollo, never sent). */
function tooComplex(message: string, facts: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'QUERY_TOO_COMPLEX', ...facts, http: { status: 400 } },
  });
}

/** The code a GraphQL operation past its deadline answers (HTTP 504). */
export const TIMEOUT_CODE = 'TIMEOUT';

/** The message of the `TIMEOUT` error: the budget that ran out, GRAPHQL_TIMEOUT_MS in ms. */
function timeoutMessage(timeoutMs: number): string {
  return `operation exceeded GRAPHQL_TIMEOUT_MS (${timeoutMs} ms)`;
}

/**
 * How `/graphql` presents the request's deadline passing before execution (e.g. while its
 * credentials were read): `TIMEOUT`, HTTP 504, the same error as an operation stopped at a
 * {@link checkpoint} (the `http` extension is consumed by Apollo, never sent).
 * @param timeoutMs GRAPHQL_TIMEOUT_MS.
 */
export function graphqlTimeoutError(timeoutMs: number): GraphQLError {
  return new GraphQLError(timeoutMessage(timeoutMs), {
    extensions: { code: TIMEOUT_CODE, http: { status: 504 } },
  });
}

/**
 * The deadline checks of one GraphQL request (set on the context by {@link graphqlLimitsPlugin};
 * absent for REST rows and subscriptions). The deadline itself is the request scope's (see the
 * module comment); outside a request there is none.
 */
export class ExecutionBudget {
  /** Set when a checkpoint refused to go on; the response then becomes one TIMEOUT error. */
  timedOut = false;

  constructor(
    /** GRAPHQL_TIMEOUT_MS, for the error's message. */
    readonly timeoutMs: number,
  ) {}

  /**
   * Stops the operation when the request's deadline has passed (and at every later check).
   * @throws DeadlineExceededError (`graphql`) after the deadline.
   */
  check(): void {
    if (this.timedOut || remainingMs() < 0) {
      this.timedOut = true;
      throw new DeadlineExceededError('graphql', { message: timeoutMessage(this.timeoutMs) });
    }
  }
}

/** Longest stretch of resolver work, in ms, before the event loop gets a turn. */
const SLICE_MS = 10;
/** Waiting resolvers released per event-loop turn. */
const RELEASE_PER_TURN = 32;

const waiting: Array<() => void> = [];
let sliceStart = performance.now();
let pumpScheduled = false;

function pump(): void {
  pumpScheduled = false;
  sliceStart = performance.now();
  for (const release of waiting.splice(0, RELEASE_PER_TURN)) release();
  if (waiting.length) schedulePump();
}

function schedulePump(): void {
  if (pumpScheduled) return;
  pumpScheduled = true;
  // Two hops: an immediate set during the poll phase runs before any new I/O is read; one set
  // from the check phase runs after the next poll phase, so pending requests are served first.
  setImmediate(() => setImmediate(pump));
}

/** Waits for a later event-loop turn (after pending I/O), in arrival order with other waiters. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedulePump();
  });
}

/**
 * A cooperative yield point for resolvers (process-wide): when other resolvers are already
 * waiting or the current stretch of work has lasted {@link SLICE_MS}, waits for a later turn of
 * the event loop (releases are {@link RELEASE_PER_TURN} per turn, so I/O such as `/healthz` is
 * served in between). Then checks the request's deadline, if it has one.
 * @throws DeadlineExceededError when the GraphQL deadline has passed.
 */
export async function checkpoint(ctx: GatewayContext): Promise<void> {
  ctx.budget?.check();
  if (waiting.length === 0 && performance.now() - sliceStart < SLICE_MS) return;
  await nextTurn();
  ctx.budget?.check();
}

/** Items of a list handed to GraphQL before the first yield, and between two yields. */
export const LIST_CHUNK = 100;

/**
 * Returns `items` for a GraphQL list field so that graphql-js completes them a chunk at a
 * time: the first {@link LIST_CHUNK} as they are, every later chunk as promises resolved on a
 * later event-loop turn (each turn checks the deadline; past it the rest reject with
 * {@link DeadlineExceededError}). Short lists are returned unchanged.
 */
export function yieldingList<T>(ctx: GatewayContext, items: readonly T[]): Array<T | Promise<T>> {
  if (items.length <= LIST_CHUNK) return [...items];
  const out: Array<T | Promise<T>> = items.slice(0, LIST_CHUNK);
  let previous: Promise<void> = Promise.resolve();
  for (let i = LIST_CHUNK; i < items.length; i += LIST_CHUNK) {
    const ready: Promise<void> = previous.then(async () => {
      await nextTurn();
      ctx.budget?.check();
    });
    for (const item of items.slice(i, i + LIST_CHUNK)) out.push(ready.then(() => item));
    previous = ready;
  }
  return out;
}

/** Options of {@link graphqlLimitsPlugin}. */
export interface GraphqlLimitsOptions {
  /** GRAPHQL_MAX_COST. */
  maxCost: number;
  /** GRAPHQL_TIMEOUT_MS. */
  timeoutMs: number;
  /** Overrides of {@link LIST_SIZES} (e.g. `Group.members` from MAX_GROUP_SIZE). */
  listSizes?: Readonly<Record<string, number>>;
}

/**
 * The cost of one resolved operation as the limits judge it ({@link operationCost} with the
 * options' list sizes).
 * @throws GraphQLError `BAD_USER_INPUT` (HTTP 400) when a variable does not coerce, else
 *   `QUERY_TOO_COMPLEX` (HTTP 400) when the document walks more than {@link MAX_QUERY_NODES}.
 */
export function limitedOperationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode | undefined,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
  opts: Pick<GraphqlLimitsOptions, 'listSizes'>,
): OperationCost {
  try {
    return operationCost(schema, document, variables, operationName, { listSizes: opts.listSizes });
  } catch (err) {
    // Variables are coerced only when execution starts, after this check: a variable a
    // scalar refuses (a malformed MSISDN, Decimal, ...) is BAD_USER_INPUT, as execution
    // would answer, not a cost refusal. Only the node limit is QUERY_TOO_COMPLEX.
    const coerced = getVariableValues(schema, operation?.variableDefinitions ?? [], variables ?? {});
    if (coerced.errors?.length)
      throw new GraphQLError(coerced.errors[0].message, {
        nodes: coerced.errors[0].nodes,
        extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
      });
    throw tooComplex(`operation is too complex: ${(err as Error).message}`, {
      maxQueryNodes: MAX_QUERY_NODES,
    });
  }
}

/**
 * Refuses an operation whose computed cost breaks a limit: an out-of-range page size
 * (`BAD_USER_INPUT`, HTTP 400, `extensions.fields`), then a cost over `maxCost`
 * (`QUERY_TOO_COMPLEX`, HTTP 400, with `cost` and `maxCost` in `extensions`).
 * @throws GraphQLError as above; returns when the operation may run.
 */
export function assertWithinLimits(result: OperationCost, maxCost: number): void {
  if (result.invalid.length) {
    throw new GraphQLError(`first ${pageSizeRule}`, {
      extensions: { code: 'BAD_USER_INPUT', fields: result.invalid, http: { status: 400 } },
    });
  }
  if (result.cost > maxCost) {
    throw tooComplex(
      `operation cost ${result.cost} exceeds GRAPHQL_MAX_COST ${maxCost}: ask for smaller pages (first) or fewer nested lists`,
      { cost: result.cost, maxCost },
    );
  }
}

/**
 * True when the request's execution hit its deadline: a checkpoint refused to go on, or one of
 * the execution's `errors` is a database wait stopped by the same deadline
 * (src/db/bound-client.ts). Marks the budget timed out in the second case.
 */
export function executionTimedOut(budget: ExecutionBudget, errors: readonly unknown[] | undefined): boolean {
  if (errors?.some(isDeadlineExceeded)) budget.timedOut = true;
  return budget.timedOut;
}

/** The whole response of an operation past its deadline (sent with HTTP 504): one `TIMEOUT` error, `data: null`. */
export function timeoutResult(timeoutMs: number): {
  data: null;
  errors: [{ message: string; extensions: { code: string } }];
} {
  return { data: null, errors: [{ message: timeoutMessage(timeoutMs), extensions: { code: TIMEOUT_CODE } }] };
}

/**
 * The Apollo plugin enforcing the limits on `/graphql` (see the module comment): puts an
 * {@link ExecutionBudget} on the context when the request starts; once the operation is
 * resolved refuses out-of-range page sizes (`BAD_USER_INPUT`, HTTP 400) and operations over
 * `maxCost` (`QUERY_TOO_COMPLEX`, HTTP 400, with `cost` and `maxCost` in `extensions`); turns
 * a response whose execution hit the deadline into one `TIMEOUT` error (HTTP 504).
 * Register it after the credentials plugin. The `/graphql` fast path (src/graphql/fast-path.ts)
 * applies the same rules through {@link limitedOperationCost}, {@link assertWithinLimits},
 * {@link executionTimedOut} and {@link timeoutResult}.
 */
export function graphqlLimitsPlugin(opts: GraphqlLimitsOptions): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const budget = new ExecutionBudget(opts.timeoutMs);
      contextValue.budget = budget;
      return {
        async didResolveOperation({ request, document, schema, operationName, operation }) {
          const result = limitedOperationCost(
            schema,
            document,
            operation,
            request.variables,
            operationName ?? undefined,
            opts,
          );
          assertWithinLimits(result, opts.maxCost);
        },
        async willSendResponse({ response, errors }) {
          if (!executionTimedOut(budget, errors) || response.body.kind !== 'single') return;
          response.http.status = 504;
          response.body.singleResult = timeoutResult(opts.timeoutMs);
        },
      };
    },
  };
}
